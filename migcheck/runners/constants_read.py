"""The constant tensors a built network holds: tensor attributes and buffers of each layer that are not parameters
(a window, a filterbank, frequency bands, a position table built in __init__), by "layer.attribute" path, as numpy.
Parameters are left to the weight mapping; names starting with "_" are the framework's own."""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np


def _kept(name: str) -> bool:
    return not name.startswith("_")


def mindspore_constants(network: Any) -> Dict[str, np.ndarray]:
    import mindspore as ms

    found: Dict[str, np.ndarray] = {}
    for path, cell in network.cells_and_names():
        named = dict(vars(cell))
        if hasattr(cell, "named_buffers"):
            named.update(dict(cell.named_buffers(recurse=False)))
        for attr, value in named.items():
            if _kept(attr) and isinstance(value, ms.Tensor) and not isinstance(value, ms.Parameter):
                found[f"{path}.{attr}" if path else attr] = value.asnumpy()
    return found


def torch_constants(module: Any) -> Dict[str, np.ndarray]:
    import torch

    found: Dict[str, np.ndarray] = {}
    for path, m in module.named_modules():
        named = {k: v for k, v in vars(m).items() if isinstance(v, torch.Tensor)}
        named.update(dict(m.named_buffers(recurse=False)))
        for attr, value in named.items():
            if _kept(attr) and not isinstance(value, torch.nn.Parameter):
                found[f"{path}.{attr}" if path else attr] = value.detach().cpu().resolve_conj().numpy()
    return found


def _owner(network: Any, path: str) -> Tuple[Any, str]:
    """(the cell holding the constant at "layer.attribute", the attribute's name)."""
    owner_path, _, attr = path.rpartition(".")
    return (dict(network.cells_and_names())[owner_path] if owner_path else network), attr


def set_mindspore_constant(network: Any, path: str, value: np.ndarray, own_dtype: bool = True) -> Any:
    """Give the port's constant at `path` these values (in its own dtype, or in theirs); returns the tensor it held."""
    import mindspore as ms

    owner, attr = _owner(network, path)
    old = getattr(owner, attr)
    value = np.asarray(value)
    setattr(owner, attr, ms.Tensor(value.astype(old.asnumpy().dtype) if own_dtype else value))
    return old


def put_back_mindspore_constant(network: Any, path: str, old: Any) -> None:
    owner, attr = _owner(network, path)
    setattr(owner, attr, old)
