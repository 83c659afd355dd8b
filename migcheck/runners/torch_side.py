"""The PyTorch reference side: build, load numpy weights, run, and hand back numpy trees."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Sequence

import numpy as np
import torch

from migcheck.params import ParamInfo


class TorchSideError(TypeError):
    pass


def to_numpy(tree: Any) -> Any:
    if isinstance(tree, torch.Tensor):
        t = tree.detach().cpu()
        if t.dtype == torch.bfloat16:
            t = t.float()  # numpy has no bfloat16
        return t.numpy().copy()
    if isinstance(tree, Mapping):
        return {k: to_numpy(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return [to_numpy(v) for v in tree]
    if isinstance(tree, (bool, int, float, np.ndarray, np.generic)):
        return np.asarray(tree)
    raise TorchSideError(f"torch module returned a {type(tree).__name__}; return tensors, numbers or tuples/lists/dicts of them")


def _dtype_name(t: torch.Tensor) -> str:
    return "bfloat16" if t.dtype == torch.bfloat16 else str(t.dtype).replace("torch.", "")


class TorchModule:
    def __init__(self, factory: Callable[[], Any]) -> None:
        module = factory()
        if not isinstance(module, torch.nn.Module):
            raise TorchSideError(f"the torch factory returned {type(module).__name__}, not a torch.nn.Module")
        self.module = module

    def params(self) -> List[ParamInfo]:
        """Parameters and persistent buffers, in state_dict order."""
        owners = {name: type(m).__name__ for name, m in self.module.named_modules()}
        trainable = {name: p.requires_grad for name, p in self.module.named_parameters()}
        out = []
        for name, value in self.module.state_dict(keep_vars=True).items():
            owner = name.rpartition(".")[0]
            out.append(ParamInfo(name=name, shape=tuple(value.shape), dtype=_dtype_name(value),
                                 owner_kind=owners.get(owner, "?"), trainable=trainable.get(name, False),
                                 is_buffer=name not in trainable))
        return out

    def load(self, weights: Mapping[str, np.ndarray]) -> None:
        state = self.module.state_dict()
        new = {name: torch.from_numpy(np.ascontiguousarray(weights[name])).to(state[name].dtype) for name in state}
        self.module.load_state_dict(new, strict=True)

    def forward(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False) -> Any:
        self.module.train(train)
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        with torch.no_grad():
            return to_numpy(self.module(*args))

    def state(self) -> Dict[str, np.ndarray]:
        return {name: to_numpy(v) for name, v in self.module.state_dict().items()}


def _tensor(x: np.ndarray, dtype: str) -> torch.Tensor:
    t = torch.from_numpy(np.ascontiguousarray(x))
    return t.to(torch.bfloat16) if dtype == "bfloat16" else t
