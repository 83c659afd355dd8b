"""How a side's callable is fed the case's inputs: by keyword or by position (pure: inspect only).

The rule, per side: when the case names its inputs (a dict) and the callable has a parameter of that
name for every network input, all of them are passed by keyword (a port whose second positional
parameter is `past_key_values` still gets `attention_mask=` right), unless they are its leading
parameters in that order (then position means the same, and sub-module hooks see the inputs).
Otherwise they are passed by position, in the order the case lists them, as before. A mix (some names match a parameter at another
position) would feed a tensor to the wrong parameter silently, so it is refused with the fix.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence, Tuple


class CallStyleError(TypeError):
    """The case's input names and the callable's signature disagree in a way position cannot fix."""


def signature_of(fn: Callable[..., Any]) -> Optional[inspect.Signature]:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # builtins, C extensions: no signature to read
        return None


def keyword_names(fn: Callable[..., Any], names: Sequence[str], what: str) -> Tuple[str, ...]:
    """The names to pass by keyword (all of `names`), or () to pass them by position.

    what: how to name the callable in an error, e.g. "the torch module's forward".
    """
    if not names:
        return ()
    sig = signature_of(fn)
    if sig is None:
        return ()
    params = [p for p in sig.parameters.values() if p.name != "self"]
    by_keyword = {p.name: i for i, p in enumerate(params)
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if list(names) == positional[:len(names)]:
        return ()  # the leading parameters in order: position means the same, and forward hooks see the inputs
    if all(n in by_keyword for n in names):
        return tuple(names)
    for i, name in enumerate(names):
        if name in by_keyword and (i >= len(positional) or positional[i] != name):
            missing = [n for n in names if n not in by_keyword]
            raise CallStyleError(
                f"input {name!r} names parameter {by_keyword[name] + 1} of {what}{sig}, but by position it would be"
                f" passed as argument {i + 1}; rename input(s) {', '.join(map(repr, missing))} after parameters of"
                f" {what} so that every input is passed by keyword, or rename {name!r} so that none is")
    return ()


def split_call(args: Sequence[Any], keywords: Tuple[str, ...]) -> Tuple[Tuple[Any, ...], dict]:
    """(positional args, keyword args) for one call: keywords name the leading args when given."""
    if not keywords:
        return tuple(args), {}
    return tuple(args[len(keywords):]), dict(zip(keywords, args))
