"""When the first update agrees and later ones differ: which optimizer hyperparameter makes the state evolve
differently (Adam's beta2 or amsgrad, a momentum), confirmed by re-running torch's steps with MindSpore's value.

Adam's first step is lr * g / (|g| + eps) whatever its betas, and momentum starts from the first gradient, so
these hyperparameters show only from the second step on. Each one the two optimizers hold differently is a
candidate; it is the cause only when torch, stepped with MindSpore's value, reproduces MindSpore's later steps.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

from migcheck.judging.compare import compare_arrays

KEYS = ("lr", "eps", "momentum", "alpha", "nesterov", "betas", "amsgrad")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (bool, int, float)) and isinstance(b, (bool, int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-12)
    return a == b


def differing(groups: Mapping[str, Mapping[str, Any]], ms_groups: Mapping[str, Mapping[str, Any]]
              ) -> List[Tuple[str, Any, Any]]:
    """(key, torch value, MindSpore value) of each hyperparameter both optimizers hold differently for some
    parameter; ms_groups under torch's parameter names."""
    found: Dict[str, Tuple[Any, Any]] = {}
    for name, group in groups.items():
        other = ms_groups.get(name, {})
        for key in KEYS:
            if key in group and key in other and key not in found and not _same(group[key], other[key]):
                found[key] = (group[key], other[key])
    return [(k, t, m) for k, (t, m) in found.items()]


def shown(value: Any) -> str:
    """A hyperparameter as a person writes it (MindSpore keeps float32: 0.9990000128746033 is 0.999)."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(shown(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


def patched(optimizer: Any, key: str, value: Any, presets: Mapping[str, Callable[[list], Any]]) -> Callable[[list], Any]:
    """torch's optimizer factory with one hyperparameter set to another value in every group."""
    base = presets[optimizer] if isinstance(optimizer, str) else optimizer

    def build(params: list) -> Any:
        opt = base(params)
        for group in opt.param_groups:
            if key in group:
                current = group[key]
                group[key] = tuple(value) if isinstance(current, tuple) else type(current)(value)
        return opt

    return build


def reproduces(records: Sequence[Mapping[str, Any]], ms_results: Mapping[str, Any], failing: Sequence[str],
               tolerance_for: Callable[[str, str], Any]) -> bool:
    """Whether torch's re-run steps (records, as TorchModule.steps returns them) equal MindSpore's failing
    step tensors ("stepK.param.X")."""
    checked = 0
    for name in failing:
        step, _, rest = name.partition(".")
        kind, _, param = rest.partition(".")
        if not step.startswith("step") or kind not in ("param", "state"):
            continue
        k = int(step[4:]) - 1
        if k >= len(records) or param not in records[k]["state"] or name not in ms_results:
            return False
        torch_value = records[k]["state"][param]
        tol, source = tolerance_for(name, str(torch_value.dtype))
        if not compare_arrays(name, torch_value, ms_results[name], tol, source).ok:
            return False
        checked += 1
    return checked > 0
