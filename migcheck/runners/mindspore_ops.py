"""Op-level tracing of one MindSpore cell's own construct, in PYNATIVE, through public call points only.

While the cell runs, the public call points are wrapped and put back afterwards: the functions of
`mindspore.ops`, the methods and operators of `mindspore.Tensor`, `Primitive.__call__` (of every
Primitive class that defines one) and `Cell.__call__` (to know when a child cell is running). A call is
recorded when the traced cell's own construct makes it directly: not inside a child cell, not inside
another recorded op. A re-run can change one recorded call (runners/base.OpChange): an argument by
name, a primitive's constructor argument, its results swapped, or the op dropped.
"""
from __future__ import annotations

import contextlib
import inspect
from dataclasses import replace
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import mindspore as ms
import numpy as np

from migcheck.records.ops import OpChange, OpRecord
from migcheck.runners.mindspore_bound import rebound
from migcheck.runners.mindspore_change import changed_arguments, nan_results, sorted_results, unselected_filled
from migcheck.runners.mindspore_context import pynative
from migcheck.runners.mindspore_functions import public_function
from migcheck.runners.mindspore_held import HeldErrors
from migcheck.runners.op_text import index_text, written_back
from migcheck.util.tree import contiguous
from migcheck.runners.mindspore_module import as_ms_args, ms_dtype

TENSOR = "<tensor>"
CHILD = "cell:"  # a marker record: the traced construct called this child (no inputs or outputs kept)
_OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__matmul__", "__rmatmul__", "__pow__", "__neg__", "__getitem__", "__lt__", "__gt__", "__le__", "__ge__",
              "__and__", "__or__", "__invert__", "__floordiv__", "__mod__", "__eq__", "__ne__")
_QUIET = frozenset({"asnumpy", "numpy", "item", "tolist", "init_data", "set_dtype", "data_sync", "has_init",
                    "is_persistent_data", "is_contiguous", "contiguous", "dim", "ndimension", "storage_offset",
                    "stride", "data_ptr", "element_size", "nbytes", "itemsize", "is_complex", "is_floating_point",
                    "is_signed", "copy_", "assign_value", "set_const_arg", "flush_from_cache", "offload",
                    "asnumpy_of_slice_persistent_data", "slice_num_of_persistent_data", "get_bytes", "to"})


class _State:
    def __init__(self, change: Optional[OpChange], limit: int) -> None:
        self.cells = 0
        self.ops = 0
        self.records: List[OpRecord] = []
        self.count = 0
        self.change = change
        self.limit = limit
        self.children: Dict[int, str] = {}  # id of each sub-cell -> its name under the traced cell
        self.slices: Dict[int, Tuple[Any, Any, Any]] = {}  # id of an index result -> (it, its base, the index)


_STATE: Optional[_State] = None


def _plain(value: Any) -> Any:
    if isinstance(value, (ms.Tensor, np.ndarray)):
        return TENSOR
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return f"<{value}>"


def _tensors(value: Any) -> List[np.ndarray]:
    if isinstance(value, ms.Tensor):
        t = value.astype(ms.float32) if value.dtype == ms.bfloat16 else value
        return [t.asnumpy().copy()] if value.size <= 1 << 20 else []
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _tensors(v)]
    return []


def _names(original: Any, skip_first: bool, fallback: Any = None) -> Tuple[str, ...]:
    for fn in (original, fallback):
        if fn is None:
            continue
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        params = params[1:] if skip_first and params else params
        return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return ()


def _defaults(original: Any, skip_first: bool, fallback: Any = None) -> Tuple[Tuple[str, Any], ...]:
    """Parameters with a plain default, which a call that does not pass them still uses."""
    for fn in (original, fallback):
        if fn is None:
            continue
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        params = params[1:] if skip_first and params else params
        return tuple((p.name, p.default) for p in params if p.default is not p.empty
                     and (p.default is None or isinstance(p.default, (bool, int, float, str))))
    return ()


def _widen(value: Any) -> Any:
    return value.astype(ms.float64) if isinstance(value, ms.Tensor) and value.dtype in (ms.float16, ms.float32) \
        else value


