"""Where one op's output differs from torch's counterpart, said by the input values at those elements (pure).

An op located by the op-level search whose inputs agree and whose output does not may differ only at special
inputs: xlogy(0, 0) gives NaN where torch gives 0, logaddexp(-inf, -inf) NaN where torch gives -inf, a
logsumexp over an all -inf row. The differing output elements are read off the two recorded outputs, each with
the input values it was computed from (an elementwise op: the inputs broadcast to the output; a reduction: the
slice reduced to it), and grouped, so the report says at which inputs the two conventions part.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.backward_ops import differing, number_text

MAX_GROUPS = 3


def _slice_words(values: np.ndarray) -> str:
    """A reduced slice in words where it is uniform ('all -inf'), else ''."""
    flat = values.reshape(-1).astype(np.float64)
    if flat.size and np.all(np.isneginf(flat)):
        return "all -inf"
    if flat.size and np.all(np.isposinf(flat)):
        return "all inf"
    if flat.size and np.all(np.isnan(flat)):
        return "all nan"
    if flat.size and np.all(flat == 0):
        return "all 0"
    return ""


def where_differs(inputs: Sequence[np.ndarray], ms_out: np.ndarray, torch_out: np.ndarray, rtol: float, atol: float,
                  names: Sequence[str] = ()) -> str:
    """'where x == 0 and y == 0 (6 elements): torch 0, MindSpore nan'; '' where the elements share no input."""
    if ms_out.shape != torch_out.shape or ms_out.dtype.kind not in "fc" or torch_out.dtype.kind not in "fc":
        return ""
    wrong = differing(torch_out, ms_out, rtol, atol)
    if not wrong.any():
        return ""
    floats = [np.asarray(x) for x in inputs if isinstance(x, np.ndarray) and x.dtype.kind in "fc"]
    labels = [names[i] if i < len(names) and names[i] else ("x" if i == 0 else f"input {i}") for i in range(len(floats))]
    groups: dict = {}
    for index in zip(*np.nonzero(wrong)):
        key = _at(floats, labels, index, torch_out.shape)
        if key is None:
            return ""
        group = (key, number_text(float(torch_out[index])), number_text(float(ms_out[index])))
        groups[group] = groups.get(group, 0) + 1
    if len({k for k, _, _ in groups}) > MAX_GROUPS:
        return ""  # no few special inputs explain it: a general difference, not an edge convention
    parts = [f"where {key} ({n} element{'s' if n > 1 else ''}): torch {tv}, MindSpore {mv}"
             for (key, tv, mv), n in list(groups.items())[:MAX_GROUPS]]
    return "; ".join(parts) + f" ({int(wrong.sum())} of {wrong.size} output elements)"


def _at(floats: List[np.ndarray], labels: List[str], index: Tuple[int, ...], shape: Tuple[int, ...]) -> Optional[str]:
    said = []
    for x, label in zip(floats, labels):
        try:
            value = np.broadcast_to(x, shape)[index]  # elementwise: the input element it was computed from
            said.append(f"{label} == {number_text(float(value))}")
            continue
        except ValueError:
            pass
        if x.ndim == len(shape):  # a keepdim reduction: the slice reduced to this element
            piece = x[tuple(slice(None) if x.shape[d] != shape[d] else slice(i, i + 1) for d, i in enumerate(index))]
            words = _slice_words(piece)
            if not words:
                return None
            said.append(f"{label}'s reduced slice is {words}")
            continue
        return None
    return " and ".join(said) if said else None


def divergence_elements(div: Any) -> str:
    """Where a diverging op's output parts from its torch counterpart's, by input values ('' without one)."""
    if div.torch is None or not div.ms.outputs or not div.torch.outputs:
        return ""
    names = [n for n, v in zip(div.ms.names, div.ms.positional) if v == "<tensor>"]
    return (where_differs(div.ms.inputs, div.ms.outputs[0], div.torch.outputs[0], 1.3e-6, 1e-5, names)
            or unselected_rows(div.ms.inputs, div.ms.outputs[0], div.torch.outputs[0], 1.3e-6, 1e-5))


def unselected_rows(inputs: Sequence[np.ndarray], ms_out: np.ndarray, torch_out: np.ndarray, rtol: float,
                    atol: float) -> str:
    """'only at output rows no index selects (rows 3, 5: empty segments): torch 0, MindSpore 1' where a segment or
    scatter reduction differs exactly at the rows its integer index input never names; '' otherwise."""
    if ms_out.shape != torch_out.shape or not ms_out.ndim or ms_out.dtype.kind not in "fc":
        return ""
    wrong = differing(torch_out, ms_out, rtol, atol)
    rows = sorted(int(i) for i in np.nonzero(wrong.reshape(wrong.shape[0], -1).any(axis=1))[0])
    for index in (x for x in inputs if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and x.size):
        named = set(int(v) for v in index.reshape(-1))
        unselected = [r for r in range(ms_out.shape[0]) if r not in named]
        if not rows or rows != unselected or len(named - set(range(ms_out.shape[0]))) == len(named):
            continue
        values = lambda out: sorted({number_text(float(v)) for v in np.asarray(out)[rows].reshape(-1)})  # noqa: E731
        t, m = values(torch_out), values(ms_out)
        shown = ", ".join(str(r) for r in rows[:6]) + (", ..." if len(rows) > 6 else "")
        return (f"only at output rows no index selects (row{'s' if len(rows) > 1 else ''} {shown}: empty segments):"
                f" torch {'/'.join(t[:3])}, MindSpore {'/'.join(m[:3])}")
    return ""


def differed_at(div: Any) -> str:
    """'; the port's logaddexp output differed where input == -inf and other == -inf ...' or ''."""
    at = divergence_elements(div)  # measured on the two recorded outputs: which inputs the port's op got wrong
    name = div.ms.name.rsplit(" ", 1)[-1].rsplit(".", 1)[-1]
    return f"; the port's {name} output differed {at}" if at else ""
