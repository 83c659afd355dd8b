"""A MindSpore factory that raises while it builds the port: which layer's constructor raised, with which
arguments, and that constructor called again with other arguments.

The factory is re-run with every Cell's constructor call caught (construction.py). The exception's frames say
which object was being initialised: the innermost frame whose `self` is a Cell caught in that run is the layer
whose constructor raised (a validator MindSpore calls from it has no `self` of that kind). The frame around it
(its parent's __init__) says the attribute it was going to be assigned to, read off that source line
(`self.dropout = nn.Dropout(0.0)`). Plain Python: frames, linecache and the public mindspore.nn classes.
"""
from __future__ import annotations

import linecache
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import mindspore as ms
import numpy as np

from migcheck.runners.base import Constructor
from migcheck.runners.construction import caught_constructors, own_signature
from migcheck.runners.mindspore_args import called_arguments
from migcheck.runners.mindspore_context import pynative
from migcheck.runners.arguments import docstring
from migcheck.util.tree import contiguous

_ASSIGNED = re.compile(r"^\s*self\.(\w+)\s*(?::[^=]+)?=(?!=)")


@dataclass(frozen=True)
class FailedConstruction:
    """The constructor call that raised: the layer's class and arguments as the port called them."""

    path: str  # dotted attribute path from the network ("dropout", "block.norm"); "" when it cannot be told
    constructor: Constructor  # every named argument: the value passed, or the default left in place
    passed: Tuple[Tuple[str, Any], ...]  # the arguments the call itself gave, by parameter name, in order
    positional: Tuple[str, ...]  # the names the call's positional arguments bound to, in order
    index: int  # how many objects of that exact class were built before it in the same factory run
    message: str  # the exception's first line
    error: str  # the exception's class name
    member: str = ""  # a port's own cell that raised building a non-cell member (`self.ctc = ops.CTCLossV2(...)`)

    def call_text(self, changes: Optional[Mapping[str, Any]] = None) -> str:
        """The call as the port wrote it (positional ones positionally), or with `changes` as keywords."""
        prefix = "nn." if self.constructor.library else ""
        if changes is None:
            given = dict(self.passed)
            parts = [repr(given[n]) for n in self.positional]
            parts += [f"{k}={v!r}" for k, v in self.passed if k not in self.positional]
        else:
            parts = [f"{k}={v!r}" for k, v in changes.items()]
        return f"{prefix}{self.constructor.kind}({', '.join(parts)})"


def _frames(exc: BaseException) -> List[Any]:
    out, tb = [], exc.__traceback__
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _attribute(frame: Any) -> str:
    """The `self.<name> = ...` the frame's current line assigns (a call spread over lines: looked for above)."""
    code = frame.f_code
    for line in range(frame.f_lineno, max(code.co_firstlineno, frame.f_lineno - 6) - 1, -1):
        m = _ASSIGNED.match(linecache.getline(code.co_filename, line))
        if m:
            return m.group(1)
    return ""


