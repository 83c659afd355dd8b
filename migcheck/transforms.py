"""Layout transforms between a torch parameter and its MindSpore counterpart. Pure numpy, invertible.

Weights go torch -> MindSpore through ``to_ms``; gradients and updated parameters come back
through ``to_torch`` so that every comparison happens in torch's layout under torch's names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence, Tuple

import numpy as np
from migcheck.util.tree import contiguous

Shape = Tuple[int, ...]


@dataclass(frozen=True)
class Transform:
    kind: str  # identity | reshape | transpose | split | concat | reorder
    axes: Tuple[int, ...] = ()  # transpose: the permutation
    axis: int = 0  # split / concat / reorder
    order: Tuple[int, ...] = ()  # reorder: new position -> old block, e.g. gates (0, 1, 3, 2)

    def describe(self) -> str:
        if self.kind == "transpose":
            return f"transpose{self.axes}"
        if self.kind in ("split", "concat"):
            return f"{self.kind}(axis={self.axis})"
        if self.kind == "reorder":
            return f"reorder blocks {self.order} (axis={self.axis})"
        return "" if self.kind == "identity" else self.kind

    def to_ms(self, arrays: Sequence[np.ndarray], ms_shapes: Sequence[Shape]) -> List[np.ndarray]:
        return _apply(self, arrays, ms_shapes, inverse=False)

    def to_torch(self, arrays: Sequence[np.ndarray], torch_shapes: Sequence[Shape]) -> List[np.ndarray]:
        return _apply(self, arrays, torch_shapes, inverse=True)


IDENTITY = Transform("identity")


def reshape() -> Transform:
    """Same elements, another shape, e.g. MindSpore's Conv1d weight (out, in, 1, k) for torch's (out, in, k)."""
    return Transform("reshape")


def transpose(*axes: int) -> Transform:
    return Transform("transpose", axes=tuple(axes))


def split(axis: int = 0) -> Transform:
    """One torch tensor -> several MindSpore tensors, e.g. a packed in_proj_weight -> q, k, v."""
    return Transform("split", axis=axis)


def concat(axis: int = 0) -> Transform:
    """Several torch tensors -> one MindSpore tensor."""
    return Transform("concat", axis=axis)


def reorder_blocks(*order: int, axis: int = 0) -> Transform:
    """Equal blocks along axis in another order, e.g. LSTM gates i,f,g,o -> i,f,o,g: reorder_blocks(0, 1, 3, 2)."""
    return Transform("reorder", axis=axis, order=tuple(order))


def _apply(t: Transform, arrays: Sequence[np.ndarray], shapes: Sequence[Shape], inverse: bool) -> List[np.ndarray]:
    if t.kind == "identity":
        return [np.asarray(a) for a in arrays]
    if t.kind == "reshape":
        return [np.reshape(a, s) for a, s in zip(arrays, shapes)]
    if t.kind == "transpose":
        axes = tuple(np.argsort(t.axes)) if inverse else t.axes
        return [contiguous(np.transpose(arrays[0], axes))]
    if t.kind == "reorder":
        order = tuple(int(i) for i in np.argsort(t.order)) if inverse else t.order
        blocks = np.split(np.asarray(arrays[0]), len(order), axis=t.axis)
        return [np.concatenate([blocks[i] for i in order], axis=t.axis)]
    joining = (t.kind == "concat") != inverse  # split's inverse joins; concat's inverse splits
    if joining:
        return [np.concatenate(list(arrays), axis=t.axis)]
    cuts = np.cumsum([s[t.axis] for s in shapes])[:-1]
    return [contiguous(p) for p in np.split(np.asarray(arrays[0]), cuts, axis=t.axis)]


def fits(t: Transform, torch_shapes: Sequence[Shape], ms_shapes: Sequence[Shape]) -> bool:
    """Whether the transform maps these torch shapes onto these MindSpore shapes."""
    try:
        probe = [np.zeros(s, np.float32) for s in torch_shapes]
        return [tuple(a.shape) for a in t.to_ms(probe, ms_shapes)] == [tuple(s) for s in ms_shapes]
    except (ValueError, IndexError, np.AxisError):
        return False


def same_but_singletons(a: Shape, b: Shape) -> bool:
    """Equal once size-1 axes are dropped: a reshape that moves no element."""
    return a != b and [d for d in a if d != 1] == [d for d in b if d != 1]
