"""Mixed precision: which float type each layer of a case computes in. Pure data and functions.

The model is MindSpore's ``Cell.to_float``: the network is flagged with a compute dtype, layers that
must stay accurate (BatchNorm, by the migration guide's "whole net float16, BatchNorm and loss
float32") are flagged float32, and a flag covers the layer's children. A layer's float inputs are cast
to its dtype on entry and its parameters wherever its ops use them; the parameters themselves stay
float32 (master weights), so gradients and optimizer updates are float32. That is GRAPH mode's
behaviour, and what an original model's own casts (x.float() before a variance) mean. The torch
runner mirrors it, so a difference is the port's, not the policies'. (MindSpore's PYNATIVE mode
casts the inputs of every op inside a flagged cell instead, undoing such casts: see the bundled
rmsnorm_upcast_undone_in_pynative.)
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple, Union

LOW_PRECISION = ("float16", "bfloat16")

# Backends where MindSpore 2.10 cannot compute a dtype at all, and why (measured on CPU: Conv2D,
# MatMul and BatchNorm have no bfloat16 kernel there). A case in that dtype is skipped there.
UNSUPPORTED: Dict[Tuple[str, str], str] = {
    ("cpu", "bfloat16"): "MindSpore 2.10's CPU kernels have no bfloat16 (Conv2D, MatMul and BatchNorm"
                         " refuse it); run bfloat16 cases on an Ascend or GPU backend",
}


@dataclass(frozen=True)
class Precision:
    """How a case's network computes: ``precision=Precision("float16", keep_float32=("BatchNorm",))``.

    dtype: the network's compute dtype, "float16" or "bfloat16".
    keep_float32: layer class names (globs) that compute in float32 with their children; a plain
        name also matches its numbered variants ("BatchNorm" matches BatchNorm1d/2d/3d).
    loss_float32: the loss (loss=FrameworkPair) takes float32 inputs, as the guide recommends.
    apply: False when the factories set precision themselves (mindspore.amp helpers, torch
        autocast); migcheck then only judges with this dtype's tolerances.
    """

    dtype: str = "float16"
    keep_float32: Tuple[str, ...] = ()
    loss_float32: bool = True
    apply: bool = True

    def problems(self) -> List[str]:
        out = []
        if self.dtype not in LOW_PRECISION:
            out.append(f"precision dtype {self.dtype!r} is not a low-precision float type; use one of"
                       f" {', '.join(LOW_PRECISION)} (or leave precision unset for float32)")
        if isinstance(self.keep_float32, str) or not all(isinstance(p, str) and p for p in self.keep_float32):
            out.append(f"keep_float32={self.keep_float32!r} must be a tuple of layer class names such as ('BatchNorm',)")
        return out

    def describe(self) -> str:
        text = f"mixed precision: {self.dtype}"
        if self.keep_float32:
            text += f", float32 kept for {', '.join(self.keep_float32)}"
        text += ", loss float32" if self.loss_float32 else ""
        return text + ("" if self.apply else " (set by the case's own factories)")


# The migration guide's pattern (and mindspore.amp's O2 level): float16 with BatchNorm and loss in float32.
FLOAT16_BATCHNORM_FLOAT32 = Precision("float16", keep_float32=("BatchNorm",))


def as_precision(value: Union[None, str, Precision]) -> Optional[Precision]:
    """A case's ``precision`` value as a Precision; None (or "float32") means plain float32."""
    if value is None or value == "float32":
        return None
    if isinstance(value, str):
        return Precision(value)
    if isinstance(value, Precision):
        return value
    raise TypeError(f"precision={value!r}: use 'float16', 'bfloat16' or migcheck.Precision(...)")


class TakesPrecision(Protocol):
    """A loaded runner (torch_side.TorchModule, mindspore_side.MindSporeCell): precision sits below the runners,
    so it names the one method it calls instead of importing their protocol."""

    def set_precision(self, precision: Precision) -> None: ...


def apply_precision(value: Union[None, str, Precision], side: TakesPrecision) -> None:
    """Set a case's precision on a loaded runner (torch_side.TorchModule or mindspore_side.MindSporeCell,
    both with set_precision), unless the case applies it in its own factories."""
    precision = as_precision(value)
    if precision is not None and precision.apply:
        side.set_precision(precision)


def precision_problems(value: object) -> List[str]:
    try:
        precision = as_precision(value)  # type: ignore[arg-type]
    except TypeError as exc:
        return [str(exc)]
    return precision.problems() if precision else []


def kept(pattern: str, class_name: str) -> bool:
    """Whether a keep_float32 pattern names a layer class (case-insensitive glob; a bare name also
    matches the name followed by a variant suffix such as '2d')."""
    pattern, name = pattern.lower(), class_name.lower()
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, pattern + "[0-9]*")


def layer_dtypes(layers: Sequence[Tuple[str, str]], precision: Precision) -> Dict[str, str]:
    """Dotted path ('' for the root) -> compute dtype, for (path, class name) pairs of one network.

    A layer computes in float32 when it or an ancestor is kept, else in the precision's dtype.
    """
    kept_paths = [path for path, cls in layers if any(kept(p, cls) for p in precision.keep_float32)]

    def under(path: str, root: str) -> bool:
        return path == root or root == "" or path.startswith(root + ".")

    return {path: "float32" if any(under(path, k) for k in kept_paths) else precision.dtype for path, _ in layers}


def unmatched(precision: Precision, class_names: Iterable[str]) -> List[str]:
    """keep_float32 patterns that match no layer class (a typo would otherwise keep nothing, silently)."""
    names = list(class_names)
    return [p for p in precision.keep_float32 if not any(kept(p, n) for n in names)]


def unsupported_reason(precision: Optional[Precision], backend: str) -> Optional[str]:
    if precision is None:
        return None
    return UNSUPPORTED.get((backend, precision.dtype))


# Fewer mantissa bits first: the order in which rounding dominates a result.
_COARSENESS = ("bfloat16", "float16", "float32", "float64")


def tolerance_dtype(tensor_dtype: str, precision: Optional[Precision]) -> str:
    """The dtype whose tolerances judge a float tensor: a float32 result computed through float16
    layers carries float16 rounding, so the coarser of the tensor's dtype and the compute dtype."""
    if precision is None or tensor_dtype not in _COARSENESS:
        return tensor_dtype
    return min(tensor_dtype, precision.dtype, key=_COARSENESS.index)
