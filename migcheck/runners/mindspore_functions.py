"""mindspore.ops functions named like one of torch's ops (the alternative-API candidates of the op search), read
off the installed MindSpore."""
from __future__ import annotations

import inspect
from typing import Callable, List, Sequence, Tuple

import mindspore as ms


def functions_like(base: str, wanted: Sequence[str] = (), limit: int = 6
                   ) -> List[Tuple[str, Tuple[Tuple[str, bool], ...]]]:
    """mindspore.ops functions named like `base` (torch's op): the same name, names starting with it, names close
    to it, and names that hold it as a word (`vector_norm` for `norm`); those that take more of the parameters in
    `wanted` (the two calls' argument names) first. Each as (name, ((parameter, has a default), ...))."""
    import difflib

    found = []
    for name in dir(ms.ops):
        fn = getattr(ms.ops, name)
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        alike = difflib.SequenceMatcher(None, name, base).ratio()
        # a name that only extends torch's by a few letters (maximum for max) is another form of the same op;
        # a longer one is another op (multinomial for mul)
        longer = name.startswith(base) and len(name) - len(base) <= 4
        if name == base or name.startswith(base + "_") or longer or name.endswith("_" + base) or alike >= 0.85:
            try:
                params = tuple((p.name, p.default is not p.empty) for p in inspect.signature(fn).parameters.values()
                               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
            except (TypeError, ValueError):
                continue
            if params and params[0][0] in ("fn", "func", "fun"):  # a transform of a function (linearize): no op
                continue
            takes = sum(p in wanted for p, _ in params)
            found.append((name != base, _defers(fn), -takes, -alike, name, params))
    return [(name, params) for *_, name, params in sorted(found)[:limit]] + _numpy_namesake(base)


def _numpy_namesake(base: str) -> List[Tuple[str, Tuple[Tuple[str, bool], ...]]]:
    """mindspore.numpy's function of torch's op's very name, as "numpy.<name>": written with other kernels
    than mindspore.ops' (numpy.roll slices and concatenates where ops.roll needs a Roll kernel)."""
    import mindspore.numpy as mnp

    fn = getattr(mnp, base, None)
    if base.startswith("_") or not inspect.isfunction(fn) or fn is getattr(ms.ops, base, None):
        return []
    try:
        params = tuple((p.name, p.default is not p.empty) for p in inspect.signature(fn).parameters.values()
                       if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    except (TypeError, ValueError):
        return []
    return [(f"numpy.{base}", params)]


def public_function(name: str) -> Callable:
    """A function named as functions_like names it: "roll" is mindspore.ops.roll, "numpy.roll" mindspore.numpy's."""
    if name.startswith("numpy."):
        import mindspore.numpy as mnp

        return getattr(mnp, name[len("numpy."):])
    return getattr(ms.ops, name)



def _defers(fn: Callable) -> bool:
    """Its documentation sends the reader to another mindspore.ops function ("Refer to :func:`mindspore.ops.
    gather_elements` for more details"): an alias, tried after the function it names."""
    import re

    return re.search(r"Refer to :func:`mindspore\.ops\.\w+`", inspect.getdoc(fn) or "") is not None
