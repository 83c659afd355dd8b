"""The MindSpore half of the argument search: a cell's constructor arguments, the cell rebuilt with some
changed and run on given inputs, and other mindspore.nn classes built and run in its place.

Only public API: inspect on the cell's class, mindspore.nn's public classes, Cell.parameters_and_names.
"""
from __future__ import annotations

import contextlib
import difflib
import inspect
import logging
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import mindspore as ms
import numpy as np

from migcheck.runners.arguments import MISSING, docstring, plain, read_arguments
from migcheck.runners.base import Argument, Constructor, TensorValue
from migcheck.runners.construction import own_signature
from migcheck.runners.mindspore_context import pynative
from migcheck.runners.mindspore_objective import MindSporeSideError
from migcheck.util.tree import contiguous, lenient
from migcheck.runners.mindspore_module import as_ms_args

_CELL_OWN = ("auto_prefix", "flags")  # Cell.__init__'s own arguments: nothing a port chose


def _to_list(value: Any) -> Any:
    if isinstance(value, ms.Tensor) and value.size <= 64:
        return value.asnumpy().tolist()
    if isinstance(value, np.ndarray) and value.size <= 64:
        return value.tolist()
    return MISSING


def _library(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "mindspore"


def constructor(cell: Any, call: Optional[Mapping[str, Any]] = None) -> Constructor:
    """The cell's class and arguments: as its constructor was called where the call was caught (construction.py),
    else read back off the built cell."""
    cls = type(cell)
    args = called_arguments(cls, call) if call is not None else read_arguments(cell, _to_list, skip=_CELL_OWN)
    return Constructor(cls.__name__, _library(cls), args, docstring(cls) if _library(cls) else "",
                       any(True for _ in cell.parameters_and_names()))


def called_arguments(cls: type, call: Mapping[str, Any]) -> Tuple[Argument, ...]:
    """Every named argument of the constructor: the value the call passed, or the default it left in place
    (known, so found); a value that is no plain python value (an initializer, a dtype) is not found."""
    out = []
    for name, p in own_signature(cls).parameters.items():
        if name == "self" or name in _CELL_OWN or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        has_default = p.default is not inspect.Parameter.empty
        default = plain(p.default, _to_list) if has_default else MISSING
        value = plain(call[name], _to_list) if name in call else default
        annotation = "" if p.annotation is inspect.Parameter.empty else str(p.annotation)
        out.append(Argument(name, None if value is MISSING else value, value is not MISSING, has_default,
                            None if default is MISSING else default, annotation))
    return tuple(out)


def with_call(kwargs: Mapping[str, Any], call: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """kwargs plus what the caught call passed that no plain value could say (an initializer object, a dtype);
    a constant tensor read as numbers (TensorValue) built into a Tensor."""
    kept = {k: v for k, v in (call or {}).items() if k not in kwargs and plain(v, _to_list) is MISSING}
    return {**kept, **{k: _as_tensor(v) for k, v in kwargs.items()}}


def _as_tensor(value: Any) -> Any:
    if not isinstance(value, TensorValue):
        return value
    array = np.asarray(value)
    return ms.Tensor(array.astype(np.float32) if array.dtype.kind == "f" else array)


def _run(new: Any, old: Any, inputs: Sequence[np.ndarray], train: bool, to_numpy: Callable[[Any], Any],
         extra: Optional[Mapping[str, np.ndarray]] = None) -> Any:
    """`new` with `old`'s parameter values copied (same name and shape, else the one of the same shape), run.
    A parameter `old` lacks (a bias the port switched off) takes torch's value of that name from `extra`."""
    have = dict(old.parameters_and_names())
    by_shape: Dict[Tuple[int, ...], List[Any]] = {}
    for p in have.values():
        by_shape.setdefault(tuple(p.shape), []).append(p)
    for name, param in new.parameters_and_names():
        source = have.get(name)
        given = (extra or {}).get(name)
        if source is None and given is not None and tuple(np.shape(given)) == tuple(param.shape):
            param.set_data(ms.Tensor(contiguous(np.asarray(given, dtype=np.float32))))
            continue
        if source is None or tuple(source.shape) != tuple(param.shape):
            same = by_shape.get(tuple(param.shape), [])
            if len(same) != 1:
                # a parameter the change reshaped (PReLU's one slope made per channel): torch's one of that shape
                torch_same = [v for v in (extra or {}).values() if tuple(np.shape(v)) == tuple(param.shape)]
                if len(torch_same) == 1:
                    param.set_data(ms.Tensor(contiguous(np.asarray(torch_same[0], dtype=np.float32))))
                    continue
                raise MindSporeSideError(f"no single parameter of shape {tuple(param.shape)} to copy into '{name}'")
            source = same[0]
        param.set_data(source.value())
    new.set_train(train)
    return with_int32_labels(lambda xs: lenient(new(*as_ms_args(xs)), to_numpy, MindSporeSideError), inputs)


def with_int32_labels(run: Callable[[Sequence[Any]], Any], inputs: Sequence[Any]) -> Any:
    """run(inputs); where it refuses them with a TypeError, run again with torch's int64 indices as int32: a layer
    that takes only int32 labels (nn.CrossEntropyLoss) gets them as the port casts them for it. Any other
    refusal stands."""
    try:
        return run(inputs)
    except TypeError:
        narrowed = [x.astype(np.int32) if isinstance(x, np.ndarray) and x.dtype == np.int64 else x for x in inputs]
        if all(x is y for x, y in zip(narrowed, inputs)):
            raise
        return run(narrowed)


def rebuild_run(cell: Any, kwargs: Mapping[str, Any], inputs: Sequence[np.ndarray], train: bool,
                to_numpy: Callable[[Any], Any], call: Optional[Mapping[str, Any]] = None,
                extra: Optional[Mapping[str, np.ndarray]] = None) -> Any:
    """type(cell)(**kwargs) with the cell's parameters (and torch's for those it lacks), run in PYNATIVE."""
    with pynative():
        return _run(type(cell)(**with_call(kwargs, call)), cell, inputs, train, to_numpy, extra)


def run_live(cell: Any, inputs: Sequence[np.ndarray], train: bool, to_numpy: Callable[[Any], Any]) -> Any:
    """The cell itself in another train/eval state, put back afterwards."""
    was = bool(cell.training)
    try:
        with pynative():
            cell.set_train(train)
            return with_int32_labels(lambda xs: lenient(cell(*as_ms_args(xs)), to_numpy, MindSporeSideError), inputs)
    finally:
        cell.set_train(was)


def _norm(name: str) -> str:
    return name.lower().replace("_", "")


def alternatives(torch_kind: str, wanted: Sequence[str], named: Sequence[str] = (), limit: int = 4
                 ) -> List[Tuple[str, Constructor]]:
    """mindspore.nn classes that may stand for torch's class: those named in `named` (the correspondence
    table's counterpart), those whose name is close to torch's, and those whose constructor takes an argument
    torch set (`wanted`); each with its constructor's arguments at their defaults."""
    scored = []
    for name in dir(ms.nn):
        cls = getattr(ms.nn, name)
        if name.startswith("_") or not isinstance(cls, type) or not issubclass(cls, ms.nn.Cell):
            continue
        try:
            params = inspect.signature(cls.__init__).parameters
        except (TypeError, ValueError):
            continue
        similarity = difflib.SequenceMatcher(None, _norm(name), _norm(torch_kind)).ratio()
        if len(_norm(name)) >= 4 and _norm(name) in _norm(torch_kind):  # its special case's name (L1Loss in
            similarity = max(similarity, 0.8)                            # SmoothL1Loss, whose beta=0 is L1)
        takes = sum(w in params for w in wanted)
        if name in named or similarity >= 0.8 or takes:
            scored.append((name in named, similarity + takes, name))
    out = []
    for _, _, name in sorted(scored, reverse=True)[:limit]:
        cls = getattr(ms.nn, name)
        out.append((name, Constructor(name, True, _defaults(cls), docstring(cls))))
    return out


def _defaults(cls: type) -> Tuple[Any, ...]:
    from migcheck.runners.arguments import plain
    from migcheck.runners.base import Argument

    out = []
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or name in _CELL_OWN or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        has = p.default is not inspect.Parameter.empty
        value = plain(p.default, _to_list) if has else None
        out.append(Argument(name, None if value is MISSING else value, False, has, None if value is MISSING else value))
    return tuple(out)


def run_alternative(cell: Any, class_name: str, kwargs: Mapping[str, Any], inputs: Sequence[np.ndarray],
                    to_numpy: Callable[[Any], Any]) -> Any:
    """mindspore.nn.<class_name>(**kwargs) with the port's cell's parameters, run in PYNATIVE."""
    with pynative(), quiet():
        return _run(getattr(ms.nn, class_name)(**with_call(kwargs, None)), cell, inputs, False, to_numpy)


_DEFAULT_CLASSES: Dict[int, Tuple[str, ...]] = {}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """MindSpore's warnings off while candidate layers are built (a default Dropout warns about keep_prob)."""
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def default_classes(arity: int) -> Tuple[str, ...]:
    """mindspore.nn layers built without arguments and without parameters of their own whose construct takes
    `arity` tensors (optimizers and containers left out): what a parameterless torch layer may be ported as,
    measured by running each. Read once per process from the installed MindSpore."""
    if arity in _DEFAULT_CLASSES:
        return _DEFAULT_CLASSES[arity]
    out = []
    for name in dir(ms.nn):
        cls = getattr(ms.nn, name)
        if name.startswith("_") or not isinstance(cls, type) or not issubclass(cls, ms.nn.Cell) \
                or issubclass(cls, (ms.nn.Optimizer, ms.nn.SequentialCell, ms.nn.CellList, ms.nn.CellDict)) \
                or cls is ms.nn.Cell:
            continue
        try:
            built = inspect.signature(cls.__init__).parameters
            run = inspect.signature(cls.construct).parameters
        except (TypeError, ValueError):
            continue
        if any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n != "self"
               for n, p in built.items()):
            continue
        needed = [n for n, p in run.items() if n != "self" and p.default is p.empty
                  and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(needed) != arity or hasattr(cls.__init__, "__wrapped__"):  # wrapped: a deprecated class
            continue
        try:
            with quiet():
                if list(cls().get_parameters()):  # a fresh layer would not carry the port's weights
                    continue
        except Exception:  # needs an argument after all (GRU(*args))
            continue
        out.append(name)
    _DEFAULT_CLASSES[arity] = tuple(out)
    return _DEFAULT_CLASSES[arity]


def class_defaults(name: str) -> Tuple[Tuple[str, Any], ...]:
    """mindspore.nn.<name>'s constructor defaults that are plain numbers, flags or words (shown in a fix, so it
    does not lean on a default that another version may change)."""
    params = inspect.signature(getattr(ms.nn, name).__init__).parameters
    return tuple((k, p.default) for k, p in params.items() if k != "self" and p.default is not p.empty
                 and isinstance(p.default, (bool, int, float, str)))
