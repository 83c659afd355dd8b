"""A layer whose non-finite values differ from torch's, measured by re-runs:
- it makes NaN or inf where torch's is finite, from finite inputs: located at the first op of its construct that
  turns finite values into non-finite ones (0 / 0 at an all-zero row's norm), and confirmed where a small epsilon
  added to one of that op's inputs, re-run through the layer on torch's recorded inputs, makes the layer agree with
  torch (the epsilons are tried small to large; the re-run decides);
- it returns numbers where it is fed NaN and torch's keeps NaN (nn.ReLU maps NaN to 0): confirmed where the layer,
  re-run alone, with NaN kept wherever its input is NaN, agrees with torch.
"""
from __future__ import annotations

import time
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from migcheck.localization.arg_search import SearchOutcome
from migcheck.localization.confirm import agree_all, first_array
from migcheck.records.ops import OpChange, OpRecord
from migcheck.runners.probes import MindSporeProbe

EPSILONS = (1e-12, 1e-8, 1e-6)
RULE = "nan-made"


def nan_made(cell: MindSporeProbe, torch_name: str, ms_name: str, ms_kind: str, inputs: Sequence[Any],
             torch_out: Any, ms_out: Any, tol_for: Callable) -> Optional[SearchOutcome]:
    """The confirmed op and epsilon, or None where the layer's output is not non-finite where torch's is finite,
    its inputs are not finite, or no epsilon at the first op that makes it agrees."""
    started = time.monotonic()
    t, m = first_array(torch_out), first_array(ms_out)
    floats = [x for x in inputs if isinstance(x, np.ndarray) and x.dtype.kind == "f"]
    if t is None or m is None or t.shape != m.shape or not floats or not all(np.isfinite(x).all() for x in floats):
        return None
    with np.errstate(invalid="ignore"):
        made = np.isfinite(t.astype(np.float64)) & ~np.isfinite(m.astype(np.float64))
    if not made.any():
        return None
    try:
        records, _ = cell.trace_ops(ms_name, list(inputs))
    except Exception:  # the layer's construct cannot be traced: nothing measured
        return None
    op = next((r for r in records if r.index >= 0 and _makes(r)), None)
    if op is None:
        return None
    tried: List[str] = []
    for k, x in enumerate(op.inputs):
        if x.dtype.kind != "f" or k >= len(op.positional):
            continue
        for eps in EPSILONS:
            tried.append(f"op {op.index} '{op.name}': {eps:g} added to its input {k}")
            try:
                _, got = cell.trace_ops(ms_name, list(inputs), OpChange(op.index, offset_input=((k, eps),)))
            except Exception:  # a change the op refuses
                continue
            if agree_all(torch_out, got, tol_for):
                return SearchOutcome(_cause(op, k, eps, ms_kind, torch_name, ms_name, floats),
                                     _fix(op, k, eps, ms_kind), True, tuple(tried),
                                     round(time.monotonic() - started, 3), RULE)
    return None


def _makes(r: OpRecord) -> bool:
    """Finite float inputs, a non-finite float output."""
    if r.raised or not r.inputs or not r.outputs or r.outputs[0].dtype.kind != "f":
        return False
    if not all(np.isfinite(x).all() for x in r.inputs if x.dtype.kind == "f"):
        return False
    return not np.isfinite(r.outputs[0].astype(np.float64)).all()


def _zero_rows(floats: Sequence[np.ndarray]) -> str:
    """'its input 0 has 1 all-zero row' where an input holds rows (last axis) of zeros only."""
    said = []
    for i, x in enumerate(floats):
        if x.ndim >= 2:
            rows = int(np.sum(np.all(x == 0, axis=-1)))
            if rows:
                said.append(f"its input {i} has {rows} all-zero row{'s' if rows > 1 else ''}")
    return "; ".join(said)


def _cause(op: OpRecord, k: int, eps: float, ms_kind: str, torch_name: str, ms_name: str,
           floats: Sequence[np.ndarray]) -> str:
    out = op.outputs[0].astype(np.float64)
    bad = ~np.isfinite(out)
    kinds = "/".join(sorted({"NaN" if np.isnan(v) else "inf" for v in out[bad].tolist()}))
    values = []
    for x in op.inputs:
        try:
            values.append(np.broadcast_to(x, out.shape)[bad])
        except ValueError:  # not elementwise: the input values are not placed
            values = []
            break
    at = ""
    if values and all(np.all(v == v[0]) for v in values):
        at = " where its inputs are " + " and ".join(f"{float(v[0]):g}" for v in values)
    zero = _zero_rows(floats)
    return (f"MindSpore's {ms_kind} makes {kinds} where torch's '{torch_name}' is finite, from finite inputs"
            f"{' (' + zero + ')' if zero else ''}: its op '{op.name}' turns finite values into {kinds} at"
            f" {int(bad.sum())} element{'s' if bad.sum() > 1 else ''}{at}; with {eps:g} added to that op's input {k},"
            f" re-run through '{ms_name or '<root>'}' on torch's recorded inputs, it agrees with torch")


def _fix(op: OpRecord, k: int, eps: float, ms_kind: str) -> str:
    param = op.names[k] if k < len(op.names) and op.names[k] else f"input {k}"
    return (f"MindSpore's {ms_kind} has no setting for it: compute it in the port with {param} + {eps:g} at its"
            f" '{op.name}' (an epsilon that keeps the all-zero case finite, as torch's is)")


def nan_kept(cell: MindSporeProbe, torch_name: str, ms_name: str, ms_kind: str, inputs: Sequence[Any],
             torch_out: Any, tol_for: Callable) -> Optional[SearchOutcome]:
    """A layer fed NaN that returns numbers where torch's returns NaN (ReLU maps NaN to 0): the port's layer re-run
    alone on torch's inputs, its result set to NaN wherever its input is NaN, agrees with torch."""
    started = time.monotonic()
    x = next((a for a in inputs if isinstance(a, np.ndarray) and a.dtype.kind == "f"), None)
    t = first_array(torch_out)
    if x is None or t is None or x.shape != t.shape or not np.isnan(x).any():
        return None
    try:
        got = first_array(cell.run_subcell(ms_name, list(inputs)))
    except Exception:  # the layer cannot run alone: nothing measured
        return None
    if got is None or got.shape != t.shape or not np.isfinite(got[np.isnan(x)]).any():
        return None
    kept = np.where(np.isnan(x), np.asarray(np.nan, got.dtype), got)
    if not agree_all(t, kept, tol_for):
        return None
    shown = sorted({f"{float(v):g}" for v in got[np.isnan(x)].tolist()})[:3]
    return SearchOutcome(
        f"MindSpore's {ms_kind} returns numbers ({', '.join(shown)}) where its input is NaN, where torch's"
        f" '{torch_name}' keeps NaN: {int(np.isnan(x).sum())} NaN input elements; the port's {ms_kind} re-run alone"
        f" on torch's recorded inputs, with NaN kept wherever its input is NaN, agrees with torch",
        f"keep NaN as torch does: y = ops.where(ops.isnan(x), x, self.{ms_name.rsplit('.', 1)[-1] or 'layer'}(x))"
        f" (MindSpore's {ms_kind} has no setting for it)", True, ("NaN kept where the input is NaN",),
        round(time.monotonic() - started, 3), "nan-kept")
