"""The ops a MindSpore port's own construct calls, recorded by wrapping the public call points (the functions of
mindspore.ops / mindspore.mint and the Tensor methods and operators) for one PYNATIVE forward, and each one's
backward on given inputs and output gradient (mindspore.vjp of that single op): the MindSpore half of the
op-level backward comparison (migcheck.localization.backward_ops). Calls made inside a wrapped call are not
recorded (clip_by_value's own maximum/minimum), so each record is one call the port wrote."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import mindspore as ms

from migcheck.records.ops import OpRecord
from migcheck.runners.mindspore_bound import rebound
from migcheck.runners.mindspore_context import pynative
from migcheck.runners.mindspore_held import HeldErrors

_OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__matmul__", "__rmatmul__", "__pow__", "__rpow__", "__neg__", "__abs__", "__getitem__")
# Reads and conversions: no gradient of their own, and the recorder itself calls some of them.
_QUIET = frozenset({"asnumpy", "numpy", "item", "tolist", "size", "dim", "ndimension", "numel", "shape", "dtype",
                    "is_floating_point", "is_contiguous", "contiguous", "init_data", "set_dtype", "has_init",
                    "register_hook", "storage_offset", "data_ptr", "stride", "strides", "nbytes", "itemsize",
                    "asnumpy_of_slice_persistent_data", "is_persistent_data", "is_complex", "is_signed",
                    "to_coo", "to_csr", "assign_value", "copy_", "detach", "stop_gradient", "is_floating_point",
                    "synchronize", "flush_from_cache", "offload", "ndim", "T", "data", "grad", "requires_grad"})


def _namespaces() -> List[Any]:
    import mindspore.mint
    import mindspore.mint.nn.functional
    import mindspore.ops

    return [mindspore.ops, mindspore.mint, mindspore.mint.nn.functional]


class RecordedOps:
    """One PYNATIVE forward's port-written ops (records) and the live calls behind them (for vjp)."""

    def __init__(self) -> None:
        self.records: List[OpRecord] = []
        self._calls: List[Tuple[Callable, tuple, dict]] = []
        self._stack: List[str] = []
        self._depth = 0
        self.keep: Optional[set] = None  # cells whose own calls are recorded (None: all)

    def run(self, network: Any, call: Callable, args: Sequence[Any], train: bool) -> None:
        patches = self._patches()
        handles = []
        with pynative():
            for name, c in network.cells_and_names():
                handles.append(c.register_forward_pre_hook(functools.partial(self._enter, name)))
                handles.append(c.register_forward_hook(self._leave))
            functions: Dict[int, Any] = {}  # the originals a port may have bound to its own names (ops' first)
            for owner, _, wrapper, original in patches:
                if owner is not ms.Tensor and not isinstance(owner, type):
                    functions.setdefault(id(original), wrapper)
            try:
                for owner, attr, wrapper, _ in patches:
                    setattr(owner, attr, wrapper)
                with rebound(network, functions):
                    network.set_train(train)
                    call(*args)
            finally:
                for owner, attr, _, original in reversed(patches):
                    if original is None:
                        delattr(owner, attr)
                    else:
                        setattr(owner, attr, original)
                for h in handles:
                    h.remove()

    def vjp(self, index: int, inputs: Sequence[np.ndarray], cotangent: np.ndarray, replace: Any = None
            ) -> Tuple[np.ndarray, Tuple[np.ndarray, ...]]:
        """(output, input gradients) of recorded op `index` (or the function `replace` given the same
        arguments) on the given float inputs, for the given output gradient."""
        fn, args, kwargs, pick = self._calls[index]
        if replace is not None and args and isinstance(args[0], ms.ops.Primitive):  # a function takes no instance
            args = args[1:]
        fn = replace if replace is not None else fn
        count = [0]

        def rebuild(value: Any, fresh: Sequence[Any]) -> Any:
            if isinstance(value, ms.Tensor) and ms.ops.is_floating_point(value):
                count[0] += 1
                return fresh[count[0] - 1]
            if isinstance(value, (tuple, list)):
                return type(value)(rebuild(v, fresh) for v in value)
            return value

        def single(*fresh: Any) -> Any:
            count[0] = 0
            out = fn(*rebuild(args, fresh), **{k: rebuild(v, fresh) for k, v in kwargs.items()})
            return out[pick] if pick is not None and isinstance(out, (tuple, list)) else out

        with pynative():
            tensors = [ms.Tensor(np.ascontiguousarray(x)) for x in inputs]
            held = HeldErrors(single)
            out, vjp_fn = ms.vjp(held.function(), *tensors)
            held.reraise()
            grads = vjp_fn(ms.Tensor(np.ascontiguousarray(cotangent), out.dtype))
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        return out.asnumpy(), tuple(g.asnumpy() for g in grads)

    def alternative(self, name: str) -> Any:
        """The public MindSpore function of that name (mindspore.ops first, then mint), or None."""
        for space in _namespaces():
            fn = getattr(space, name, None)
            if callable(fn) and not inspect.isclass(fn):
                return fn
        return None

    def relatives(self, name: str, skip: str) -> List[Tuple[str, Callable, bool]]:
        """mindspore.ops functions of torch's op's family (named with its last word: prelu and relu6 for
        leaky_relu), other than torch's namesake and the port's own (`skip`), each also with its number
        arguments handed as one-element tensors (prelu's weight for leaky_relu's slope): (shown name, function,
        whether it takes the numbers as tensors)."""
        word = name.rsplit("_", 1)[-1]
        out: List[Tuple[str, Callable, bool]] = []
        for attr in sorted(dir(ms.ops)):
            fn = getattr(ms.ops, attr)
            if attr.startswith("_") or attr in (name, skip) or not inspect.isfunction(fn) or len(word) < 3 \
                    or not (attr.endswith(word) or attr.startswith(word)):
                continue
            out.append((f"ops.{attr}", fn, False))
            out.append((f"ops.{attr}", _numbers_as_tensors(fn), True))
        return out

    def _enter(self, name: str, _cell: Any, _args: tuple) -> None:
        self._stack.append(name)

    def _leave(self, _cell: Any, _args: tuple, _out: Any) -> None:
        if self._stack:
            self._stack.pop()

    def _patches(self) -> List[Tuple[Any, str, Any, Any]]:
        out = []
        for space in _namespaces():
            prefix = space.__name__.replace("mindspore.", "")
            for attr in dir(space):
                fn = getattr(space, attr, None)
                if attr.startswith("_") or attr in _QUIET or not callable(fn) or inspect.isclass(fn):
                    continue
                out.append((space, attr, self._wrap(f"{prefix}.{attr}", fn), fn))
        for attr in list(_OPERATORS) + [a for a in dir(ms.Tensor) if not a.startswith("_") and a not in _QUIET]:
            static = inspect.getattr_static(ms.Tensor, attr, None)
            if not (inspect.isfunction(static) or inspect.ismethoddescriptor(static)) or isinstance(
                    static, (staticmethod, classmethod, property)):
                continue
            original = ms.Tensor.__dict__.get(attr)
            out.append((ms.Tensor, attr, self._wrap(f"Tensor.{attr}", getattr(ms.Tensor, attr)), original))
        # A function the port bound before the run (`from mindspore.ops import relu6`) is reached through its
        # own name (runners/mindspore_bound.py); the primitive it calls is wrapped anyway.
        for cls in _primitive_classes():
            out.append((cls, "__call__", self._wrap(f"primitive {cls.__name__}", cls.__dict__["__call__"]),
                        cls.__dict__["__call__"]))
        return out

    def _wrap(self, name: str, fn: Callable) -> Callable:
        tape = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if tape._depth or not tape._stack:
                return fn(*args, **kwargs)
            tape._depth += 1
            try:
                result = fn(*args, **kwargs)
                tape._record(name, fn, args, kwargs, result)
            finally:
                tape._depth -= 1
            return result

        return wrapper

    def _record(self, name: str, fn: Callable, args: tuple, kwargs: dict, result: Any) -> None:
        if self.keep is not None and self._stack[-1] not in self.keep:
            return
        pick = None
        if isinstance(result, (tuple, list)) and result and isinstance(result[0], ms.Tensor):
            # a multi-result op (max with an axis: values and indices): its first result is the float one
            # torch's single-result op pairs with (amax); its backward is run for that result alone
            pick, result = 0, result[0]
        if not isinstance(result, ms.Tensor) or not ms.ops.is_floating_point(result):
            return
        floats = [t for t in _tensors(args, kwargs) if ms.ops.is_floating_point(t)]
        if not floats:
            return
        scalars = tuple(float(a) for a in list(args) + list(kwargs.values())
                        if isinstance(a, (int, float)) and not isinstance(a, bool))
        shown = [_shown(a) for a in (args[1:] if name.startswith(("Tensor.", "primitive ")) else args)]
        shown += [f"{k}={v!r}" for k, v in kwargs.items() if isinstance(v, (bool, int, float, str))]
        self.records.append(OpRecord(len(self._calls), name, inputs=tuple(t.asnumpy() for t in floats),
                                     outputs=(result.asnumpy(),), owner=self._stack[-1],
                                     text=f"{name}({', '.join(shown)})", scalars=scalars))
        self._calls.append((fn, args, kwargs, pick))