def init_args(prim: Any) -> Dict[str, Any]:
    """A primitive's constructor arguments: its init_attrs, and for the generated primitives that keep them as
    plain attributes instead (ops.LRN's alpha), each __init__ parameter read off the instance."""
    out = {k: v for k, v in dict(getattr(prim, "init_attrs", {})).items() if k != "name"}
    try:
        params = inspect.signature(type(prim).__init__).parameters
    except (TypeError, ValueError):
        return out
    for name in params:
        if name != "self" and name not in out and name in vars(prim):
            out[name] = vars(prim)[name]
    return out


def _wrap(name: str, original: Callable, names: Tuple[str, ...], primitive: bool = False, doc: str = "",
          defaults: Tuple[Tuple[str, Any], ...] = ()) -> Callable:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        st = _STATE
        if st is None or st.ops or st.cells != 1:
            return original(*args, **kwargs)
        index, st.count = st.count, st.count + 1
        op_name = type(args[0]).__name__ if primitive and args else name  # MirrorPad, not the Primitive it inherits from
        op_doc = (inspect.getdoc(type(args[0])) or doc) if primitive and args else doc
        prim, call_args = (args[0], args[1:]) if primitive else (None, args)
        change = st.change if st.change is not None and (st.change.index == index or index in st.change.also or (
            st.change.like and st.change.like == (op_name, tuple(_plain(a) for a in call_args)))
            or index in st.change.drops) else None
        init = tuple((k, _plain(v)) for k, v in init_args(prim).items()) if primitive else ()
        kept = _inplace(name, call_args)
        st.ops += 1
        try:
            plain = change is None or change.replace or index in change.drops
            run_args, run_kwargs = (call_args, kwargs) if plain else changed_arguments(change, names, call_args, kwargs)
            narrow = next((a.dtype for a in list(call_args) + list(kwargs.values()) if isinstance(a, ms.Tensor)
                           and a.dtype in (ms.float16, ms.float32)), ms.float32)
            if change is not None and change.precise:  # computed in float64, handed back in its inputs' dtype
                run_args = tuple(_widen(a) for a in run_args)
                run_kwargs = {k: _widen(v) for k, v in run_kwargs.items()}
            if change is not None and index in change.drops:  # computed by the function put in an earlier call
                out = next(a for a in list(call_args) + list(kwargs.values()) if isinstance(a, ms.Tensor))
            elif change is not None and change.replace:  # another public function in the op's place
                given = [a for a in list(call_args) + list(kwargs.values()) if isinstance(a, ms.Tensor)]
                tensors = {k: given[i] for k, i in change.tensors}
                if change.lift:  # the next-dimension sibling over a unit axis
                    first = change.tensors[0][0]
                    tensors[first] = ms.ops.expand_dims(tensors[first], -2)
                out = public_function(change.replace)(**{**tensors, **dict(change.arguments)})
                if change.lift:
                    out = ms.ops.squeeze(out, -2)
            elif primitive:
                target = prim
                if change is not None and change.init:
                    target = type(prim)(**{**init_args(prim), **dict(change.init)})
                out = original(target, *run_args, **run_kwargs)
            else:
                out = original(*run_args, **run_kwargs)
            if change is not None and change.result_dtype and isinstance(out, ms.Tensor):
                out = out.astype(ms_dtype(change.result_dtype))
            if change is not None and change.scale and isinstance(out, ms.Tensor):
                out = _scaled(out, change, call_args)
            if change is not None and change.precise and isinstance(out, ms.Tensor) and out.dtype == ms.float64:
                out = out.astype(narrow)
            if change is not None and change.reduce_out and isinstance(out, ms.Tensor):  # a reduction torch makes
                out = getattr(ms.ops, change.reduce_out[0])(out, change.reduce_out[1])
            if change is not None and change.nan_rule:
                out = nan_results(out, call_args, kwargs, change.nan_rule)
            if change is not None and change.empty_fill is not None:
                out = unselected_filled(out, call_args, kwargs, change.empty_fill)
            if change is not None and change.sort_out:
                out = sorted_results(out, change.sort_out == "descending")
            if change is not None and change.transpose_out and isinstance(out, (tuple, list)):
                out = type(out)(ms.ops.swapaxes(o, -2, -1) if k in change.transpose_out else o for k, o in enumerate(out))
        except Exception:  # kept with its inputs (the op that raised), then raised on
            st.ops -= 1
            _keep(st, OpRecord(index, op_name, tuple(_plain(a) for a in call_args), _keywords(kwargs, names, call_args,
                                                                                           defaults),
                               tuple(a for v in list(call_args) + list(kwargs.values()) for a in _tensors(v)), (),
                               names, init, op_doc, raised=True))
            raise
        try:
            if change is not None and change.swap_outputs and isinstance(out, (tuple, list)):
                out = type(out)(reversed(out))
            if change is not None and change.drop:
                out = next(a for a in call_args if isinstance(a, ms.Tensor))
            inputs = tuple(a for v in list(call_args) + list(kwargs.values()) for a in _tensors(v))
            outputs = tuple(_tensors(out))
            unchanged = kept is not None and _unchanged(kept, call_args[0], out)
            if name == "Tensor.__getitem__" and len(call_args) == 2 and isinstance(out, ms.Tensor):
                st.slices[id(out)] = (out, call_args[0], call_args[1])
            sliced = st.slices.get(id(call_args[0])) if kept is not None else None
            sliced = sliced if sliced is not None and sliced[0] is call_args[0] else None
            # MindSpore's index result is a copy: an in-place call on it leaves the base as it was
            detached = "" if sliced is None or written_back(sliced, out) else index_text(sliced[2])
            if change is not None and change.write_back and isinstance(out, ms.Tensor):
                call_args[0].assign_value(out)  # what the in-place call was meant to do
                if sliced is not None:  # ... through the index, into the tensor it was taken from
                    sliced[1][sliced[2]] = out
        finally:
            st.ops -= 1
        if kept is not None:  # an in-place call's input is its tensor before the call
            inputs = (kept,) + inputs[1:]
        _keep(st, OpRecord(index, op_name, tuple(_plain(a) for a in call_args),
                           _keywords(kwargs, names, call_args, defaults), inputs, outputs, names, init, op_doc,
                           unchanged_self=unchanged, sliced_by=detached))
        return out

    return wrapper