def failed_construction(factory: Callable[[], Any]) -> Optional[FailedConstruction]:
    """The factory run once more; None when it builds (the failure lies elsewhere) or no Cell was being built."""
    with caught_constructors(ms.nn.Cell) as calls:
        try:
            factory()
        except Exception as exc:  # the raise we are here to explain
            raised = exc
        else:
            return None
    chain = []  # the Cells being initialised, outermost first, each with the frame that was building it
    for frame in _frames(raised):
        obj = frame.f_locals.get("self")
        if isinstance(obj, ms.nn.Cell) and id(obj) in calls and calls[id(obj)][0] is obj:
            if not chain or chain[-1][0] is not obj:
                chain.append((obj, frame))
            else:
                chain[-1] = (obj, chain[-1][1])
    if not chain:
        return None
    obj, _ = chain[-1]
    names = [_attribute(frame) for _, frame in chain[:-1]]
    path = ".".join(names) if all(names) else ""
    _, args, kwargs = calls[id(obj)]
    cls = type(obj)
    params = [n for n, p in own_signature(cls).parameters.items()
              if n != "self" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    positional = tuple(params[:len(args)])
    passed = tuple(list(zip(positional, args)) + list(kwargs.items()))
    arguments = called_arguments(cls, dict(passed))
    library = cls.__module__.split(".")[0] == "mindspore"
    constructor = Constructor(cls.__name__, library, arguments, docstring(cls) if library else "")
    order = list(calls)  # in construction order
    index = sum(1 for key in order[:order.index(id(obj))] if type(calls[key][0]) is cls)
    first = (str(raised).strip().splitlines() or [""])[0]
    member = "" if library else _attribute(chain[-1][1])  # the port's own __init__ line that raised
    return FailedConstruction(path, constructor, passed, positional, index, first[:300], type(raised).__name__,
                              member)


def _class_of(failed: FailedConstruction) -> type:
    for module in (ms.nn, ms.nn.layer):
        cls = getattr(module, failed.constructor.kind, None)
        if isinstance(cls, type):
            return cls
    raise LookupError(f"{failed.constructor.kind} is not a public mindspore.nn class")


def construct_and_run(factory: Callable[[], Any], failed: FailedConstruction, kwargs: Mapping[str, Any],
                      inputs: Sequence[np.ndarray], train: bool, to_numpy: Callable[[Any], Any],
                      params: Sequence[np.ndarray] = ()) -> Any:
    """The failed layer's class built from `kwargs` (it must not raise) and run on given inputs in PYNATIVE;
    `params`: values for its parameters in its own order (torch's layer's, of the same shapes)."""
    cls = _class_from_factory(factory, failed)
    with pynative():
        layer = cls(**kwargs)
        own = [p for _, p in layer.parameters_and_names()]
        if len(own) != len(params) or any(not _same_layout(tuple(p.shape), tuple(np.shape(v)))
                                          for p, v in zip(own, params)):
            if own:
                raise ValueError("the layer's parameters do not match torch's one by one: not re-run")
        for p, v in zip(own, params):  # a unit axis one side keeps (Conv1d's (C, C/g, 1, k) weight) is reshaped away
            p.set_data(ms.Tensor(contiguous(np.asarray(v, dtype=np.float32).reshape(tuple(p.shape)))))
        layer.set_train(train)
        out = layer(*[ms.Tensor(contiguous(x)) for x in inputs])
        return to_numpy(out)


def constructs(factory: Callable[[], Any], failed: FailedConstruction, kwargs: Mapping[str, Any]) -> bool:
    """Whether the failed layer's class builds from `kwargs` (nothing run)."""
    cls = _class_from_factory(factory, failed)
    with pynative():
        try:
            cls(**kwargs)
        except Exception:  # still refused: the change does not build
            return False
    return True


def _same_layout(a: Tuple[int, ...], b: Tuple[int, ...]) -> bool:
    """Equal shapes, or equal once unit axes are left out (the same values in the same order)."""
    return a == b or tuple(n for n in a if n != 1) == tuple(n for n in b if n != 1)


def _class_from_factory(factory: Callable[[], Any], failed: FailedConstruction) -> type:
    """The class of the layer that raised, caught again from the factory (a port's own class included)."""
    try:
        return _class_of(failed)
    except LookupError:
        pass
    with caught_constructors(ms.nn.Cell) as calls:
        try:
            factory()
        except Exception:  # expected: it is the call that raised
            pass
    for obj, _, _ in calls.values():
        if type(obj).__name__ == failed.constructor.kind:
            return type(obj)
    raise LookupError(f"no {failed.constructor.kind} built by the factory")


@contextmanager
def _replaced(cls: type, index: int, kwargs: Mapping[str, Any]) -> Iterator[None]:
    """While the block runs, the index-th object of exactly `cls` is initialised with `kwargs` instead."""
    original = cls.__dict__.get("__init__")
    init = cls.__init__
    seen = [0]

    def patched(self: Any, *args: Any, **kw: Any) -> None:
        if type(self) is cls:
            seen[0] += 1
            if seen[0] - 1 == index:
                return init(self, **kwargs)
        return init(self, *args, **kw)

    cls.__init__ = patched  # type: ignore[misc]
    try:
        yield
    finally:
        if original is None:
            del cls.__init__
        else:
            cls.__init__ = original  # type: ignore[misc]


def patched_factory(factory: Callable[[], Any], failed: FailedConstruction, kwargs: Mapping[str, Any]
                    ) -> Callable[[], Any]:
    """The case's factory with the failed call made with `kwargs` instead (the whole network's re-run)."""
    cls = _class_from_factory(factory, failed)

    def build() -> Any:
        with _replaced(cls, failed.index, kwargs):
            return factory()

    return build


def keyword_call(failed: FailedConstruction) -> Dict[str, Any]:
    """The call's arguments by keyword (what a changed call starts from)."""
    return dict(failed.passed)
