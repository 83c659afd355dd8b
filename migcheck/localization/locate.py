"""Where a port first diverges: sub-cell by sub-cell, from captured calls of both sides. Numpy only.

A call is one sub-cell's inputs and output, recorded by forward hooks in completion order
(children before parents). Sub-cells are paired through the weight mapping's module pairs, not by
execution order; the first divergence is the earliest paired sub-cell whose inputs agree and
whose outputs do not. The isolated pass feeds each MindSpore sub-cell torch's recorded inputs, so
a sub-cell wrong on its own is told apart from one that only inherits drift.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison, compare_trees, fmt_shape
from migcheck.records.findings import Call, Defect, Finding, Localization, SubcellRow  # noqa: F401  (re-exported)
from migcheck.runners.hooks import hook_recorder  # noqa: F401  (re-exported: the runners register it)
from migcheck.tolerance import Tolerance
from migcheck.vocab import Kind


ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]


def key_calls(calls: Sequence[Call]) -> Dict[Tuple[str, int], Call]:
    """Calls keyed by (name, n-th call of that name), so a sub-cell used twice pairs call by call."""
    seen: Counter = Counter()
    out = {}
    for call in calls:
        out[(call.name, seen[call.name])] = call
        seen[call.name] += 1
    return out


def _without_none(tree: Any) -> Any:
    """Hooks record non-tensor leaves as None (e.g. attention weights not asked for): no values to compare."""
    if isinstance(tree, (list, tuple)):
        return [_without_none(v) for v in tree if v is not None]
    return tree


def _widened(inputs: Sequence[Any]) -> List[Any]:
    """Inputs compared by value: under mixed precision one side's hook sees a layer's input before its
    cast to the layer's dtype (MindSpore's to_float) and the other after it (migcheck's torch policy)."""
    return [np.asarray(x, np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float16 else x for x in inputs]


def _worst(tensors: Sequence[TensorComparison]) -> Tuple[bool, float, str]:
    failing = [t for t in tensors if not t.ok and t.kind != "empty"]  # an empty layer output does not diverge
    shape = next((t for t in failing if t.kind == Kind.SHAPE), None)
    if shape is not None:  # nothing was measured: no error number, the shapes say it (never "max abs err 0")
        return (False, math.nan, f"shape torch {fmt_shape(shape.torch_shape)} vs mindspore {fmt_shape(shape.ms_shape)}")
    err = max((t.max_abs_err for t in tensors), default=0.0)
    return (not failing, err, failing[0].message if failing else "")


def row_error(row: SubcellRow) -> str:
    """The sub-cell table's error cell: the max abs err, or the shapes when the outputs differ in shape."""
    if row.outputs_ok is False and math.isnan(row.max_abs_err) and row.message:
        return row.message
    return f"{row.max_abs_err:.3g}"


def compare_calls(torch_calls: Sequence[Call], ms_calls: Sequence[Call], pairs: Mapping[str, str],
                  tolerance_for: ToleranceFor, isolated: Optional[Mapping[Tuple[str, int], Any]] = None
                  ) -> Tuple[SubcellRow, ...]:
    ms_keyed = key_calls(ms_calls)
    seen: Counter = Counter()
    rows = []
    for order, call in enumerate(torch_calls):
        occurrence = seen[call.name]
        seen[call.name] += 1
        ms_name = pairs.get(call.name)
        ms_call = ms_keyed.get((ms_name, occurrence)) if ms_name is not None else None
        if ms_call is None:
            rows.append(SubcellRow(order, call.name, call.kind, "", "", None, None, None, 0.0, None,
                                   "unpaired: no MindSpore sub-cell maps to it" if ms_name is None
                                   else f"MindSpore '{ms_name}' did not run"))
            continue
        if len(call.inputs) == len(ms_call.inputs):
            in_ok, _, _ = _worst(compare_trees(_widened(call.inputs), _widened(ms_call.inputs), tolerance_for,
                                               prefix="in", sample=False))
        else:
            in_ok = False
        out_ok, err, message = _worst(compare_trees(_without_none(call.output), _without_none(ms_call.output),
                                                    tolerance_for, sample=False))
        iso_ok = iso_err = None
        if isolated is not None and (call.name, occurrence) in isolated:
            iso_ok, iso_err, _ = _worst(compare_trees(_without_none(call.output),
                                                      _without_none(isolated[(call.name, occurrence)]), tolerance_for,
                                                      sample=False))
        rows.append(SubcellRow(order, call.name, call.kind, ms_call.name, ms_call.kind, in_ok, out_ok, iso_ok,
                               err, iso_err, message))
    return tuple(rows)


def _trimmed(torch_out: Any, ms_out: Any) -> Any:
    """A re-run outside forward gets default keyword arguments (MultiheadAttention's need_weights=True): keep
    only the leaves the forward's own call returned."""
    if isinstance(torch_out, (list, tuple)) and isinstance(ms_out, (list, tuple)) and len(ms_out) == len(torch_out):
        return [m for t, m in zip(torch_out, ms_out) if t is not None]
    return _without_none(ms_out)


def _nan_equal(tolerance_for: ToleranceFor) -> ToleranceFor:
    def tol(name: str, dtype: str) -> Tuple[Tolerance, str]:
        t, source = tolerance_for(name, dtype)
        return Tolerance(t.rtol, t.atol, True), source
    return tol


def rows_from_flow(torch_calls: Sequence[Call], ms_calls: Sequence[Call], flow: Any, tolerance_for: ToleranceFor,
                   isolated: Optional[Mapping[int, Any]] = None) -> Tuple[SubcellRow, ...]:
    """One row per torch call, paired through the dataflow (a fused torch module pairs with a chain: 'a + b').
    NaN where torch's is NaN agrees: a layer fed a NaN row computes what torch's does when it returns NaN there."""
    isolated = isolated or {}
    tolerance_for = _nan_equal(tolerance_for)
    rows = []
    for order, call in enumerate(torch_calls):
        pair = flow.pair_of(order)
        if pair is None:
            rows.append(SubcellRow(order, call.name, call.kind, "", "", flow.inputs_matched[order],
                                   flow.output_matched[order], None, 0.0, None,
                                   "unpaired: no MindSpore sub-cell computes the same tensor or maps to it"))
            continue
        ms = [ms_calls[j] for j in pair.ms_indices]
        last = ms[-1]
        if len(ms) == 1 and len(call.inputs) == len(last.inputs):
            in_ok, _, _ = _worst(compare_trees(_widened(call.inputs), _widened(last.inputs), tolerance_for, prefix="in",
                                               sample=False))
        else:
            in_ok = flow.inputs_matched[order]
        out_ok, err, message = _worst(compare_trees(_without_none(call.output), _without_none(last.output), tolerance_for,
                                                    sample=False))  # rows keep flags and errors, never plots
        iso_ok = iso_err = None
        if order in isolated:
            iso_ok, iso_err, _ = _worst(compare_trees(_without_none(call.output), _trimmed(call.output, isolated[order]),
                                                      tolerance_for, sample=False))
        rows.append(SubcellRow(order, call.name, call.kind, " + ".join(m.name for m in ms),
                               " + ".join(m.kind for m in ms), in_ok, out_ok, iso_ok, err, iso_err,
                               message if pair.how in ("weights", "name") else f"{message} (paired by {pair.how})".strip()))
    return tuple(rows)


def first_divergence(rows: Sequence[SubcellRow]) -> Optional[SubcellRow]:
    """The earliest paired sub-cell whose inputs agree and whose outputs do not."""
    return next((r for r in rows if r.inputs_ok and r.outputs_ok is False), None)


def module_pairs(links_rows: Sequence[Tuple[str, str]], torch_names: Sequence[str], ms_names: Sequence[str]) -> Dict[str, str]:
    """torch module path -> MindSpore cell path: owners of mapped parameters, plus names both sides share."""
    pairs: Dict[str, str] = {}
    ms_set = set(ms_names)
    for torch_param, ms_param in links_rows:
        owner, ms_owner = torch_param.rpartition(".")[0], ms_param.rpartition(".")[0]
        if owner and owner in ms_set and ms_owner.rpartition(".")[0] == owner:  # MindSpore's BatchNorm3d keeps its
            ms_owner = owner  # parameters in a child BatchNorm2d: the same-named cell is the layer's counterpart
        pairs.setdefault(owner, ms_owner)
    for name in torch_names:
        if name not in pairs and name in ms_set:
            pairs[name] = name
    return pairs


def summarize(row: Optional[SubcellRow], findings: Sequence[Finding], rows: Sequence[SubcellRow]) -> str:
    if row is None:
        text = (f"no sub-cell's output diverges among {sum(r.ms_name != '' for r in rows)} paired"
                " (the difference is in state, gradients or updates)")
    else:
        local = ("wrong on its own (isolated re-run with torch's inputs fails too)" if row.isolated_ok is False
                 else "inherits drift only (isolated re-run passes)" if row.isolated_ok else "")
        how = (f"max abs err {row.max_abs_err:.3g}" if row.max_abs_err > 0 or not row.message
               else f"output {row.message}" if math.isnan(row.max_abs_err) else row.message)
        text = (f"first divergence: torch '{row.torch_name or '<root>'}' ({row.torch_kind}) /"
                f" MindSpore '{row.ms_name or '<root>'}' ({row.ms_kind}): inputs agree, outputs differ"
                f" ({how})" + (f"; {local}" if local else ""))
    if findings:
        text += "; likely cause: " + "; ".join(f"{f.cause} -> fix: {f.fix} [{f.confidence}]" for f in findings)
    else:
        text += "; no known-difference rule matched the diverging layers' settings"
    return text
