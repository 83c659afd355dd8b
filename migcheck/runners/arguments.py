"""A layer's constructor arguments read back off the built object (framework-neutral reflection).

Both runners use it: the signature of the class's __init__ names the arguments; each value is read
from the object's attribute of that name (or '_name'), else from an operator or sub-object it holds
(a MindSpore Primitive keeps its arguments in `attrs`); what cannot be read as a plain value is left
at the signature's default and marked not found.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Tuple

from migcheck.runners.base import Argument, TensorValue

MISSING = object()


def plain(value: Any, to_list: Callable[[Any], Any]) -> Any:
    """A plain python value (tuples for sequences), or MISSING; `to_list` turns a framework tensor into lists."""
    if value is None or isinstance(value, (bool, int, float, str, TensorValue)):
        return value
    if isinstance(value, (list, tuple)):
        items = [plain(v, to_list) for v in value]
        return MISSING if any(v is MISSING for v in items) else tuple(items)
    listed = to_list(value)
    return MISSING if listed is MISSING else plain(listed, to_list)


def read_arguments(obj: Any, to_list: Callable[[Any], Any], skip: Tuple[str, ...] = ()) -> Tuple[Argument, ...]:
    """Every named argument of type(obj).__init__ (not *args/**kwargs, not those in `skip`) with its value."""
    try:
        params = inspect.signature(type(obj).__init__).parameters
    except (TypeError, ValueError):
        return ()
    out = []
    for name, p in params.items():
        if name == "self" or name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        has_default = p.default is not inspect.Parameter.empty
        default = plain(p.default, to_list) if has_default else None
        value = _lookup(obj, name, to_list)
        found = value is not MISSING
        if found and isinstance(default, str) and not isinstance(value, str):
            found = False  # an attribute that shares the name but holds an operator's encoding of it
        annotation = "" if p.annotation is inspect.Parameter.empty else str(p.annotation)
        # a default that is no plain value (a dtype, an initializer object) is left to the signature: None here
        out.append(Argument(name, value if found else (default if default is not MISSING else None), found,
                            has_default, None if default is MISSING else default, annotation))
    return tuple(out)


def _lookup(obj: Any, name: str, to_list: Callable[[Any], Any]) -> Any:
    own = vars(obj)
    for key in (name, f"_{name}"):
        if key in own:
            value = plain(own[key], to_list)
            if value is not MISSING:
                return value
    for held in own.values():  # an operator or a small object the layer holds, built from the argument
        attrs = getattr(held, "attrs", None)
        if isinstance(attrs, dict) and name in attrs:
            value = plain(attrs[name], to_list)
            if value is not MISSING:
                return value
    return MISSING


def docstring(cls: type) -> str:
    return inspect.getdoc(cls) or ""


def optional(value: Any) -> Optional[Any]:
    return None if value is MISSING else value
