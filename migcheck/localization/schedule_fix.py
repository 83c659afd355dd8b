"""The fix for a learning-rate schedule difference, re-run on the port: its optimizer, rebuilt from its own
factory call (runners/mindspore_optimizer.py) with torch's rate for every step as its learning rate (a piecewise
constant list, as mindspore.nn.piecewise_constant_lr builds it), is stepped from the initial weights; the fix is
printed only when those steps then agree with torch's, judged as the verdict judges them."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from migcheck.case import optimizer_for
from migcheck.localization.optimizer_search import steps_agree
from migcheck.mapping.transfer import WeightMapping, to_mindspore, to_torch
from migcheck.runners.probes import MindSporeProbe


def piecewise(rates: Sequence[float]) -> Tuple[List[int], List[float]]:
    """(milestones, rates) for mindspore.nn.piecewise_constant_lr: the step each constant run ends at, and its rate."""
    milestones: List[int] = []
    values: List[float] = []
    for k, rate in enumerate(rates):
        if values and rate == values[-1]:
            milestones[-1] = k + 1
        else:
            milestones.append(k + 1)
            values.append(float(rate))
    return milestones, values


def schedule_code(name: str, rates: Sequence[float]) -> str:
    milestones, values = piecewise([round(float(r), 8) for r in rates])
    if len(values) < len(rates):
        return f"{name}=mindspore.nn.piecewise_constant_lr({milestones}, {values})"
    return f"{name}={values}"


def schedule_fixer(case: Any, ref: Any, cell: MindSporeProbe, mapping: WeightMapping,
                   tolerance_for: Callable[[str, str], Any], loss: Any
                   ) -> Callable[..., Optional[str]]:
    """(rates, optionally a schedule class and its arguments) -> the port's optimizer call with that schedule (else
    with those rates as a list), as code, when stepping it agrees with torch; else None."""
    def fix(rates: Sequence[float], schedule: Optional[Tuple[str, Dict[str, Any]]] = None) -> Optional[str]:
        optimizer = optimizer_for(case, "mindspore")
        try:
            port, _ = cell.optimizer_constructor(optimizer)
            name = next((a.name for a in port.arguments if a.name in ("learning_rate", "lr")), "learning_rate")
            if schedule is not None:
                from migcheck.runners.mindspore_schedule import build_schedule

                value: Any = build_schedule(*schedule)
            else:
                milestones, values = piecewise([round(float(r), 8) for r in rates])
                value = [values[next(i for i, end in enumerate(milestones) if k < end)] for k in range(len(rates))]
            cell.load(to_mindspore(ref.weights, mapping))
            rebuilt = cell.rebuilt_optimizer(optimizer, "", {name: value})
            records = cell.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, rebuilt, len(rates))
        except Exception:  # the port's optimizer refuses a list of rates: no fix shown
            return None
        stepped = [{"state": to_torch(r["state"], mapping)} for r in records]
        if not steps_agree(stepped, ref.results, tolerance_for, getattr(ref, "oracle", None)):
            return None
        if schedule is not None:
            from migcheck.localization.schedule_class import schedule_text

            return f"mindspore.nn.{port.kind}(params, ..., {name}={schedule_text(*schedule)})"
        return f"mindspore.nn.{port.kind}(params, ..., {schedule_code(name, rates)})"
    return fix
