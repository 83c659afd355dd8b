"""Learning-rate schedules: the rate each step used, on both sides, and the schedule difference named.

torch's rates come from its optimizer under the case's lr_schedule, MindSpore's from its optimizer's own
learning_rate (a list or a LearningRateSchedule), both read without training. When they differ, torch's
steps are re-run with MindSpore's rate at every step; only if that reproduces MindSpore's failing steps is
the schedule the confirmed cause.
"""
from __future__ import annotations

import time
from typing import Any, Callable, List, Mapping, Optional, Sequence

from migcheck.localization.rules import Finding
from migcheck.localization.schedule_class import differs, find_schedule, schedule_text
from migcheck.runners.probes import MindSporeProbe, TorchProbe


def pattern(rates: Sequence[float]) -> str:
    """The rule a sequence of rates follows, in words: constant, exponential every step, step decay every n
    steps, linear warm-up, or none recognized."""
    r = list(rates)
    if len(r) < 2 or not differs(r, [r[0]] * len(r)):
        return "constant"
    changes = [k for k in range(1, len(r)) if differs([r[k]], [r[k - 1]])]
    ratios = [r[k] / r[k - 1] for k in changes if r[k - 1]]
    same_ratio = len(ratios) == len(changes) and not differs(ratios, [ratios[0]] * len(ratios))
    if same_ratio and changes == list(range(1, len(r))):
        return f"multiplied by {ratios[0]:.4g} every step (exponential)"
    if same_ratio and len(changes) >= 1:
        gaps = {b - a for a, b in zip([0] + changes, changes)}
        if len(gaps) == 1:
            return f"multiplied by {ratios[0]:.4g} every {gaps.pop()} steps (step decay)"
    steps = [r[k] - r[k - 1] for k in range(1, len(r))]
    if not differs(steps, [steps[0]] * len(steps)):
        return f"changing linearly by {steps[0]:+.4g} per step"
    if steps[0] > 0:
        n = next((k for k, s in enumerate(steps) if s <= 0 or differs([s], [steps[0]])), len(steps))
        if n == len(steps):
            return f"rising linearly for {n} steps (warm-up)"
        return f"rising linearly for {n} steps (warm-up), then {pattern(r[n:])}"
    return "no simple rule"


def _shown(rates: Sequence[float]) -> str:
    return "[" + ", ".join(f"{x:.4g}" for x in rates) + "]"


def schedule_finding(case: Any, ref: Any, module: TorchProbe, cell: MindSporeProbe, ms_results: Mapping[str, Any],
                     failing: Sequence[str], tolerance_for: Callable[[str, str], Any], loss: Any,
                     fixer: Optional[Callable[[Sequence[float]], Optional[str]]] = None) -> Optional[Finding]:
    """The confirmed schedule difference of a failing step check; None when the rates agree or torch's steps
    with MindSpore's rates do not reproduce MindSpore's. fixer: torch's rates -> the port's optimizer call with
    them, when stepping it agrees with torch (schedule_fix.py); its answer is the checked fix."""
    from migcheck.localization.optimizer_state import reproduces
    from migcheck.runners.torch_side import PRESETS
    from migcheck.runners.torch_schedule import torch_rates
    from migcheck.case import optimizer_for

    started = time.perf_counter()
    count = case.steps
    try:
        t_desc, t_rates = torch_rates(module.module, PRESETS, optimizer_for(case, "torch"), case.lr_schedule, count)
        m_desc, m_rates = cell.lr_per_step(optimizer_for(case, "mindspore"), count)
    except Exception:  # a schedule that cannot be read without training: nothing to compare
        return None
    if not differs(t_rates, m_rates):
        return None
    try:
        module.load(ref.weights)
        records = module.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, optimizer_for(case, "torch"), count,
                               lrs=m_rates)
    except Exception:  # torch's optimizer refuses the rates: not confirmable
        return None
    if not reproduces(records, ms_results, failing, tolerance_for):
        return None
    first = next(k for k in range(count) if differs([t_rates[k]], [m_rates[k]]))
    cause = (f"the learning-rate schedules differ from step {first + 1}: torch {t_desc} lr per step"
             f" {_shown(t_rates)} ({pattern(t_rates)}); MindSpore {m_desc} lr per step {_shown(m_rates)}"
             f" ({pattern(m_rates)})")
    evidence = (f"torch's steps re-run with MindSpore's lr at every step reproduce MindSpore's steps"
                f" ({count} steps, {time.perf_counter() - started:.2f}s)")
    checked, given = None, "torch's rate per step"
    if fixer is not None:  # a mindspore.nn schedule class giving torch's rates first, else torch's rates as a list
        schedule, tried, seconds = find_schedule(module, case, count)
        checked = fixer(t_rates, schedule) if schedule is not None else None
        evidence += (f"; mindspore.nn's schedule classes built from torch's settings: {tried} candidate(s) in"
                     f" {seconds:.2f}s" + (f", {schedule_text(*schedule)} gives torch's rates over"
                                           f" {2 * count + 4} steps" if schedule is not None else ", none gives torch's rates"))
        given = schedule_text(*schedule) if checked is not None else given
        checked = checked or fixer(t_rates)
    if checked is not None:
        evidence += (f"; the port's optimizer rebuilt with {given} and stepped {count} steps agrees with"
                     f" torch's steps ({time.perf_counter() - started:.2f}s in all)")
        return Finding("lr-schedule", f"optimizer schedule (torch {t_desc} / MindSpore {m_desc})", cause, checked,
                       "high", True, True, evidence=evidence)
    fix = (f"none shown (not re-run on the port): give MindSpore's optimizer torch's rates, e.g."
           f" learning_rate={[round(x, 8) for x in t_rates]} (a list: one rate per step)")
    return Finding("lr-schedule", f"optimizer schedule (torch {t_desc} / MindSpore {m_desc})", cause, fix, "high",
                   True, False, evidence=evidence)
