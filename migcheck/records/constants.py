"""Tensors a network builds when it is constructed and keeps as plain attributes or buffers (windows, filterbanks,
frequency bands, position tables), and the library calls its constructor made: one vocabulary for both runners
and the pure code that compares them, plain values only."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple


@dataclass(frozen=True)
class BuildCall:
    """One call the network's own constructor code made into a library (MindSpore, NumPy, torch), as recorded
    while the network was built."""
    function: str  # how the code reached it, e.g. "mindspore.ops.logspace", "numpy.hanning", "torch.hann_window"
    ordinal: int  # which call of that function, counted from 0 in the build
    arguments: Tuple[Tuple[str, Any], ...]  # every parameter by name, defaults filled in (plain values; tensors as "<tensor>")
    defaulted: Tuple[str, ...]  # the parameters the call left at their defaults
    site: str  # "file.py:line" of the call


@dataclass(frozen=True)
class BuildChange:
    """One argument of one recorded BuildCall given another value, for a rebuild."""
    function: str
    ordinal: int
    argument: str
    value: Any


@dataclass(frozen=True)
class ConstantDiff:
    """A constant tensor of the port that holds other values than torch's counterpart."""
    owner: str  # the layer path that holds it ("" is the network itself)
    torch_attr: str
    ms_attr: str
    detail: str  # e.g. "max abs err 0.105 at (3, 1)" or "shape (4,) vs (5,)" or "dtype float32 vs float64"
    dtypes: Tuple[str, ...] = ()  # (torch's, the port's) where only the dtype differs
