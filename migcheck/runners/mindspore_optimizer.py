"""The port's optimizer as its factory built it, and the same optimizer built again with some arguments changed
or another mindspore.nn optimizer class in its place (localization/optimizer_search.py re-runs the steps).

The factory is a case's lambda, so its arguments cannot be read from source: the constructor call itself is
caught (the class's __init__ wrapped for one call), which keeps what no attribute holds as given: a schedule, a
parameter-group list, a loss scale. Only public API: inspect, mindspore.nn's public optimizer classes.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Tuple

import mindspore as ms
import numpy as np

from migcheck.runners.arguments import MISSING, docstring, plain
from migcheck.runners.base import Argument, Constructor


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


def init_signature(cls: type) -> inspect.Signature:
    """The constructor's own signature. mindspore.nn's optimizers wrap __init__ in opt_init_args_register (and
    some in a deprecation wrapper too), whose wrappers take (*args, **kwargs) and keep the function they wrap in
    their closure, with no __wrapped__: follow the closures to the first function with named parameters."""
    func = cls.__init__
    for _ in range(4):
        sig = inspect.signature(func)
        if not all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for n, p in sig.parameters.items() if n != "self"):
            return sig
        inner = [c.cell_contents for c in getattr(func, "__closure__", None) or () if inspect.isfunction(c.cell_contents)]
        if not inner:
            return sig
        func = inner[0]
    return inspect.signature(func)


def catch_call(factory: Callable[[list], Any], params: list) -> CaughtCall:
    """Build the optimizer once to learn its class, then again with that class's __init__ recording its call."""
    cls = type(factory(params))
    own = "__init__" in vars(cls)
    original = cls.__init__
    signature = init_signature(cls)
    seen: Dict[str, Any] = {}

    def recording(self: Any, *args: Any, **kwargs: Any) -> None:
        if not seen:  # the outermost call: a subclass's super().__init__ is not the factory's
            seen.update(signature.bind(self, *args, **kwargs).arguments)
        original(self, *args, **kwargs)

    cls.__init__ = recording  # type: ignore[method-assign]
    try:
        factory(params)
    finally:
        if own:
            cls.__init__ = original  # type: ignore[method-assign]
        else:
            del cls.__init__
    names = [n for n in signature.parameters if n != "self"]
    params_name = names[0] if names else "params"
    arguments: Dict[str, Any] = {}
    for name, value in seen.items():
        if name in ("self", params_name):
            continue
        if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
            arguments.update(value)
        else:
            arguments[name] = value
    given = seen.get(params_name)
    grouped = isinstance(given, (list, tuple)) and bool(given) and isinstance(given[0], dict)
    return CaughtCall(cls, params_name, arguments, given if grouped else None)


def _signature_arguments(cls: type, given: Mapping[str, Any]) -> Tuple[Argument, ...]:
    out = []
    for i, (name, p) in enumerate(init_signature(cls).parameters.items()):
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
    return out


def rebuilt(call: CaughtCall, class_name: str, changes: Mapping[str, Any]) -> Callable[[list], Any]:
    """A factory for the port's optimizer with `changes` applied, or (class_name given) another mindspore.nn
    optimizer given `changes` plus every argument of the port's call it also takes (a schedule stays a schedule).
    Parameter groups the port passed are kept: they hold the same Parameter objects the steps train."""
    cls = call.cls if not class_name else getattr(ms.nn, class_name)
    accepted = set(init_signature(cls).parameters)
    kept = {k: v for k, v in call.arguments.items() if k in accepted}

    def build(params: list) -> Any:
        return cls(call.groups if call.groups is not None else params, **{**kept, **dict(changes)})

    return build
