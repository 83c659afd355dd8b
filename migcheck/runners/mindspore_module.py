"""MindSpore ports that are not nn.Cell: torch-like module layers over MindSpore (parameters held as
Parameters or plain Tensors, `forward` instead of `construct`, a `__call__`), wrapped as one Cell; and the
arguments a cell is called with, arrays made tensors (as_ms_args), and what it returns made numpy (to_numpy)."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Sequence, Tuple

import mindspore as ms
import numpy as np

from migcheck.runners.mindspore_objective import MindSporeSideError
from migcheck.util.tree import contiguous, record_fields

GRAPH_HINT = ("the MindSpore port is a torch-like module ({name}), not a mindspore.nn.Cell: GRAPH mode compiles its"
              " forward as Python source, which failed; run the case in PYNATIVE only (modes=('pynative',)), or"
              " build the port from mindspore.nn.Cell layers")


def is_torch_like(obj: Any) -> bool:
    """A callable object listing MindSpore parameters the way torch (named_parameters) or MindSpore does;
    a torch module handed to the MindSpore side lists torch parameters, so it is not one."""
    if isinstance(obj, ms.nn.Cell) or not callable(obj):
        return False
    listing = getattr(obj, "parameters_and_names", None) or getattr(obj, "named_parameters", None)
    if not callable(listing):
        return False
    try:
        return all(isinstance(p, ms.Tensor) for _, p in listing())
    except Exception:  # a listing that fails is not one migcheck can use
        return False


def entry_point(obj: Any) -> Callable[..., Any]:
    """What a call runs, for reading its signature: construct, forward, or __call__."""
    if isinstance(obj, ms.nn.Cell):
        return obj.construct
    forward = getattr(obj, "forward", None)
    return forward if callable(forward) else obj.__call__


class TorchLikeCell(ms.nn.Cell):
    """One Cell around a torch-like module: called as the module is, its parameters listed by their own names."""

    def __init__(self, module: Any) -> None:
        super().__init__(auto_prefix=False)
        self.module = module
        listing = getattr(module, "parameters_and_names", None) or module.named_parameters
        self.named: List[Tuple[str, Any]] = []
        for name, p in listing():
            if isinstance(p, ms.Parameter) and p.name != name:
                p.name = name  # GRAPH mode needs unique names; torch-like layers often call every weight 'weight'
            self.named.append((name, p))

    def owners(self) -> Dict[str, str]:
        """Sub-module path -> class name, from named_modules() when the module has it."""
        modules = getattr(self.module, "named_modules", None)
        found = {name: type(m).__name__ for name, m in modules()} if callable(modules) else {}
        return {"": type(self.module).__name__, **found}

    def set_train(self, mode: bool = True) -> Any:
        train = getattr(self.module, "train", None)  # torch-like: train(mode) switches dropout and norms
        if callable(train):
            train(mode)
        return super().set_train(mode)

    def construct(self, *args, **kwargs):
        return self.module(*args, **kwargs)


def load_value(p: Any, value: Any) -> None:
    """Write a numpy array into a Parameter (set_data) or a plain Tensor (assign_value, in place)."""
    tensor = ms.Tensor(value, dtype=p.dtype)
    if isinstance(p, ms.Parameter):
        p.set_data(tensor)
    else:
        p.assign_value(tensor)


def ms_dtype(name: str) -> Any:
    """A numpy dtype name as MindSpore's dtype ("bool" is mindspore.bool_)."""
    return getattr(ms, "bool_" if name == "bool" else name)


def read_value(p: Any) -> Any:
    return p.value() if isinstance(p, ms.Parameter) else p


@contextlib.contextmanager
def graph_hint(cell: Any, mode: str) -> Iterator[None]:
    """A GRAPH failure of a torch-like module carries the hint that explains it (running.failures shows it)."""
    try:
        yield
    except Exception as exc:
        if mode == "graph" and isinstance(cell, TorchLikeCell):
            exc.migcheck_hint = GRAPH_HINT.format(name=type(cell.module).__name__)  # type: ignore[attr-defined]
        raise


def as_ms_args(values: Sequence[Any]) -> List[Any]:
    """Arrays as MindSpore tensors; plain arguments (an int height, a sequence length) as they are."""
    return [ms.Tensor(contiguous(x)) if isinstance(x, np.ndarray) else x for x in values]


def to_numpy(tree: Any) -> Any:
    if isinstance(tree, ms.Tensor):
        if tree.dtype == ms.bfloat16:
            tree = tree.astype(ms.float32)
        return tree.asnumpy().copy()
    fields = record_fields(tree)  # model-output objects: by field name
    if fields is not None:
        return {k: to_numpy(v) for k, v in fields}
    if isinstance(tree, (tuple, list)):
        return [to_numpy(v) for v in tree]
    if isinstance(tree, (bool, int, float, np.ndarray, np.generic)):
        return np.asarray(tree)
    raise MindSporeSideError(f"MindSpore cell returned a {type(tree).__name__}; return tensors, numbers or"
                             f" tuples/lists/dicts of them")
