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


def diagnose_pair(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, t_calls: Sequence[Any] = (),
                   confirm: Optional[Callable[[str, Any], bool]] = None) -> List[Finding]:
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
            found.append(Finding(d.rule, where, d.cause, f"none shown (not re-run; torch's setting in MindSpore's terms is"
                                 f" {_fix_text(d)})", "high", True, False,
                                 evidence="re-running torch's layer with MindSpore's setting reproduces MindSpore's"
                                          " failing state or gradients"))
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