def _scaled(out: Any, change: OpChange, call_args: tuple) -> Any:
    """The op's result times change.scale, everywhere or where its first tensor input is negative."""
    if not change.scale_negative:
        return out * change.scale
    x = next(a for a in call_args if isinstance(a, ms.Tensor))
    return ms.ops.where(x < 0, out * change.scale, out)


def _inplace(name: str, call_args: tuple) -> Optional[np.ndarray]:
    """An in-place Tensor method's tensor before the call (`Tensor.mul_`: named with one trailing underscore)."""
    method = name[len("Tensor."):] if name.startswith("Tensor.") else ""
    if not method.endswith("_") or method.endswith("__") or not call_args or not isinstance(call_args[0], ms.Tensor):
        return None
    before = _tensors(call_args[0])
    return before[0] if before else None


def _unchanged(before: np.ndarray, tensor: Any, out: Any) -> bool:
    """The in-place call returned another value and left its tensor as it was (PYNATIVE in-place methods that
    return a new tensor)."""
    after, result = _tensors(tensor), _tensors(out)
    return (len(after) == 1 and len(result) == 1 and after[0].shape == before.shape
            and np.array_equal(after[0], before, equal_nan=True)
            and not (result[0].shape == before.shape and np.array_equal(result[0], before, equal_nan=True)))


def _keywords(kwargs: dict, names: Tuple[str, ...], call_args: tuple, defaults: Tuple[Tuple[str, Any], ...]
              ) -> Tuple[Tuple[str, Any], ...]:
    """The call's keywords, then the defaults it used without saying."""
    given = set(names[:len(call_args)]) | set(kwargs)
    return tuple((k, _plain(v)) for k, v in kwargs.items()) + tuple((k, v) for k, v in defaults if k not in given)


