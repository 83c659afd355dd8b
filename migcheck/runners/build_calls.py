"""The library calls a network's own constructor code makes (MindSpore, NumPy, SciPy functions reached as module
attributes, e.g. `ops.logspace(...)`, `np.hanning(17)`, `audio.create_dct(...)`), recorded while the network is
built, and a rebuild with one of those calls given another argument.

A profile hook sees each Python-level call with its bound arguments; a call is kept when a library function is
called directly from code outside the libraries and the caller reaches it as an attribute of a module (or a
global name), which is also where the rebuild puts a wrapper that changes the argument.
"""
from __future__ import annotations

import enum
import importlib
import inspect
import os
import sys
import types
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from migcheck.records.constants import BuildCall, BuildChange

LIBRARIES = ("mindspore", "numpy", "scipy")
_NOT_USER = LIBRARIES + ("torch", "migcheck", "importlib", "inspect", "functools", "contextlib", "abc", "typing",
                         "enum", "copy", "collections", "threading", "weakref")
TENSOR = "<tensor>"


def _top(module_name: str) -> str:
    return (module_name or "").split(".")[0]


def _code_of(f: Any) -> Any:
    code = getattr(f, "__code__", None)
    if code is None:
        wrapped = getattr(f, "__wrapped__", None)
        code = getattr(wrapped, "__code__", None)
    return code


def _address(code: Any, caller: Any) -> Optional[Tuple[str, str, Any]]:
    """(module name, attribute, function) through which the caller reached the function running `code`."""
    name = code.co_name
    for space in (caller.f_locals, caller.f_globals):
        for value in list(space.values()):
            if isinstance(value, types.ModuleType):
                f = getattr(value, name, None)
                if f is not None and _code_of(f) is code:
                    return value.__name__, name, f
    for key, value in list(caller.f_globals.items()):
        if callable(value) and not isinstance(value, type) and _code_of(value) is code:
            return caller.f_globals.get("__name__", ""), key, value
    return _public_address(code)


_FOUND: Dict[Any, Optional[Tuple[str, str, Any]]] = {}


def _public_address(code: Any) -> Optional[Tuple[str, str, Any]]:
    """Reached through a chain of attributes (`ms.ops.logspace`): the shortest public library module that holds
    the function under its own name."""
    if code not in _FOUND:
        best = None
        for module_name, module in list(sys.modules.items()):
            if _top(module_name) not in LIBRARIES or any(p.startswith("_") for p in module_name.split(".")):
                continue
            f = getattr(module, code.co_name, None)
            if f is not None and _code_of(f) is code and (best is None or len(module_name) < len(best[0])):
                best = (module_name, code.co_name, f)
        _FOUND[code] = best
    return _FOUND[code]


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str, enum.Enum)) or value is None:
        return value
    if isinstance(value, (tuple, list)) and len(value) <= 8:
        items = tuple(_plain(v) for v in value)
        return items if all(not isinstance(i, _Opaque) for i in items) else _Opaque()
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return TENSOR
    return _Opaque()


class _Opaque:
    """An argument value a rebuild cannot vary (an object); kept out of the record."""


def plain_pairs(named: Iterable[Tuple[str, Any]]) -> Tuple[Tuple[str, Any], ...]:
    """(name, value) with each value as a record holds it (tensors as TENSOR); objects a rebuild cannot vary left
    out. Both sides' recorders write their calls' arguments through it."""
    return tuple((k, v) for k, v in ((k, _plain(v)) for k, v in named) if not isinstance(v, _Opaque))


def _bound(f: Any, frame: Any) -> Tuple[Tuple[Tuple[str, Any], ...], Tuple[str, ...]]:
    try:
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        return (), ()
    locals_ = frame.f_locals
    named = [(n, p) for n, p in params.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n in locals_]
    defaulted = tuple(n for n, p in named if p.default is not p.empty and _same(locals_[n], p.default))
    return plain_pairs((n, locals_[n]) for n, _ in named), defaulted


def _same(a: Any, b: Any) -> bool:
    try:
        return a is b or bool(type(a) is type(b) and a == b)
    except Exception:  # an array compared elementwise: not a default
        return False


def library_calls(build: Callable[[], Any], limit: int = 64) -> Tuple[Any, List[BuildCall]]:
    """Build the network, recording the library calls its own code makes (at most `limit`)."""
    calls: List[BuildCall] = []
    counts: Dict[str, int] = {}

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event != "call" or len(calls) >= limit or _top(frame.f_globals.get("__name__", "")) not in LIBRARIES:
            return
        caller = frame.f_back
        if caller is None or _top(caller.f_globals.get("__name__", "")) in _NOT_USER:
            return
        found = _address(frame.f_code, caller)
        if found is None:
            return
        module, attr, f = found
        function = f"{module}.{attr}"
        arguments, defaulted = _bound(f, frame)
        ordinal = counts.get(function, 0)
        counts[function] = ordinal + 1
        site = f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"
        calls.append(BuildCall(function, ordinal, arguments, defaulted, site))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        built = build()
    finally:
        sys.setprofile(previous)
    return built, calls


def built_with(build: Callable[[], Any], change: BuildChange) -> Any:
    """The network built again with one recorded call's argument changed (the call's other arguments as written)."""
    module_name, _, attr = change.function.rpartition(".")
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    original = getattr(module, attr)
    signature = inspect.signature(original)
    seen = [0]

    def changed(*args: Any, **kwargs: Any) -> Any:
        caller = inspect.currentframe().f_back  # calls the libraries make themselves are not counted, as recorded
        if caller is None or _top(caller.f_globals.get("__name__", "")) in _NOT_USER:
            return original(*args, **kwargs)
        nth, seen[0] = seen[0], seen[0] + 1
        if nth == change.ordinal:
            bound = signature.bind(*args, **kwargs)
            bound.arguments[change.argument] = change.value
            args, kwargs = bound.args, bound.kwargs
        return original(*args, **kwargs)

    setattr(module, attr, changed)
    try:
        return build()
    finally:
        setattr(module, attr, original)
