"""After a failing verdict: re-run the pair with sub-cell capture, find the first divergence, explain it.

Cost: one extra forward per side (hooks on every sub-cell), plus the isolated pass, which calls each
paired *leaf* sub-cell once on torch's recorded inputs (about one more MindSpore forward).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison
from migcheck.localization.confirm import _fix_text, explain
from migcheck.localization.correspondence import differences
from migcheck.localization.dataflow import Dataflow, descendants, pair_calls
from migcheck.localization.locate import Defect, Localization, SubcellRow, module_pairs, rows_from_flow, summarize
from migcheck.localization.rules import Finding, diagnose, diagnose_precision, diagnose_update_pattern
from migcheck.running.mapping import WeightMapping
from migcheck.precision import apply_precision, as_precision
from migcheck.tolerance import Tolerance

LOCALIZABLE = ("value", "shape", "nonfinite")
ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]


def locate(case: Any, check: str, ref: Any, cell: Any, mapping: WeightMapping,
           tensors: Sequence[TensorComparison], tolerance_for: ToleranceFor) -> Localization:
    from migcheck.runners.torch_side import TorchModule

    module = TorchModule(case.torch, input_names=case.network_inputs)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    n_net = len(ref.input_names) - len(case.targets)
    train = check in ("train", "step")
    t_calls = module.capture(ref.inputs[:n_net], ref.input_dtypes, train=train)
    m_calls = cell.capture(ref.inputs[:n_net], ref.input_dtypes, train=train)
    hints = module_pairs([(r.torch_name, r.ms_name) for r in mapping.pairs],
                         [c.name for c in t_calls], [c.name for c in m_calls])
    tol = _tol(tolerance_for)
    flow = pair_calls(t_calls, m_calls, hints, tol, ref.inputs[:n_net])
    isolated = _isolated_pass(cell, t_calls, m_calls, flow)
    rows = rows_from_flow(t_calls, m_calls, flow, tolerance_for, isolated)
    first = next((r for r in rows if flow.first is not None and r.order == flow.first), None)
    between = ""
    if flow.between is not None:
        a, b = flow.between
        between = (f"inside torch '{first.torch_name or '<root>'}': between '{a}' output and '{b}' input"
                   " (a functional op in forward/construct; every sub-cell before agrees)")
    defects = _defects(module, cell, rows, t_calls, m_calls, isolated, tol, between)
    findings: List[Finding] = _findings_of(defects)
    failing = [t.name for t in tensors if not t.ok]
    for torch_owner, ms_owner in _owners_of(failing, mapping):
        findings += _diagnose_pair(module, cell, torch_owner, ms_owner, t_calls)
    findings += diagnose_update_pattern(check, failing, {p.name: p.owner_kind for p in ref.params})
    precision = as_precision(case.precision)
    if precision is not None:  # the first diverging layer's class and peak input feed the float16 rule
        layer = cell.config(first.ms_name)[0] if first is not None and first.ms_name and "+" not in first.ms_name else ""
        peak = _peak(t_calls[first.order].inputs) if first is not None else 0.0
        findings += diagnose_precision(precision.dtype, cell.mode, [t.kind for t in tensors if not t.ok], layer, peak)
    findings = _unique(findings)
    summary = summarize(first, findings, rows)
    if between:
        summary = f"{summary.split(';')[0]}; {between}" + summary[len(summary.split(';')[0]):]
    if len(defects) > 1:
        summary += f"; {len(defects)} independent defects: " + ", ".join(
            f"'{d.torch_name or '<root>'}'" for d in defects)
    backward = _first_in_backward_order(failing, t_calls) if check in ("backward", "step") else None
    if backward:
        summary = f"{backward}; {summary}"
    return Localization(rows, first.torch_name if first else None, first.ms_name if first else None,
                        tuple(findings), summary, tuple(defects), between)


def _tol(tolerance_for: ToleranceFor) -> Callable[[str], Tuple[float, float]]:
    cache: Dict[str, Tuple[float, float]] = {}

    def tol(dtype: str) -> Tuple[float, float]:
        if dtype not in cache:
            t, _ = tolerance_for("activation", dtype)
            cache[dtype] = (t.rtol, t.atol)
        return cache[dtype]

    return tol


def _isolated_pass(cell: Any, t_calls: Sequence[Any], m_calls: Sequence[Any], flow: Dataflow) -> Dict[int, Any]:
    """Each paired torch leaf's MindSpore counterpart (a cell or a fused chain) fed torch's recorded inputs."""
    names = [c.name for c in t_calls]
    out = {}
    for pair in flow.pairs:
        call = t_calls[pair.torch_index]
        if descendants(names, call.name) or not call.inputs:
            continue
        try:
            value: Any = cell.run_subcell(m_calls[pair.ms_indices[0]].name, call.inputs)
            for j in pair.ms_indices[1:]:
                value = cell.run_subcell(m_calls[j].name, [value])
        except Exception:  # a sub-cell that needs more than its tensor arguments cannot run alone
            continue
        out[pair.torch_index] = value
    return out


def _between_signature(rows: Sequence[SubcellRow], t_calls: Sequence[Any], m_calls: Sequence[Any],
                       between: str) -> Tuple[str, str]:
    """The functional op's effect, read off the input of the first sub-cell fed a wrong value."""
    target = between.split("and '", 1)[1].split("' input", 1)[0] if "and '" in between else ""
    row = next((r for r in rows if r.torch_name == target and r.ms_name and "+" not in r.ms_name), None)
    ms_call = next((c for c in m_calls if row is not None and c.name == row.ms_name), None)
    if row is None or ms_call is None or not t_calls[row.order].inputs or not ms_call.inputs:
        return "", ""
    cause, rule = _signature_cause(t_calls[row.order].inputs[0], ms_call.inputs[0])
    return (f"the value reaching '{target}': {cause}" if cause else ""), rule


