"""A torch activation module before a layer, ported as that layer's own `activation=` setting, which MindSpore
applies after the layer's projection (`nn.Dense(..., activation='relu')` computes relu(x @ W.T + b), where torch's
`nn.ReLU()` then `nn.Linear` computes (relu(x)) @ W.T + b). Measured where the dataflow shows it: torch's
activation module has no MindSpore cell, the next torch layer is fed its output while the port's counterpart is
fed its input (it folds the module in), and the port's layer holds an activation setting naming the module's own
kind. The port's layer, rebuilt with no activation and fed torch's activation output, must then agree with
torch's layer: the confirmed cause, and the fix (apply the activation to the input instead).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

from migcheck.localization.arg_candidates import similarity
from migcheck.localization.confirm import agree_all
from migcheck.records.findings import Defect, SubcellRow
from migcheck.runners.probes import MindSporeProbe

RULE = "activation-order"


def activation_after(cell: MindSporeProbe, row: SubcellRow, layer: SubcellRow, t_calls: Sequence[Any],
                     tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    """The Defect at torch's activation module `row` when the port's `layer` applies it after itself."""
    try:
        c = cell.constructor(layer.ms_name)
    except (AttributeError, KeyError):
        return None
    held = {a.name: a.value for a in c.arguments if a.found}
    setting = next((a.name for a in c.arguments if a.found and a.name.startswith("activation")
                    and isinstance(a.value, str) and a.value), None)
    if setting is None or similarity(str(held[setting]).replace("_", ""), row.torch_kind.lower()) < 0.75:
        return None
    t_next = t_calls[layer.order]
    try:  # the port's layer without its activation, fed what torch's layer is fed (the activation's output)
        got = cell.rerun_arguments(layer.ms_name, {**held, setting: None}, list(t_next.inputs))
    except Exception:  # a layer that cannot be rebuilt without it: nothing measured
        return None
    if not agree_all(t_next.output, got, tol):
        return None
    act = held[setting]
    cause = (f"the port's {layer.ms_kind} '{layer.ms_name}' applies {setting}={act!r} after its own computation,"
             f" where torch applies '{row.torch_name}' ({row.torch_kind}) before its {layer.torch_kind}"
             f" '{layer.torch_name}': the port's layer rebuilt with {setting}=None and fed torch's {row.torch_kind}"
             f" output agrees with torch's {layer.torch_kind}")
    fix = (f"build '{layer.ms_name}' with {setting}=None and apply the activation to its input:"
           f" self.{layer.ms_name.rsplit('.', 1)[-1]}(ops.{act}(x))")
    evidence = (f"torch's '{row.torch_name}' ({row.torch_kind}) has no MindSpore sub-cell; the port's"
                f" '{layer.ms_name}' is fed its input and holds {setting}={act!r}; rebuilt without it on torch's"
                f" '{layer.torch_name}' input, it agrees")
    # placed at torch's activation: the module the port moved (its layer is right once that is put back)
    return Defect(row.order, row.torch_name, row.torch_kind, layer.ms_name, layer.ms_kind, evidence, cause, fix,
                  "high", True, RULE, search_tried=(f"{setting}=None, fed torch's {row.torch_kind} output",))


def activation_moved(cell: MindSporeProbe, row: SubcellRow, rows: Sequence[SubcellRow], t_calls: Sequence[Any],
                     m_calls: Sequence[Any], tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    """For a layer wrong on its own: the torch module right before it that has no MindSpore cell, whose output
    torch's layer is fed while the port's layer is fed its input, moved into the port's layer as its activation."""
    from migcheck.localization.confirm import agree

    call = t_calls[row.order]
    m_call = next((c for c in m_calls if c.name == row.ms_name), None)
    if not call.inputs or m_call is None or not m_call.inputs:
        return None
    before = [r for r in rows if r.order < row.order and not r.ms_kind and t_calls[r.order].inputs]
    for r in reversed(before):
        t_prev = t_calls[r.order]
        if agree(t_prev.output, call.inputs[0], tol) and agree(t_prev.inputs[0], m_call.inputs[0], tol):
            return activation_after(cell, r, row, t_calls, tol)
    return None
