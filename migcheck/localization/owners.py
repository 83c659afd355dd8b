"""Failing state, gradient and update tensors traced to the layers that own them, and those layers' settings
diffed (and confirmed through the failing state or gradients where a re-run can show it)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.confirm import _fix_text
from migcheck.localization.correspondence import differences
from migcheck.localization.rules import Finding
from migcheck.mapping.transfer import WeightMapping, to_torch
from migcheck.runners.probes import MindSporeProbe, TorchProbe


def hidden_confirmer(case: Any, check: str, ref: Any, module: TorchProbe, cell: MindSporeProbe, mapping: WeightMapping,
                      t_calls: Sequence[Any], ms_state: Mapping[str, Any], tol: Callable[[str], Tuple[float, float]]
                      ) -> Callable[[str, Any], bool]:
    """(torch layer, difference) -> whether re-running torch with MindSpore's value reproduces the failing state
    (train check) or gradients (backward check); see hidden.py."""
    from migcheck.localization.hidden import confirm_gradient, confirm_state

    grads: Dict[str, Any] = {}

    def confirm(torch_name: str, diff: Any) -> bool:
        call = next((c for c in t_calls if c.name == torch_name), None)
        if check == "train" and call is not None and call.inputs:
            return confirm_state(module, torch_name, diff, call.inputs, ref.weights, ms_state, tol)
        if check == "backward":
            args = (ref.inputs, ref.input_dtypes, ref.objective)
            if not grads:
                ms_loss = case.loss.mindspore if case.loss else None
                grads.update(to_torch(cell.gradients(*args, ms_loss).params, mapping))
            return confirm_gradient(module, torch_name, diff, grads, args + (case.loss.torch if case.loss else None,), tol)
        return False

    return confirm


def state_fix_checker(check: str, ref: Any, module: TorchProbe, cell: MindSporeProbe, mapping: WeightMapping,
                      t_calls: Sequence[Any], tol: Callable[[str], Tuple[float, float]]
                      ) -> Optional[Callable[[str, str, Any], bool]]:
    """(torch layer, MindSpore layer, difference) -> whether the port's layer rebuilt with the fix gives torch's
    state after a train-mode forward (train check only; None otherwise). The cell is put back to the initial
    weights once, before the first re-run: a train check's cell has updated its statistics."""
    from migcheck.localization.hidden import state_fix_agrees
    from migcheck.mapping.transfer import to_mindspore

    if check != "train":
        return None
    loaded: List[bool] = []

    def check_fix(torch_name: str, ms_name: str, diff: Any) -> bool:
        call = next((c for c in t_calls if c.name == torch_name), None)
        if call is None or not call.inputs:
            return False
        if not loaded:
            cell.load(to_mindspore(ref.weights, mapping))
            loaded.append(True)
        t_prefix, m_prefix = (f"{torch_name}." if torch_name else ""), (f"{ms_name}." if ms_name else "")
        leaves = {r.ms_name[len(m_prefix):]: r.torch_name[len(t_prefix):] for r in mapping.pairs
                  if r.ms_name.startswith(m_prefix) and r.torch_name.startswith(t_prefix)}
        return state_fix_agrees(module, cell, torch_name, ms_name, diff, call.inputs, ref.weights, leaves, tol)

    return check_fix


def diagnose_pair(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, t_calls: Sequence[Any] = (),
                   confirm: Optional[Callable[[str, Any], bool]] = None,
                   check_fix: Optional[Callable[[str, str, Any], bool]] = None) -> List[Finding]:
    """Settings of a layer whose parameters or state differ: the correspondence table (padding judged by
    the pads each side applies to the recorded input; a pair with no row of its own but of one family, such
    as BatchNorm2d ported as BatchNorm1d, through torch's class's row); high only when `confirm` shows that
    torch's layer with MindSpore's value reproduces the failing state or gradients."""
    try:
        t_kind, t_cfg = module.config(torch_name)
        m_kind, m_cfg = cell.config(ms_name)
    except (AttributeError, KeyError):
        return []
    call = next((c for c in t_calls if c.name == torch_name), None)
    shape = np.shape(call.inputs[0]) if call is not None and call.inputs else ()
    where = f"torch '{torch_name or '<root>'}' ({t_kind}) / MindSpore '{ms_name or '<root>'}' ({m_kind})"
    found = []
    for d in differences(t_kind, t_cfg, m_kind, m_cfg, shape, by_family=True):
        if confirm is not None and confirm(torch_name, d):
            evidence = "re-running torch's layer with MindSpore's setting reproduces MindSpore's failing state or gradients"
            if check_fix is not None and check_fix(torch_name, ms_name, d):
                found.append(Finding(d.rule, where, d.cause, _fix_text(d), "high", True, True, evidence=evidence
                                     + "; the port's layer rebuilt with the fix gives torch's state (re-run)"))
                continue
            found.append(Finding(d.rule, where, d.cause, f"none shown (not re-run; torch's setting in MindSpore's terms is"
                                 f" {_fix_text(d)})", "high", True, False, evidence=evidence))
        else:
            found.append(Finding(d.rule, where, d.cause, _fix_text(d), "medium"))
    return found


def _param_of(tensor_name: str) -> Optional[str]:
    for marker in ("grad.param.", ".param.", ".state.", "state."):
        if marker in tensor_name:
            return tensor_name.split(marker, 1)[1]
    return None


def owners_of(failing: Sequence[str], mapping: WeightMapping) -> List[Tuple[str, str]]:
    to_ms = {r.torch_name: r.ms_name for r in mapping.pairs}
    owners = []
    for name in failing:
        param = _param_of(name)
        if param in to_ms:
            pair = (param.rpartition(".")[0], to_ms[param].rpartition(".")[0])
            if pair not in owners:
                owners.append(pair)
    return owners


def first_in_backward_order(failing: Sequence[str], t_calls: Sequence[Any]) -> Optional[str]:
    """Gradients flow from the last layer run to the first: the diverging parameter nearest the output."""
    order = {c.name: i for i, c in enumerate(t_calls)}
    params = [p for p in (_param_of(n) for n in failing if "param." in n) if p]
    if not params:
        return None
    latest = max(params, key=lambda p: order.get(p.rpartition(".")[0], -1))
    return f"first gradient divergence in backward order: parameter '{latest}'"
