"""The learning-rate schedule class a port should use: mindspore.nn's LearningRateSchedule classes, each built
with values read off torch's scheduler and torch's own rates (its first rate, its number settings by kind: a
rate in (0, 1), a step count, a floor below the first rate), evaluated step by step; the first whose rates equal
torch's over twice the case's steps is the candidate fix (schedule_fix.py then steps the port with it)."""
from __future__ import annotations

import itertools
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from migcheck.runners.probes import TorchProbe

RTOL = 1e-5  # MindSpore evaluates its schedule in float32
MAX_CANDIDATES = 400
MAX_SECONDS = 10.0


def differs(a: Sequence[float], b: Sequence[float]) -> bool:
    """Two rate sequences differ: in length, or at a step beyond float32's evaluation of a schedule."""
    return len(a) != len(b) or any(abs(x - y) > RTOL * max(abs(x), abs(y), 1e-12) for x, y in zip(a, b))


def candidate_kwargs(params: Sequence[Tuple[str, Any]], numbers: Sequence[Tuple[str, float]],
                     rates: Sequence[float], no_default: Any = None) -> List[Dict[str, Any]]:
    """Every filling of a schedule class's parameters from torch's numbers and rates (pure)."""
    base = float(rates[0])
    values = [v for _, v in numbers]
    changes = [k for k in range(1, len(rates)) if differs([rates[k]], [rates[k - 1]])]
    ratio = [rates[changes[0]] / rates[changes[0] - 1]] if changes and rates[changes[0] - 1] else []
    fractions = sorted({v for v in values if 0.0 < v < 1.0} | {round(r, 8) for r in ratio if 0.0 < r < 1.0})
    counts = sorted({int(v) for v in values if v >= 1 and float(v).is_integer()} | {1, len(rates)}
                    | ({changes[0]} if changes else set()))
    floors = sorted({v for v in values if 0.0 <= v < base} | {0.0, float(min(rates))})
    powers = sorted({v for n, v in numbers if "power" in n} | {1.0, 2.0})
    by_name = {"learning_rate": [base], "max_lr": [base], "min_lr": floors, "end_learning_rate": floors,
               "decay_rate": fractions, "decay_steps": counts, "warmup_steps": counts, "power": powers,
               "is_stair": [False, True], "update_decay_steps": [False, True]}
    choices = []
    for name, default in params:
        if name in by_name:
            choices.append([(name, v) for v in by_name[name]])
        elif default is not no_default:
            choices.append([(name, default)])
        else:  # a parameter nothing of torch's fills: not this class
            return []
    return [dict(c) for c in itertools.product(*choices)]


def find_schedule(module: TorchProbe, case: Any, count: int) -> Tuple[Optional[Tuple[str, Dict[str, Any]]], int, float]:
    """((class name, its arguments) whose rates equal torch's over 2 x count + 4 steps, or None; candidates
    evaluated; seconds)."""
    import inspect

    from migcheck.case import optimizer_for
    from migcheck.runners.mindspore_schedule import schedule_classes, schedule_rates
    from migcheck.runners.torch_schedule import scheduler_numbers, torch_rates
    from migcheck.runners.torch_side import PRESETS

    started, tried = time.monotonic(), 0
    horizon = 2 * count + 4
    optimizer = optimizer_for(case, "torch")
    try:
        _, rates = torch_rates(module.module, PRESETS, optimizer, case.lr_schedule, horizon)
        numbers = scheduler_numbers(module.module, PRESETS, optimizer, case.lr_schedule)
        classes = schedule_classes()
    except Exception:  # a scheduler that cannot be read without training
        return None, 0, 0.0
    for name, params in classes:
        for kwargs in candidate_kwargs(params, numbers, rates, inspect.Parameter.empty):
            if tried >= MAX_CANDIDATES or time.monotonic() - started > MAX_SECONDS:
                return None, tried, time.monotonic() - started
            tried += 1
            try:
                got = schedule_rates(name, kwargs, horizon)
            except Exception:  # arguments the class refuses
                continue
            if not differs(got, rates):
                return (name, kwargs), tried, time.monotonic() - started
    return None, tried, time.monotonic() - started


def schedule_text(name: str, kwargs: Dict[str, Any]) -> str:
    return f"mindspore.nn.{name}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