def _defects(module: Any, cell: Any, rows: Sequence[SubcellRow], t_calls: Sequence[Any], m_calls: Sequence[Any],
             isolated: Mapping[int, Any],
             tol: Callable[[str], Tuple[float, float]], between: str) -> List[Defect]:
    """Every layer wrong on its own, ranked by position; inherited drift is not a defect."""
    out = []
    for row in rows:
        if row.isolated_ok is not False:
            continue
        call = t_calls[row.order]
        evidence = (f"fed torch's recorded inputs, MindSpore '{row.ms_name}' still differs"
                    f" (max abs err {row.isolated_max_abs_err:.3g})")
        cause = fix = rule = ""
        confirmed = False
        if "+" not in row.ms_name:
            explained = explain(module, cell, row.torch_name, row.ms_name, call.inputs, call.output,
                                isolated[row.order], tol)
            if explained:
                diff, confirmed, fix = explained[0]
                cause, rule = diff.cause, diff.rule
                evidence += ("; re-running torch's layer with MindSpore's setting reproduces MindSpore's output"
                             if confirmed else "; re-running torch's layer with MindSpore's setting does not reproduce it")
            if not cause:
                cause, rule = _signature_cause(call.output, isolated[row.order])
        confidence = "high" if confirmed else ("medium" if cause else "low")
        out.append(Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, evidence, cause, fix,
                          confidence, confirmed, rule))
    if between and not out:
        first = next(r for r in rows if between.startswith(f"inside torch '{r.torch_name or '<root>'}'"))
        cause, rule = _between_signature(rows, t_calls, m_calls, between)
        out.append(Defect(first.order, first.torch_name, first.torch_kind, first.ms_name, first.ms_kind, between,
                          cause, "", "medium" if cause else "low", False, rule or "functional-op"))
    return out


def _signature_cause(torch_out: Any, ms_out: Any) -> Tuple[str, str]:
    from migcheck.localization.signatures import describe

    found = describe(torch_out, ms_out)
    return (found.cause, found.rule) if found else ("", "")


