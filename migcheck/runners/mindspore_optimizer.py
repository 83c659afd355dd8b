"""The port's optimizer as its factory built it, and the same optimizer built again with some arguments changed
or another mindspore.nn optimizer class in its place (localization/optimizer_search.py re-runs the steps).

The factory is a case's lambda, so its arguments cannot be read from source: the constructor call itself is
caught (runners/construction.py), which keeps what no attribute holds as given: a schedule, a parameter-group
list, a loss scale. Only public API: inspect, mindspore.nn's public optimizer classes.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

import mindspore as ms
import numpy as np

from migcheck.knowledge.lookup import optimizer_names
from migcheck.runners.arguments import MISSING, docstring, plain
from migcheck.runners.base import Argument, Constructor
from migcheck.runners.construction import bound_arguments, built_with_calls, own_signature


@dataclass(frozen=True)
class CaughtCall:
    cls: type
    params_name: str  # the constructor's first argument: the parameters (or parameter groups)
    arguments: Mapping[str, Any]  # every other argument the factory passed, by name, as passed
    groups: Any = None  # the parameter groups (dicts) the factory passed, when it passed groups


def _to_list(value: Any) -> Any:
    if isinstance(value, (ms.Tensor, np.ndarray)) and value.size <= 64:
        return value.asnumpy().tolist() if isinstance(value, ms.Tensor) else value.tolist()
    return MISSING


def catch_call(factory: Callable[[list], Any], params: list) -> CaughtCall:
    """Build the optimizer with its constructor call caught (construction.py): its class and every argument."""
    built, calls = built_with_calls(lambda: factory(params), ms.nn.Cell)  # an Optimizer is a Cell
    arguments = dict(bound_arguments(built, calls) or {})
    names = [n for n in own_signature(type(built)).parameters if n != "self"]
    params_name = names[0] if names else "params"
    given = arguments.pop(params_name, None)
    grouped = isinstance(given, (list, tuple)) and bool(given) and isinstance(given[0], dict)
    return CaughtCall(type(built), params_name, arguments, given if grouped else None)


def _signature_arguments(cls: type, given: Mapping[str, Any]) -> Tuple[Argument, ...]:
    out = []
    for i, (name, p) in enumerate(own_signature(cls).parameters.items()):
        if name == "self" or i == 1 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue  # i == 1: the parameters
        has_default = p.default is not inspect.Parameter.empty
        default = plain(p.default, _to_list) if has_default else MISSING
        value = plain(given[name], _to_list) if name in given else MISSING
        found = value is not MISSING
        annotation = "" if p.annotation is inspect.Parameter.empty else str(p.annotation)
        out.append(Argument(name, value if found else (None if default is MISSING else default), found,
                            has_default, None if default is MISSING else default, annotation))
    return tuple(out)


def described(call: CaughtCall) -> Constructor:
    """The port's optimizer: its class and every argument, as passed (found) or the signature's default."""
    return Constructor(call.cls.__name__, call.cls.__module__.startswith("mindspore"),
                       _signature_arguments(call.cls, call.arguments), docstring(call.cls))


def optimizer_classes() -> List[Constructor]:
    """mindspore.nn's public optimizer classes with their signatures' defaults (nothing found: none is built)."""
    out = []
    for name in sorted(dir(ms.nn)):
        cls = getattr(ms.nn, name)
        if name.startswith("_") or not isinstance(cls, type) or cls is ms.nn.Optimizer:
            continue
        if issubclass(cls, ms.nn.Optimizer):
            out.append(Constructor(name, True, _signature_arguments(cls, {}), docstring(cls)))
    import mindspore.experimental.optim as experimental  # torch.optim's update rules and names, as Cells

    for name in sorted(dir(experimental)):
        cls = getattr(experimental, name)
        if isinstance(cls, type) and issubclass(cls, experimental.Optimizer) and cls is not experimental.Optimizer:
            out.append(Constructor(f"experimental.optim.{name}", True, _signature_arguments(cls, {}), docstring(cls)))
    return out


def optimizer_class(name: str) -> type:
    """"Adam" is mindspore.nn.Adam; "experimental.optim.NAdam" mindspore.experimental.optim's."""
    if name.startswith("experimental.optim."):
        import mindspore.experimental.optim as experimental

        return getattr(experimental, name.rsplit(".", 1)[-1])
    return getattr(ms.nn, name)


def rebuilt(call: CaughtCall, class_name: str, changes: Mapping[str, Any],
            group: Optional[Mapping[str, Any]] = None) -> Callable[[list], Any]:
    """A factory for the port's optimizer with `changes` applied, or (class_name given) another mindspore.nn
    optimizer given `changes` plus every argument of the port's call it also takes (a schedule stays a schedule).
    Parameter groups the port passed are kept: they hold the same Parameter objects the steps train. `group`:
    every parameter in one group with these settings instead (a group's weight_decay skips no name)."""
    cls = call.cls if not class_name else optimizer_class(class_name)
    accepted = set(own_signature(cls).parameters)
    kept = {k: v for k, v in call.arguments.items() if k in accepted}

    def build(params: list) -> Any:
        if group:
            return cls([{"params": params, **group}], **{k: v for k, v in {**kept, **dict(changes)}.items()
                                                        if k not in group})
        return cls(call.groups if call.groups is not None else params, **{**kept, **dict(changes)})

    return build


def hyperparameters(opt: Any, names: List[str]) -> Tuple[str, Dict[str, Dict[str, Any]]]:
    """(optimizer class, MindSpore parameter name -> its hyperparameters in torch's names), read off a built
    optimizer; per-parameter weight decay follows its decay flags (a name filter)."""
    common: Dict[str, Any] = {}
    names = optimizer_names()  # torch's setting -> MindSpore's names for it (the knowledge table)
    for torch_key in ("lr", "eps", "momentum", "alpha", "nesterov", "amsgrad"):
        for attr in names[torch_key]:
            value = scalar_of(getattr(opt, attr, None))
            if value is not None:
                common[torch_key] = value
                break
    beta1, beta2 = scalar_of(getattr(opt, "beta1", None)), scalar_of(getattr(opt, "beta2", None))
    if beta1 is not None and beta2 is not None:
        common["betas"] = (beta1, beta2)
    decay = scalar_of(getattr(opt, "weight_decay", None)) or 0.0
    flags = getattr(opt, "decay_flags", None) or (True,) * len(names)
    return type(opt).__name__, {n: {**common, "weight_decay": decay if flag else 0.0}
                                for n, flag in zip(names, flags)}


def scalar_of(value: Any) -> Optional[float]:
    """A hyperparameter as a float: plain numbers, or one-element Parameters and Tensors; None otherwise."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    try:
        array = value.asnumpy()
    except AttributeError:
        return None
    return float(array.reshape(-1)[0]) if array.size == 1 else None