def _keep(st: _State, record: OpRecord) -> None:
    # a call with no tensor in or out is no value to align, unless it raised (blackman_window(9) refusing an int)
    if (record.inputs or record.outputs or record.raised) and len(st.records) < st.limit:
        st.records.append(record)


def _cell_call(original: Callable) -> Callable:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        st = _STATE
        if st is None or st.ops:
            return original(self, *args, **kwargs)
        marker = None
        if st.cells == 1 and id(self) in st.children:  # a child called by the traced construct: a marker
            marker = len(st.records)
            st.records.append(OpRecord(-1, f"{CHILD}{st.children[id(self)]}", (), (), (), ()))
        st.cells += 1
        try:
            if getattr(self, "mixed_precision_type", None) is not None:
                out = _held_call(original, self, args, kwargs)
            else:
                out = original(self, *args, **kwargs)
        finally:
            st.cells -= 1
        if marker is not None:  # what the child returned: a value the construct computed, not a constant
            st.records[marker] = replace(st.records[marker], outputs=tuple(_tensors(out)))
        return out

    return wrapper


def _held_call(original: Callable, cell: Any, args: tuple, kwargs: dict) -> Any:
    """Cell.__call__ on a cell with a mixed-precision type (to_float), its construct's exception held and
    re-raised after the call. Cell.__call__ pushes that type before construct and pops it only when construct
    returns: a construct that raised (a changed re-run that breaks) would leave every later op of the process,
    other cases included, in float16, and MindSpore 2.10 has no public call that pops it. So construct returns a
    placeholder and the exception is raised once Cell.__call__ has popped the type itself (the same holding as
    around mindspore.grad: runners/mindspore_held.py)."""
    held = HeldErrors(cell.construct)
    object.__setattr__(cell, "construct", held.function())  # the instance attribute shadows the class's construct
    try:
        out = original(cell, *args, **kwargs)
    finally:
        object.__delattr__(cell, "construct")
    held.reraise()
    return out


