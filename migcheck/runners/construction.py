"""Every object of a class tree as its factory built it: the arguments each constructor call was given.

Reading a layer's settings back off the built object misses what it keeps under other names or only inside an
operator (MindSpore's AvgPool1d keeps `padding` in a Pad op; a port's own cell may keep nothing). While a case's
factory runs, the base class's __new__ records each instance's call, so the argument search knows every
argument as written, positional ones included, and rebuilds a layer from the same objects (an initializer, a
dtype) with only the tested setting changed. Plain Python: __new__ receives the constructor's arguments.
"""
from __future__ import annotations

import ast
import inspect
import re
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

Calls = Dict[int, Tuple[Any, Tuple[Any, ...], Dict[str, Any]]]  # id(instance) -> (instance, args, kwargs)


def own_signature(cls: type) -> inspect.Signature:
    """The constructor's own signature. A decorator that wraps __init__ as (*args, **kwargs) without
    functools.wraps (MindSpore's opt_init_args_register, deprecation wrappers) keeps the function it wraps in its
    closure: follow the closures to the first function with named parameters."""
    func = cls.__init__
    for _ in range(4):
        sig = inspect.signature(func)
        if not _only_variadic(sig):
            return sig
        inner = [c.cell_contents for c in getattr(func, "__closure__", None) or () if inspect.isfunction(c.cell_contents)]
        if not inner:
            break
        func = inner[0]
    sig = inspect.signature(func)
    return (documented_signature(inspect.getdoc(cls) or "") or sig) if _only_variadic(sig) else sig


def _only_variadic(sig: inspect.Signature) -> bool:
    return all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for n, p in sig.parameters.items() if n != "self")


class _Unreadable:
    """A documented default no Python literal says (`mstype.float32`): the class's own default stays."""

    def __repr__(self) -> str:
        return "<documented default>"


UNREADABLE = _Unreadable()
_ARG = re.compile(r"^(\w+) \(([^)]*)\)(?:, optional)?:(.*)$")
_DEFAULT = re.compile(r"Default:?\s*``(.+?)``", re.S)


def documented_signature(doc: str) -> Optional[inspect.Signature]:
    """(self, <the docstring's Args, in order>) for a constructor that takes only *args/**kwargs and hands them
    on (MindSpore's nn.RNN): the names and defaults its documentation gives, so a call binds by position and a
    layer can be rebuilt by keyword. None when the docstring lists no arguments."""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() in ("Args:", "Parameters:"))
    except StopIteration:
        return None
    found: List[Tuple[str, str]] = []
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith(" "):
            break  # the next section
        m = _ARG.match(line[4:]) if line.startswith("    ") and not line.startswith("     ") else None
        if m:
            found.append((m.group(1), m.group(3)))
        elif found and line.strip():
            found[-1] = (found[-1][0], found[-1][1] + " " + line.strip())
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for name, text in found:
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=_default(text)))
    try:
        return inspect.Signature(params) if found else None
    except ValueError:  # a documented order no Python signature can have (a required name after a default)
        return None


def _default(text: str) -> Any:
    m = _DEFAULT.search(text)
    if m is None:
        return inspect.Parameter.empty if "Default" not in text else UNREADABLE
    try:
        return ast.literal_eval(m.group(1).strip())
    except (ValueError, SyntaxError):
        return UNREADABLE


@contextmanager
def caught_constructors(base: type) -> Iterator[Calls]:
    """Record the constructor call of every instance of `base` (or a subclass) created inside the block.

    `base` must define its own __new__ taking the constructor's arguments (mindspore.nn.Cell does): CPython
    cannot give a class back object.__new__ once it was replaced (object.__new__ then refuses arguments)."""
    if "__new__" not in vars(base):
        raise TypeError(f"{base.__name__} defines no __new__ of its own; catch calls on the class that does")
    calls: Calls = {}
    original = vars(base)["__new__"]
    new = original.__func__ if isinstance(original, staticmethod) else original

    def recording(cls: type, *args: Any, **kwargs: Any) -> Any:
        obj = new(cls, *args, **kwargs)
        calls[id(obj)] = (obj, args, dict(kwargs))
        return obj

    base.__new__ = recording  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        base.__new__ = original  # type: ignore[method-assign]


def built_with_calls(factory: Callable[[], Any], base: type) -> Tuple[Any, Calls]:
    with caught_constructors(base) as calls:
        built = factory()
    return built, calls


def bound_arguments(obj: Any, calls: Calls) -> Optional[Dict[str, Any]]:
    """The arguments obj's constructor was called with, by parameter name (defaults not filled in); None when
    the call was not caught or does not bind to the signature."""
    entry = calls.get(id(obj))
    if entry is None or entry[0] is not obj:
        return None
    _, args, kwargs = entry
    sig = own_signature(type(obj))
    try:
        bound = sig.bind(None, *args, **kwargs)
    except TypeError:
        return None
    out: Dict[str, Any] = {}
    for name, value in list(bound.arguments.items())[1:]:  # [0]: self
        if sig.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif sig.parameters[name].kind is not inspect.Parameter.VAR_POSITIONAL:
            out[name] = value
    return out