def _findings_of(defects: Sequence[Defect]) -> List[Finding]:
    """One finding per distinct cause and fix, listing every layer it applies to."""
    groups: Dict[Tuple[str, str, str], List[Defect]] = {}
    for d in defects:
        if d.cause:
            groups.setdefault((d.rule, d.cause, d.fix), []).append(d)
    out = []
    for (rule, cause, fix), ds in groups.items():
        layers = tuple(f"torch '{d.torch_name or '<root>'}' / MindSpore '{d.ms_name or '<root>'}'" for d in ds)
        where = layers[0] if len(layers) == 1 else f"{len(layers)} layers: " + ", ".join(layers)
        where = f"{where} ({ds[0].torch_kind} / {ds[0].ms_kind})"
        confirmed = all(d.confirmed for d in ds)
        out.append(Finding(rule, where, cause, fix or "none shown (no candidate fix re-ran to agreement)",
                           "high" if confirmed else "medium" if ds[0].confidence != "low" else "low",
                           confirmed, bool(fix), layers, ds[0].evidence))
    return out


def _diagnose_pair(module: Any, cell: Any, torch_name: str, ms_name: str, t_calls: Sequence[Any] = ()) -> List[Finding]:
    """Settings of a layer whose parameters or state differ: the correspondence table (padding judged by
    the pads each side applies to the recorded input), else the older rules; unconfirmed, so never high."""
    try:
        t_kind, t_cfg = module.config(torch_name)
        m_kind, m_cfg = cell.config(ms_name)
    except (AttributeError, KeyError):
        return []
    call = next((c for c in t_calls if c.name == torch_name), None)
    shape = np.shape(call.inputs[0]) if call is not None and call.inputs else ()
    where = f"torch '{torch_name or '<root>'}' ({t_kind}) / MindSpore '{ms_name or '<root>'}' ({m_kind})"
    found = [Finding(d.rule, where, d.cause, _fix_text(d), "medium") for d in differences(t_kind, t_cfg, m_kind, m_cfg, shape)]
    rules = {f.rule for f in found}
    # pad-mode needs the input size to judge; without a recorded input it cannot be told apart from equal padding
    found += [dataclasses.replace(f, confidence="medium") for f in diagnose(torch_name, t_kind, t_cfg, ms_name, m_kind, m_cfg)
              if f.rule not in rules and f.rule != "pad-mode"]
    return found


def _param_of(tensor_name: str) -> Optional[str]:
    for marker in ("grad.param.", ".param.", ".state.", "state."):
        if marker in tensor_name:
            return tensor_name.split(marker, 1)[1]
    return None


def _owners_of(failing: Sequence[str], mapping: WeightMapping) -> List[Tuple[str, str]]:
    to_ms = {r.torch_name: r.ms_name for r in mapping.pairs}
    owners = []
    for name in failing:
        param = _param_of(name)
        if param in to_ms:
            pair = (param.rpartition(".")[0], to_ms[param].rpartition(".")[0])
            if pair not in owners:
                owners.append(pair)
    return owners


def _first_in_backward_order(failing: Sequence[str], t_calls: Sequence[Any]) -> Optional[str]:
    """Gradients flow from the last layer run to the first: the diverging parameter nearest the output."""
    order = {c.name: i for i, c in enumerate(t_calls)}
    params = [p for p in (_param_of(n) for n in failing if "param." in n) if p]
    if not params:
        return None
    latest = max(params, key=lambda p: order.get(p.rpartition(".")[0], -1))
    return f"first gradient divergence in backward order: parameter '{latest}'"


def _unique(findings: Sequence[Finding]) -> List[Finding]:
    """One finding per (rule, cause, fix): the same difference on many layers is listed once, with its layers."""
    merged: Dict[Tuple[str, str, str], Finding] = {}
    for f in findings:
        key = (f.rule, f.cause, f.fix)
        if key not in merged:
            merged[key] = f if f.layers else dataclasses.replace(f, layers=(f.where,))
            continue
        have = merged[key]
        extra = tuple(x for x in (f.layers or (f.where,)) if x not in have.layers)
        if extra:
            layers = have.layers + extra
            merged[key] = dataclasses.replace(have, layers=layers, where=f"{len(layers)} layers: " + ", ".join(layers),
                                              confirmed=have.confirmed and f.confirmed)
    return list(merged.values())


def _peak(inputs: Sequence[Any]) -> float:
    """The largest finite |value| among a call's float inputs (0 when there are none)."""
    peaks = [float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0)) for x in inputs
             if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.size]
    return max(peaks, default=0.0)
