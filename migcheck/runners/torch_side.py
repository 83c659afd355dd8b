"""The PyTorch reference side: build, load numpy weights, run, and hand back numpy trees."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.objective import Objective
from migcheck.params import ParamInfo
from migcheck.tree import flatten

# Optimizer presets: torch's own hyper-parameter names; mindspore_side holds the paired port.
PRESETS: Mapping[str, Callable[[List[torch.nn.Parameter]], torch.optim.Optimizer]] = {
    "sgd": lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4),
    "adam": lambda params: torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8),
    "adamw": lambda params: torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2),
}


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

    def gradients(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                  loss: Optional[Callable[[], Any]]) -> Tuple[Dict[int, np.ndarray], Dict[str, np.ndarray]]:
        """d(objective)/d(each float input) by position and d/d(each trainable parameter) by name."""
        self.module.eval()
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        for a in args:
            if a.is_floating_point():
                a.requires_grad_(True)
        value = self._objective(args, objective, loss() if loss else None)
        wrt_inputs = [i for i, a in enumerate(args) if a.requires_grad]
        params = [(n, p) for n, p in self.module.named_parameters() if p.requires_grad]
        grads = torch.autograd.grad(value, [args[i] for i in wrt_inputs] + [p for _, p in params], allow_unused=True)
        # Unused inputs get no gradient from autograd; MindSpore returns zeros for them.
        dense = [to_numpy(g) if g is not None else np.zeros(tuple(t.shape), _np_dtype(t))
                 for g, t in zip(grads, [args[i] for i in wrt_inputs] + [p for _, p in params])]
        input_grads = dict(zip(wrt_inputs, dense[:len(wrt_inputs)]))
        return input_grads, {n: g for (n, _), g in zip(params, dense[len(wrt_inputs):])}

    def steps(self, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
              loss: Optional[Callable[[], Any]], optimizer: Any, count: int) -> List[Dict[str, Any]]:
        """Train-mode steps; after each: the loss, every parameter and every buffer, by torch name."""
        self.module.train(True)
        args = [_tensor(x, d) for x, d in zip(inputs, dtypes)]
        params = [p for p in self.module.parameters() if p.requires_grad]
        opt = PRESETS[optimizer](params) if isinstance(optimizer, str) else optimizer(params)
        loss_fn = loss() if loss else None
        records = []
        for _ in range(count):
            opt.zero_grad()
            value = self._objective(args, objective, loss_fn)
            value.backward()
            opt.step()
            records.append({"loss": to_numpy(value), "state": self.state()})
        return records

    def _objective(self, args: List[torch.Tensor], objective: Objective, loss_fn: Any) -> torch.Tensor:
        out = self.module(*args[:objective.n_net_inputs])
        if loss_fn is not None:
            return loss_fn(out, *args[objective.n_net_inputs:])
        total = torch.zeros((), dtype=torch.float32)
        for (_, leaf), cot in zip(flatten(out), objective.cotangents):
            if cot is not None:
                total = total + (leaf * torch.from_numpy(cot)).sum()
        return total


def _np_dtype(t: torch.Tensor) -> str:
    return "float32" if t.dtype == torch.bfloat16 else _dtype_name(t)


def _tensor(x: np.ndarray, dtype: str) -> torch.Tensor:
    t = torch.from_numpy(np.array(x, copy=True))
    return t.to(torch.bfloat16) if dtype == "bfloat16" else t