def port_authored(network: Any) -> set:
    """The cells whose own construct the port wrote: the network, containers, and classes from outside
    mindspore (mindspore.nn's own layers are compared as sub-cells instead)."""
    named = list(network.cells_and_names())
    return {n for n, c in named if n == "" or not type(c).__module__.startswith("mindspore.")
            or any(o.startswith(n + ".") for o, _ in named)}


def _primitive_classes() -> List[type]:
    found, todo = [], [ms.ops.Primitive]
    while todo:
        cls = todo.pop()
        if "__call__" in cls.__dict__:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return list(dict.fromkeys(found))


def _numbers_as_tensors(fn: Callable) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        dtype = next((a.dtype for a in args if isinstance(a, ms.Tensor)), ms.float32)
        return fn(*[ms.Tensor([a], dtype) if isinstance(a, float) else a for a in args], **kwargs)
    return call


def _shown(value: Any) -> str:
    if isinstance(value, ms.Tensor):
        if value.ndim == 0 and ms.ops.is_floating_point(value):  # a bound held as a tensor: its value shows
            return f"Tensor({float(value.asnumpy()):.4g})"
        return "x" if ms.ops.is_floating_point(value) else "tensor"
    return f"{value:.4g}" if isinstance(value, float) else repr(value)


def _tensors(args: tuple, kwargs: Dict[str, Any]) -> List[Any]:
    flat: List[Any] = []
    for v in list(args) + list(kwargs.values()):
        flat.extend(v if isinstance(v, (tuple, list)) else [v])
    return [v for v in flat if isinstance(v, ms.Tensor)]
