"""Stage blame for a failing step: forward, then backward, then the optimizer update, each compared
before the next is blamed.

A step differs when the loss differs (forward), when the gradients at the initial weights differ
(backward), or when both agree and the update does not (the optimizer). Only the last is decided
here; the first two go on to the sub-cell localization. For the optimizer, update_rules names the
rule each side's first update follows, recomputed from the recorded weights and gradients.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison, compare_arrays
from migcheck.localization.optimizer_fix import with_group_fix, with_port_fix
from migcheck.localization.rules import Finding
from migcheck.localization.update_rules import Hyper, blame_update
from migcheck.precision import apply_precision
from migcheck.case import optimizer_for
from migcheck.mapping.transfer import WeightMapping, to_mindspore, to_torch
from migcheck.runners.probes import MindSporeProbe, TorchProbe
from migcheck.vocab import param_grad_name, torch_name_of


@dataclass(frozen=True)
class StageBlame:
    stage: str  # "forward", "backward" or "optimizer"
    summary: str
    findings: Tuple[Finding, ...] = ()


def hyper_from_group(group: Mapping[str, Any]) -> Hyper:
    """torch's param_group entries -> Hyper (missing ones keep the defaults)."""
    betas = group.get("betas", (0.9, 0.999))
    return Hyper(lr=float(group.get("lr", 0.0)), weight_decay=float(group.get("weight_decay", 0.0) or 0.0),
                 momentum=float(group.get("momentum", 0.0) or 0.0), nesterov=bool(group.get("nesterov", False)),
                 beta1=float(betas[0]), beta2=float(betas[1]), eps=float(group.get("eps", 1e-8)),
                 alpha=float(group.get("alpha", 0.99)),
                 initial_accumulator=float(group.get("initial_accumulator_value", 0.0)))


def blame_step(case: Any, ref: Any, cell: MindSporeProbe, mapping: WeightMapping, ms_results: Mapping[str, Any],
               tensors: Sequence[TensorComparison], tolerance_for: Callable[[str, str], Any]) -> Optional[StageBlame]:
    """The stage a failing step check's defect lives in; None when the loss already differs (forward:
    the sub-cell localization explains it)."""
    from migcheck.runners.torch_side import TorchModule

    failing = [t.name for t in tensors if not t.ok]
    if "step1.loss" in failing:
        return None
    module = TorchModule(case.torch, input_names=case.network_inputs)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    loss_t = case.loss.torch if case.loss else None
    loss_m = case.loss.mindspore if case.loss else None
    torch_grads = module.gradients(ref.inputs, ref.input_dtypes, ref.objective, loss_t, train=True).params
    cell.load(to_mindspore(ref.weights, mapping))
    ms_grads = to_torch(cell.gradients(ref.inputs, ref.input_dtypes, ref.objective, loss_m, train=True).params, mapping)
    compared = {name: _compare(name, g, ms_grads.get(name), tolerance_for) for name, g in torch_grads.items()}
    wrong = [name for name, c in compared.items() if not c.ok]
    if wrong:
        worst = max(wrong, key=lambda n: compared[n].max_abs_err)
        return StageBlame("backward", f"the loss agrees, but the gradients at the initial weights already differ"
                                      f" (before any update) on {len(wrong)} parameter(s), worst '{worst}'"
                                      f" (max abs err {compared[worst].max_abs_err:.3g}): the defect is in the"
                                      " forward or backward pass, not the optimizer")
    agree = max((c.max_abs_err for c in compared.values()), default=0.0)
    first = sorted({torch_name_of(n) for n in failing if n.startswith("step1.param.")})
    evidence = (f"the loss and all {len(compared)} gradients agree at the initial weights (max abs err {agree:.3g}),"
                " so forward and backward are right")
    if getattr(case, "lr_schedule", None) is not None or case.steps > 1:
        from migcheck.localization.schedule_fix import schedule_fixer
        from migcheck.localization.schedules import schedule_finding

        scheduled = schedule_finding(case, ref, module, cell, ms_results, failing, tolerance_for, loss_t,
                                     schedule_fixer(case, ref, cell, mapping, tolerance_for, loss_m))
        if scheduled is not None:
            return StageBlame("optimizer", f"{evidence}; {scheduled.cause}", (scheduled,))
    if not first:
        later = sorted({n.split(".", 1)[0] for n in failing})
        confirmed = _later_steps_cause(case, ref, module, cell, mapping, ms_results, failing, tolerance_for, loss_t)
        torch_class, groups = module.optimizer_groups(optimizer_for(case, "torch"))
        confirmed = with_port_fix(confirmed or Finding("optimizer-state", "optimizer", f"{evidence}; the first update"
                                                       " agrees but later ones differ: the optimizer's state evolves"
                                                       " differently", "", "medium"),
                                  case, ref, module, cell, mapping, tolerance_for, (loss_t, loss_m), torch_class, groups)
        if confirmed.rule != "optimizer-state" or confirmed.fix_checked:
            return StageBlame("optimizer", f"{evidence}; the first update agrees and {', '.join(later)} differ(s):"
                                           f" {confirmed.cause}", (confirmed,))
        return StageBlame("optimizer", f"{evidence}; the first update agrees and {', '.join(later)} differ(s): the"
                                       " optimizer's state (momentum, moments or accumulators) evolves differently",
                          (confirmed,))
    torch_class, groups = module.optimizer_groups(optimizer_for(case, "torch"))
    ms_class, ms_groups = cell.optimizer_groups(optimizer_for(case, "mindspore"))
    step1 = {name: (ref.weights[name], torch_grads[name], ref.results[f"step1.param.{name}"],
                    ms_results[f"step1.param.{name}"]) for name in first if name in groups}
    ms_hypers = _ms_hypers(ms_groups, mapping)
    blame = blame_update(step1, {n: hyper_from_group(groups[n]) for n in step1}, torch_class, list(step1), ms_hypers)
    cause, identified = blame.describe()
    where = f"optimizer (torch {torch_class} / MindSpore {ms_class})"
    skipped = blame.decay_skipped
    if skipped and len(skipped) == len(blame.differing):
        finding = Finding("weight-decay-filter", where, f"{evidence}; the first update differs only by weight decay:"
                          f" MindSpore does not decay {', '.join(repr(n) for n in skipped)} (its float weight_decay"
                          " skips parameters named gamma/beta by default); torch decays every parameter", "", "high",
                          confirmed=True, evidence=evidence)
        decay = max(hyper_from_group(groups[n]).weight_decay for n in skipped if n in groups)
        finding = with_group_fix(finding, case, ref, cell, mapping, tolerance_for, loss_m, decay)
    else:
        finding = with_port_fix(Finding("optimizer-update", where, f"{evidence}; the first update differs: {cause}", "",
                                        "high" if identified else "medium", confirmed=identified, evidence=evidence),
                                case, ref, module, cell, mapping, tolerance_for, (loss_t, loss_m), torch_class, groups)
    how = ("each side's rule was identified by recomputing its first update from the recorded weights and"
           " gradients" if identified else "not every side's rule could be identified")
    return StageBlame("optimizer", f"the optimizer update: {finding.cause} ({how})"
                      if finding.rule in ("optimizer-update", "optimizer-torch-class")
                      else f"the optimizer update: {finding.cause}", (finding,))