def _subclasses(cls: type) -> List[type]:
    out, seen, stack = [], set(), [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:  # a set: the list's `in` made this quadratic in MindSpore's ~1,900 primitives
                seen.add(sub)
                out.append(sub)
                stack.append(sub)
    return out


_WRAPPERS: Dict[Tuple[Any, str, Any], Any] = {}  # (owner, attribute, original) -> its wrapper, built once


def _wrapper(owner: Any, attr: str, original: Any, build: Callable[[], Any]) -> Any:
    """The wrapper of one call point, built once per process: reading signatures and docstrings of some 2,400
    call points (inspect.signature) is most of a trace's cost, and localization traces a cell many times. Keyed
    by the original too, so a call point replaced since (a test's monkeypatch) gets a wrapper of its own."""
    key = (owner, attr, original)
    if key not in _WRAPPERS:
        _WRAPPERS[key] = build()
    return _WRAPPERS[key]


def _patches() -> List[Tuple[Any, str, Any]]:
    """(owner, attribute, wrapper) for every public call point."""
    call = ms.nn.Cell.__call__
    out: List[Tuple[Any, str, Any]] = [(ms.nn.Cell, "__call__", _wrapper(ms.nn.Cell, "__call__", call,
                                                                          lambda: _cell_call(call)))]
    for name in dir(ms.ops):
        fn = getattr(ms.ops, name)
        if not name.startswith("_") and inspect.isfunction(fn):
            out.append((ms.ops, name, _wrapper(ms.ops, name, fn, lambda: _wrap(
                name, fn, _names(fn, False), doc=inspect.getdoc(fn) or "", defaults=_defaults(fn, False)))))
    for name in list(_OPERATORS) + [n for n in dir(ms.Tensor) if not n.startswith("_") and n not in _QUIET]:
        static = inspect.getattr_static(ms.Tensor, name, None)
        if static is None or isinstance(static, property) or not callable(getattr(ms.Tensor, name, None)):
            continue
        fallback = getattr(ms.ops, name, None) if inspect.isfunction(getattr(ms.ops, name, None)) else None
        method = getattr(ms.Tensor, name)
        out.append((ms.Tensor, name, _wrapper(ms.Tensor, name, (method, fallback), lambda: _wrap(
            f"Tensor.{name}", method, _names(method, False) or _names(fallback, False),
            defaults=_defaults(method, False, fallback)))))
    for cls in [ms.ops.Primitive] + _subclasses(ms.ops.Primitive):
        call = cls.__dict__.get("__call__")
        if call is not None:
            out.append((cls, "__call__", _wrapper(cls, "__call__", call, lambda: _wrap(
                cls.__name__, call, _names(call, True), primitive=True, doc=inspect.getdoc(cls) or "",
                defaults=_defaults(call, True)))))
    return out


@contextlib.contextmanager
def _wrapped(cell: Any, change: Optional[OpChange], limit: int) -> Iterator[_State]:
    """The public call points wrapped and one call's state set, `cell` in eval mode in PYNATIVE, for the block;
    everything put back afterwards (trace and vjp_changed share it)."""
    global _STATE
    stack = contextlib.ExitStack()
    patches = _patches()
    saved: List[Tuple[Any, str, bool, Any]] = [(o, n, n in o.__dict__, o.__dict__.get(n)) for o, n, _ in patches]
    functions = {id(getattr(o, n)): w for o, n, w in patches if o is ms.ops}  # the originals a port may bind
    try:
        for owner, name, wrapper in patches:
            setattr(owner, name, wrapper)
        stack.enter_context(rebound(cell, functions))
        _STATE = _State(change, limit)
        _STATE.children = {id(c): n for n, c in cell.cells_and_names() if n}
        with pynative():
            was = bool(cell.training)
            cell.set_train(False)
            try:
                yield _STATE
            finally:
                cell.set_train(was)
    finally:
        _STATE = None
        stack.close()
        for owner, name, had, value in saved:
            if had:
                setattr(owner, name, value)
            else:
                delattr(owner, name)


def trace(cell: Any, inputs: Sequence[np.ndarray], to_numpy: Callable[[Any], Any], change: Optional[OpChange] = None,
          limit: int = 256) -> Tuple[List[OpRecord], Any]:
    """(the calls `cell`'s own construct made, its output as numpy) for one PYNATIVE call on `inputs`."""
    with _wrapped(cell, change, limit) as state:
        try:
            out = cell(*as_ms_args(inputs))
        except Exception:  # a change that breaks a later op: the calls recorded up to there still count
            if change is None:
                raise
            out = None
        records = state.records
    return records, None if out is None else to_numpy(out)


def call_function(name: str, tensors: Dict[str, np.ndarray], kwargs: Dict[str, Any]) -> List[np.ndarray]:
    """The function functions_like names (mindspore.ops.<name>, mindspore.numpy's) once, with (**tensors, **kwargs), in PYNATIVE; its tensor results as numpy."""
    with pynative():
        out = public_function(name)(**{k: ms.Tensor(contiguous(v)) for k, v in tensors.items()}, **kwargs)
    return _tensors(out)


def vjp_changed(cell: Any, inputs: Sequence[np.ndarray], cotangent: np.ndarray, change: OpChange,
                to_numpy: Callable[[Any], Any]) -> Tuple[Any, Tuple[Any, ...]]:
    """(output, gradients with respect to its inputs) of `cell` on `inputs` for the output gradient `cotangent`,
    with one call of its own construct changed (mindspore.vjp in PYNATIVE, the call points wrapped meanwhile)."""
    with _wrapped(cell, change, 256):
        held = HeldErrors(cell)
        out, fn = ms.vjp(held.function(), *[ms.Tensor(contiguous(x)) for x in inputs])
        held.reraise()
        grads = fn(ms.Tensor(contiguous(cotangent)))
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    return to_numpy(out), tuple(to_numpy(g) for g in grads)
