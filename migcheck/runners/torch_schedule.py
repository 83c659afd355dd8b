"""The learning rate each torch step uses under the case's scheduler, read off a fresh optimizer on copies of
the parameters (no gradients: the steps change nothing), and the scheduler described by its own settings."""
from __future__ import annotations

import copy
from typing import Any, Callable, List, Mapping, Optional, Tuple

import torch


def torch_rates(module: torch.nn.Module, presets: Mapping[str, Callable], optimizer: Any,
                schedule: Optional[Callable], count: int) -> Tuple[str, List[float]]:
    params = [copy.deepcopy(p.detach()).requires_grad_(True) for p in module.parameters() if p.requires_grad]
    opt = presets[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
    scheduler = schedule(opt) if schedule is not None else None
    rates = []
    for _ in range(count):
        rates.append(float(opt.param_groups[0]["lr"]))
        opt.step()  # no gradients: nothing moves, but the scheduler sees a step was taken
        if scheduler is not None:
            scheduler.step()
    return _described(scheduler, opt), rates


def _described(scheduler: Any, opt: Any) -> str:
    if scheduler is None:
        return f"{type(opt).__name__} (no scheduler)"
    skip = {"optimizer", "last_epoch", "base_lrs", "verbose"}
    shown = [f"{k}={v!r}" for k, v in vars(scheduler).items()
             if not k.startswith("_") and k not in skip and isinstance(v, (bool, int, float, str))]
    return f"{type(scheduler).__name__}({', '.join(shown)})"


def scheduler_numbers(module: torch.nn.Module, presets: Mapping[str, Callable], optimizer: Any,
                      schedule: Optional[Callable]) -> List[Tuple[str, float]]:
    """The number settings of the case's torch scheduler (gamma, step_size, T_max, eta_min, ...), by name."""
    if schedule is None:
        return []
    params = [copy.deepcopy(p.detach()).requires_grad_(True) for p in module.parameters() if p.requires_grad]
    opt = presets[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
    scheduler = schedule(opt)
    return [(k, float(v)) for k, v in vars(scheduler).items() if not k.startswith("_") and k != "last_epoch"
            and isinstance(v, (int, float)) and not isinstance(v, bool)]
