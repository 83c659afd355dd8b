"""An op that differs from torch's only at exact ties, measured by moving its inputs off them.

Two kernels of one operation may agree everywhere except at measure-zero inputs: a nearest sample at a half-way
coordinate (round half to even or away from zero), equal elements a sort or top-k orders, a boundary where a
piecewise function switches. No argument changes that, so the op search finds no candidate. The measurement:
torch's op re-run alone on its recorded inputs with every float element moved a little (records.ops.nudged, up
and then down, a different amount per element), and the port's construct re-run with its op's float inputs moved
the same way. Where both moved runs agree with each other at the op, the difference lives on the exact values
only: that is the confirmed cause. No fix is printed (none was re-run: a port cannot move its inputs).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_candidates import base_name
from migcheck.localization.op_elements import divergence_elements
from migcheck.localization.raising_op import same_operation
from migcheck.records.ops import OpChange, nudged
from migcheck.runners.probes import MindSporeProbe, TorchProbe

STEP = 1e-3  # far beyond float32 noise, far below any difference an argument makes


def ties_only(module: TorchProbe, cell: MindSporeProbe, torch_owner: str, ms_name: str, inputs: Sequence[np.ndarray],
              div: Optional[OpDivergence], same: Callable[[np.ndarray, np.ndarray], bool]) -> str:
    """'op X differs from torch's only at exact ties ...' where moving the op's inputs off them (both ways) makes
    the two agree; '' where it does not, or where nothing can be measured."""
    t = div.torch if div is not None else None
    if t is None or div.ms.raised or not div.ms.outputs or not t.outputs or not same_operation(div.ms.name, t.name):
        return ""
    if not any(x.dtype.kind == "f" for x in t.inputs) or not _differ(div, same):
        return ""
    ways, moved = [], []
    for step, way in ((STEP, "up"), (-STEP, "down")):
        try:
            want = module.rerun_op(torch_owner, t.index, [nudged(x, step) for x in t.inputs])
            changed, _ = cell.trace_ops(ms_name, inputs, OpChange(div.ms.index, nudge=step))
        except Exception:  # an op that cannot be re-run alone on either side: nothing measured
            return ""
        now = next((r for r in changed if r.index == div.ms.index), None)
        if now is None or len(now.outputs) != len(want) or not all(
                same(np.asarray(a), np.asarray(b)) for a, b in zip(now.outputs, want)):
            return ""
        ways.append(way)
        moved.append(np.asarray(want[0]) if want else None)
    if not _one_side_of_a_tie(div.ms.outputs[0], t.outputs[0], moved):
        return ""
    at = divergence_elements(div)  # an elementwise op: the special input values themselves, where few
    what = (f"only at special values of its inputs: {base_name(div.ms.name)} output differs {at}" if at else
            f"only at exact ties of its inputs ({_count(div, same)}): the two round or break ties (half-way values,"
            f" equal elements, boundary points) differently")
    return (f"op '{div.ms.name}' differs from torch's '{t.name}' {what}; with every float input moved off them, by up"
            f" to {STEP * 1.5:g} of its scale per element ({' and '.join(ways)}), torch's op re-run alone and the"
            f" port's re-run through '{ms_name or '<root>'}' agree; no argument changes that")


def _one_side_of_a_tie(ms_out: np.ndarray, torch_out: np.ndarray, moved: Sequence[Optional[np.ndarray]]) -> bool:
    """At every element where the two differ, the port's value is torch's own on inputs moved one way or the other:
    a tie resolved the other way. Moving inputs can also erase a difference that is no tie (an op that treats every
    nonzero float alike agrees once no input is zero), and then the port's values are torch's on neither side."""
    if any(m is None or m.shape != torch_out.shape for m in moved) or ms_out.shape != torch_out.shape:
        return False
    a, b = ms_out.astype(np.float64), torch_out.astype(np.float64)
    loose = 10 * STEP * (np.abs(b) + float(np.mean(np.abs(b[np.isfinite(b)]))) if np.isfinite(b).any() else 1.0)
    with np.errstate(invalid="ignore"):
        differs = ~((np.abs(a - b) <= 1e-6 + 1e-5 * np.abs(b)) | (np.isnan(a) & np.isnan(b)))
        near = np.zeros_like(differs)
        for m in moved:
            c = m.astype(np.float64)
            near |= (np.abs(a - c) <= loose) | (np.isnan(a) & np.isnan(c)) | (np.isinf(a) & (a == c))
    return bool(differs.any()) and bool(near[differs].all())


def _differ(div: OpDivergence, same: Callable[[np.ndarray, np.ndarray], bool]) -> bool:
    t = div.torch
    return len(div.ms.outputs) == len(t.outputs) and not all(
        same(a, b) for a, b in zip(div.ms.outputs, t.outputs))


def _count(div: OpDivergence, same: Callable[[np.ndarray, np.ndarray], bool]) -> str:
    """'3 of 48 output elements differ' on the first result that differs, where both hold numbers."""
    for a, b in zip(div.ms.outputs, div.torch.outputs):
        if a.shape == b.shape and a.dtype.kind in "fiub" and not same(a, b):
            off = ~np.isclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-5, atol=1e-6, equal_nan=True)
            return f"{int(off.sum())} of {off.size} output elements differ"
    return "its outputs differ"

