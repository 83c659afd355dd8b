"""The MindSpore side: configure mode and backend, load mapped numpy weights, run, return numpy trees."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

import mindspore as ms
import numpy as np

from migcheck.params import ParamInfo

_MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}
_TARGETS = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}
_configured: Dict[str, Optional[str]] = {"backend": None}
GRAPH_ERROR_MARKER = "The Traceback of Net Construct Code"


class MindSporeSideError(TypeError):
    pass


def backend_unavailable(backend: str) -> Optional[str]:
    """None when the backend can run here, else the reason (public API: mindspore.hal)."""
    target = _TARGETS.get(backend)
    if target is None:
        return f"unknown backend {backend!r}; use one of {', '.join(_TARGETS)}"
    if _configured["backend"] not in (None, backend):
        return f"this process already runs MindSpore on {_configured['backend']}; run {backend} in its own process"
    try:
        available = ms.hal.is_available(target)
    except Exception as exc:  # a broken plugin must read as "not here", not crash the run
        return f"MindSpore cannot probe {target}: {exc}"
    return None if available else f"MindSpore {target} backend is not available on this machine"


def configure(mode: str, backend: str) -> None:
    if _configured["backend"] is None:
        ms.set_device(_TARGETS[backend])
        # Without this, a CPU kernel error can surface on a later, unrelated op.
        ms.runtime.launch_blocking()
        _configured["backend"] = backend
    ms.set_context(mode=_MODES[mode])


@contextlib.contextmanager
def scratch_cwd(mode: str) -> Iterator[None]:
    """GRAPH-mode failures write rank_0/ into the working directory: keep it out of the user's tree."""
    if mode != "graph":
        yield
        return
    here = os.getcwd()
    os.chdir(_scratch_dir())
    try:
        yield
    finally:
        os.chdir(here)


_SCRATCH: Dict[str, str] = {}


def _scratch_dir() -> str:
    if "dir" not in _SCRATCH:
        _SCRATCH["dir"] = tempfile.mkdtemp(prefix="migcheck-ms-")
    return _SCRATCH["dir"]


def is_graph_compile_error(exc: BaseException) -> bool:
    return GRAPH_ERROR_MARKER in str(exc)


def to_numpy(tree: Any) -> Any:
    if isinstance(tree, ms.Tensor):
        if tree.dtype == ms.bfloat16:
            tree = tree.astype(ms.float32)
        return tree.asnumpy().copy()
    if isinstance(tree, Mapping):
        return {k: to_numpy(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return [to_numpy(v) for v in tree]
    if isinstance(tree, (bool, int, float, np.ndarray, np.generic)):
        return np.asarray(tree)
    raise MindSporeSideError(f"MindSpore cell returned a {type(tree).__name__}; return tensors, numbers or tuples/lists/dicts of them")


def _dtype_name(p: Any) -> str:
    return str(ms.dtype_to_nptype(p.dtype).__name__) if p.dtype != ms.bfloat16 else "bfloat16"


class MindSporeCell:
    def __init__(self, factory: Callable[[], Any], mode: str) -> None:
        cell = factory()
        if not isinstance(cell, ms.nn.Cell):
            raise MindSporeSideError(f"the mindspore factory returned {type(cell).__name__}, not a mindspore.nn.Cell")
        self.cell = cell
        self.mode = mode

    def params(self) -> List[ParamInfo]:
        owners = {name: type(c).__name__ for name, c in self.cell.cells_and_names()}
        out = []
        for name, p in self.cell.parameters_and_names():
            owner = name.rpartition(".")[0]
            out.append(ParamInfo(name=name, shape=tuple(p.shape), dtype=_dtype_name(p),
                                 owner_kind=owners.get(owner, "?"), trainable=bool(p.requires_grad),
                                 is_buffer=not p.requires_grad))
        return out

    def load(self, weights: Mapping[str, np.ndarray]) -> None:
        for name, p in self.cell.parameters_and_names():
            p.set_data(ms.Tensor(np.ascontiguousarray(weights[name]), dtype=p.dtype))

    def forward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        self.cell.set_train(train)
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        with scratch_cwd(self.mode):
            return to_numpy(self.cell(*args))

    def state(self) -> Dict[str, np.ndarray]:
        return {name: to_numpy(p.value()) for name, p in self.cell.parameters_and_names()}


def _tensor(x: np.ndarray, dtype: str) -> ms.Tensor:
    t = ms.Tensor(np.ascontiguousarray(x))
    return t.astype(ms.bfloat16) if dtype == "bfloat16" else t
