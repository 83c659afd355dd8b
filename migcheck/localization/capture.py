"""After a failing verdict: re-run the pair with sub-cell capture, find the first divergence, explain it.

Cost: one extra forward per side (hooks on every sub-cell), plus the isolated pass, which calls each
paired *leaf* sub-cell once on torch's recorded inputs (about one more MindSpore forward).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison
from migcheck.localization.rules import Finding, diagnose, diagnose_precision, diagnose_update_pattern
from migcheck.localization.locate import (Localization, SubcellRow, compare_calls, first_divergence, key_calls, module_pairs,
                               summarize)
from migcheck.running.mapping import WeightMapping
from migcheck.precision import apply_precision, as_precision
from migcheck.tolerance import Tolerance

LOCALIZABLE = ("value", "shape", "nonfinite")
ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]


def locate(case: Any, check: str, ref: Any, cell: Any, mapping: WeightMapping,
           tensors: Sequence[TensorComparison], tolerance_for: ToleranceFor) -> Localization:
    from migcheck.runners.torch_side import TorchModule

    module = TorchModule(case.torch)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    n_net = len(ref.input_names) - len(case.targets)
    train = check in ("train", "step")
    t_calls = module.capture(ref.inputs[:n_net], ref.input_dtypes, train=train)
    m_calls = cell.capture(ref.inputs[:n_net], ref.input_dtypes, train=train)
    pairs = module_pairs([(r.torch_name, r.ms_name) for r in mapping.pairs],
                         [c.name for c in t_calls], [c.name for c in m_calls])
    isolated = _isolated_pass(cell, t_calls, pairs)
    rows = compare_calls(t_calls, m_calls, pairs, tolerance_for, isolated)
    first = first_divergence(rows)
    findings: List[Finding] = []
    if first is not None:
        findings += _diagnose_pair(module, cell, first.torch_name, first.ms_name)
    failing = [t.name for t in tensors if not t.ok]
    for torch_owner, ms_owner in _owners_of(failing, mapping):
        findings += _diagnose_pair(module, cell, torch_owner, ms_owner)
    findings += diagnose_update_pattern(check, failing, {p.name: p.owner_kind for p in ref.params})
    precision = as_precision(case.precision)
    if precision is not None:  # the first diverging layer's class and peak input feed the float16 rule
        layer = cell.config(first.ms_name)[0] if first is not None else ""
        peak = _peak(t_calls[first.order].inputs) if first is not None else 0.0
        findings += diagnose_precision(precision.dtype, cell.mode, [t.kind for t in tensors if not t.ok], layer, peak)
    findings = _unique(findings)
    summary = summarize(first, findings, rows)
    backward = _first_in_backward_order(failing, t_calls) if check in ("backward", "step") else None
    if backward:
        summary = f"{backward}; {summary}"
    return Localization(rows, first.torch_name if first else None, first.ms_name if first else None,
                        tuple(findings), summary)


def _isolated_pass(cell: Any, t_calls: Sequence[Any], pairs: Dict[str, str]) -> Dict[Tuple[str, int], Any]:
    names = [c.name for c in t_calls]
    leaves = {n for n in names if not any(other.startswith(n + ".") for other in names if n)}
    out = {}
    for (name, occurrence), call in key_calls(t_calls).items():
        ms_name = pairs.get(name)
        if name in leaves and ms_name is not None and call.inputs:
            try:
                out[(name, occurrence)] = cell.run_subcell(ms_name, call.inputs)
            except Exception:  # a sub-cell that needs more than its tensor arguments cannot run alone
                continue
    return out


def _diagnose_pair(module: Any, cell: Any, torch_name: str, ms_name: str) -> List[Finding]:
    try:
        t_kind, t_cfg = module.config(torch_name)
        m_kind, m_cfg = cell.config(ms_name)
    except (AttributeError, KeyError):
        return []
    return diagnose(torch_name, t_kind, t_cfg, ms_name, m_kind, m_cfg)


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
    seen, out = set(), []
    for f in findings:
        if (f.rule, f.where) not in seen:
            seen.add((f.rule, f.where))
            out.append(f)
    return out


def _peak(inputs: Sequence[Any]) -> float:
    """The largest finite |value| among a call's float inputs (0 when there are none)."""
    peaks = [float(np.max(np.abs(x[np.isfinite(x)]), initial=0.0)) for x in inputs
             if isinstance(x, np.ndarray) and x.dtype.kind == "f" and x.size]
    return max(peaks, default=0.0)