def _ms_hypers(ms_groups: Mapping[str, Mapping[str, Any]], mapping: WeightMapping) -> dict:
    """MindSpore's per-parameter hyperparameters under torch's parameter names."""
    by_ms = {r.ms_name: r.torch_name for r in mapping.pairs}
    return {by_ms[n]: hyper_from_group(g) for n, g in ms_groups.items() if n in by_ms}


def _compare(name: str, torch_grad: np.ndarray, ms_grad: Optional[np.ndarray], tolerance_for: Any) -> TensorComparison:
    from migcheck.judging.compare import missing_tensor

    if ms_grad is None:
        return missing_tensor(param_grad_name(name), "mindspore")
    tol, source = tolerance_for(param_grad_name(name), str(np.asarray(torch_grad).dtype))
    return compare_arrays(param_grad_name(name), torch_grad, ms_grad, tol, source)


def _later_steps_cause(case: Any, ref: Any, module: TorchProbe, cell: MindSporeProbe, mapping: WeightMapping, ms_results: Mapping[str, Any],
                       failing: Sequence[str], tolerance_for: Callable[[str, str], Any], loss: Any) -> Optional[Finding]:
    """The one hyperparameter whose MindSpore value, given to torch's optimizer, reproduces MindSpore's later steps."""
    from migcheck.localization.optimizer_state import differing, patched, reproduces, shown
    from migcheck.runners.torch_side import PRESETS

    torch_opt = optimizer_for(case, "torch")
    torch_class, groups = module.optimizer_groups(torch_opt)
    ms_class, ms_groups = cell.optimizer_groups(optimizer_for(case, "mindspore"))
    by_ms = {r.ms_name: r.torch_name for r in mapping.pairs}
    ms_by_torch = {by_ms[n]: g for n, g in ms_groups.items() if n in by_ms}
    for key, torch_value, ms_value in differing(groups, ms_by_torch):
        try:
            module.load(ref.weights)
            records = module.steps(ref.inputs, ref.input_dtypes, ref.objective, loss,
                                   patched(torch_opt, key, ms_value, PRESETS), case.steps,
                                   schedule=getattr(case, "lr_schedule", None))
        except Exception:  # a value torch's optimizer refuses: not confirmable
            continue
        if reproduces(records, ms_results, failing, tolerance_for):
            cause = (f"the optimizers' {key} differs: torch {torch_class} {shown(torch_value)}, MindSpore {ms_class}"
                     f" {shown(ms_value)}; torch stepped with MindSpore's value reproduces MindSpore's later steps")
            return Finding(f"optimizer-{key}", f"optimizer (torch {torch_class} / MindSpore {ms_class})", cause,
                           "none shown (not re-run on the port)", "high", True, False,
                           evidence="re-running torch's steps with MindSpore's hyperparameter")
    return None
