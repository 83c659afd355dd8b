"""Dataflow alignment at op level: the first op of the port's own construct whose inputs agree with values
torch computed and whose output agrees with none (pure: both runners hand over records/ops.OpRecord).

Values are matched by content, as sub-cells are paired: an op's input "agrees" when torch computed the same
array somewhere in the region (its inputs, its children's outputs, its own ops' inputs and results). An op
whose inputs already differ inherits the difference and is not a divergence. Every diverging op is returned,
in order (an op whose result is not used may diverge harmlessly; the search judges by re-runs).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.util.closeness import widened

from migcheck.records.ops import OpRecord

Same = Callable[[np.ndarray, np.ndarray], bool]


@dataclass(frozen=True)
class OpDivergence:
    ms: OpRecord
    torch: Optional[OpRecord]  # the torch call fed the same inputs (its counterpart), when one is
    producers: Tuple[int, ...]  # record indices of the port's ops whose results feed this op


def same_value(rtol: float, atol: float) -> Same:
    """Equal shapes and values within tolerance (booleans and integers as numbers)."""
    def same(a: np.ndarray, b: np.ndarray) -> bool:
        if a.shape != b.shape or not _kinds_match(a, b):
            return False
        x, y = widened(a), widened(b)
        with np.errstate(invalid="ignore"):
            return bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
    return same


def _kind(a: np.ndarray) -> str:
    return {"b": "b", "i": "i", "u": "i", "f": "f", "c": "f"}.get(a.dtype.kind, a.dtype.kind)


def _kinds_match(a: np.ndarray, b: np.ndarray) -> bool:
    """Same kind of number (indices cast to float are not torch's float values); a mask may be held as
    booleans on one side and 0/1 numbers on the other."""
    ka, kb = _kind(a), _kind(b)
    if ka == kb:
        return True
    if "b" in (ka, kb):
        other = b if ka == "b" else a
        return bool(np.all((other == 0) | (other == 1)))
    return False


class _Known:
    def __init__(self, values: Sequence[np.ndarray], same: Same) -> None:
        self.by_shape: Dict[Tuple[int, ...], List[np.ndarray]] = {}
        self.same = same
        for v in values:
            self.add(v)

    def add(self, v: np.ndarray) -> None:
        self.by_shape.setdefault(tuple(np.shape(v)), []).append(np.asarray(v))

    def has(self, v: np.ndarray) -> bool:
        return any(self.same(np.asarray(v), k) for k in self.by_shape.get(tuple(np.shape(v)), []))


def _given(known: _Known, computed: Optional[Sequence[np.ndarray]], same: Same) -> Callable[[np.ndarray], bool]:
    """Whether an op's input may be taken as given: torch computed the same value, or (with `computed`: what the
    construct computed itself, its inputs, its children's and its ops' results) the construct did not compute
    it at all: a constant the port built (MirrorPad's paddings tensor, where torch's F.pad takes a tuple)."""
    made = _Known(computed, same) if computed is not None else None
    return lambda x: known.has(x) or (made is not None and not made.has(x))


def diverging_ops(ms_ops: Sequence[OpRecord], torch_ops: Sequence[OpRecord], torch_values: Sequence[np.ndarray],
                  same: Same, computed: Optional[Sequence[np.ndarray]] = None) -> List[OpDivergence]:
    known = _Known(list(torch_values) + [a for r in torch_ops for a in r.inputs + r.outputs], same)
    given = _given(known, computed, same)
    out = []
    for i, r in enumerate(ms_ops):
        if not r.outputs or not all(given(x) for x in r.inputs):
            continue
        if all(known.has(y) for y in r.outputs):
            continue
        producers = tuple(p.index for p in ms_ops[:i] if any(same(y, x) for y in p.outputs for x in r.inputs))
        out.append(OpDivergence(r, counterpart(r, torch_ops, same), producers))
    return out


def _base(name: str) -> str:
    return name.split(".")[-1].strip("_").lower()


def counterpart(r: OpRecord, torch_ops: Sequence[OpRecord], same: Same) -> Optional[OpRecord]:
    """The torch call fed the most of the same inputs, the closest name breaking ties (name alone for an op
    with no tensor input)."""
    best, key = None, (0, 0.0)
    for t in torch_ops:
        shared = sum(any(same(x, y) for y in t.inputs) for x in r.inputs)
        alike = difflib.SequenceMatcher(None, _base(r.name), _base(t.name)).ratio()
        if (shared or (not r.inputs and alike >= 0.8)) and (shared, alike) > key:
            best, key = t, (shared, alike)
    return best


def _signature(a: np.ndarray) -> Tuple[Tuple[int, ...], str]:
    return tuple(np.shape(a)), _kind(np.asarray(a))


def said_outputs(arrays: Sequence[np.ndarray]) -> str:
    """'Tensor[2, 3] float32, Tensor[2, 3] int64': what an op returned, as its shapes and dtypes."""
    return ", ".join(f"Tensor{list(np.shape(a))} {np.asarray(a).dtype}" for a in arrays) or "nothing"


def outputs_differ(ms_op: OpRecord, torch_op: Optional[OpRecord]) -> bool:
    """The op raised, or its results set beside torch's counterpart's in order differ in number, shape or kind
    of number (an index where torch returns a value: ArgMaxWithValue's (index, value) against max's (values,
    indices))."""
    if ms_op.raised:
        return True
    if torch_op is None or not ms_op.outputs:
        return False
    if len(ms_op.outputs) != len(torch_op.outputs):
        return True
    return any(a.shape != b.shape or not _kinds_match(a, b) for a, b in zip(ms_op.outputs, torch_op.outputs))


def differing_outputs(ms_ops: Sequence[OpRecord], torch_ops: Sequence[OpRecord], torch_values: Sequence[np.ndarray],
                      same: Same, computed: Optional[Sequence[np.ndarray]] = None) -> List[OpDivergence]:
    """Every op whose inputs all agree with torch's values and which raised, or returned results of another
    shape or kind than its counterpart's (outputs_differ): where an error that surfaces later starts. Also
    every in-place call that left its tensor as it was (OpRecord.unchanged_self): later ops see the old value."""
    known = _Known(list(torch_values) + [a for r in torch_ops for a in r.inputs + r.outputs], same)
    given = _given(known, computed, same)
    out = []
    for i, r in enumerate(ms_ops):
        if not all(given(x) for x in r.inputs):
            continue
        t = counterpart(r, torch_ops, same)
        if r.unchanged_self or outputs_differ(r, t):
            producers = tuple(p.index for p in ms_ops[:i] if any(same(y, x) for y in p.outputs for x in r.inputs))
            out.append(OpDivergence(r, t, producers))
    return out


def computed_from(values: Sequence[np.ndarray], earlier: Sequence[Any], source: Any = lambda r: False
                  ) -> Tuple[List[np.ndarray], List[Any]]:
    """(every value the given ones were computed from, the records `source` marks that returned one of them),
    followed back through the earlier records by equal values, the sources in the order they ran; a source's
    own inputs are not followed (a child cell is where the trail ends)."""
    frontier, found = list(values), []
    for r in reversed(earlier):
        if not any(o.shape == x.shape and np.array_equal(o, x, equal_nan=o.dtype.kind in "fc" and x.dtype.kind in "fc")
                   for o in r.outputs for x in frontier):  # a masked NaN is the same value on the trail
            continue
        if source(r):
            found.append(r)
        else:
            frontier += list(r.inputs)
    return frontier, found[::-1]
