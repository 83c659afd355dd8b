"""The learning rate each MindSpore step uses: read off the optimizer's public learning_rate (a number, a
per-step list held as a Tensor, or a LearningRateSchedule cell evaluated at the step), without stepping it
(Optimizer.get_lr() would advance global_step)."""
from __future__ import annotations

import inspect
from typing import Any, Callable, List, Mapping, Tuple

import mindspore as ms

from migcheck.runners.mindspore_context import pynative


def mindspore_rates(params: list, presets: Mapping[str, Callable], optimizer: Any, count: int) -> Tuple[str, List[float]]:
    with pynative():
        opt = presets[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
        lr = opt.learning_rate
        if isinstance(lr, (list, tuple)) or getattr(opt, "is_group_lr", False):  # groups: the first group's rates
            lr = lr[0]
        if isinstance(lr, ms.nn.learning_rate_schedule.LearningRateSchedule):
            rates = [float(lr(ms.Tensor(k, ms.int32)).asnumpy()) for k in range(count)]
            names = inspect.signature(type(lr).__init__).parameters  # its own settings, not Cell's
            shown = [f"{k}={v!r}" for k, v in vars(lr).items() if k in names and isinstance(v, (bool, int, float, str))]
            return f"{type(opt).__name__} with {type(lr).__name__}({', '.join(shown)})", rates
        values = lr.asnumpy().reshape(-1) if hasattr(lr, "asnumpy") else [float(lr)]
        rates = [float(values[min(k, len(values) - 1)]) for k in range(count)]
        kind = f"a list of {len(values)} rates" if len(values) > 1 else "a constant lr"
        return f"{type(opt).__name__} with {kind}", rates


def schedule_classes() -> List[Tuple[str, Tuple[Tuple[str, Any], ...]]]:
    """mindspore.nn's LearningRateSchedule classes: (name, ((parameter, its default or inspect.Parameter.empty),
    ...)), read off the installed MindSpore."""
    base = ms.nn.learning_rate_schedule.LearningRateSchedule
    out = []
    for name in dir(ms.nn):
        cls = getattr(ms.nn, name)
        if isinstance(cls, type) and issubclass(cls, base) and cls is not base:
            params = inspect.signature(cls.__init__).parameters
            out.append((name, tuple((k, p.default) for k, p in params.items() if k != "self")))
    return out


def build_schedule(name: str, kwargs: Mapping[str, Any]) -> Any:
    """mindspore.nn.<name>(**kwargs): a schedule to hand an optimizer as its learning_rate."""
    return getattr(ms.nn, name)(**kwargs)


def schedule_rates(name: str, kwargs: Mapping[str, Any], count: int) -> List[float]:
    """The rate mindspore.nn.<name>(**kwargs) gives each of the first `count` steps."""
    with pynative():
        schedule = build_schedule(name, kwargs)
        return [float(schedule(ms.Tensor(k, ms.int32)).asnumpy()) for k in range(count)]
