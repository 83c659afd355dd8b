"""A MindSpore port built on torch-like module layers (as some NLP port libraries do): parameters held
as mindspore.Parameter in a dict, `forward` instead of `construct`, a `__call__` - no nn.Cell anywhere."""
import mindspore as ms
import mindspore.ops as ops
import numpy as np
import torch.nn as tnn

from migcheck import PairedCase, uniform


class Module:
    """The smallest torch-like layer base over MindSpore: registers Parameters and sub-modules on assignment."""

    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if isinstance(value, ms.Parameter):
            self._params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_parameters(self, prefix=""):
        for name, p in self._params.items():
            yield prefix + name, p
        for name, m in self._modules.items():
            yield from m.named_parameters(prefix + name + ".")

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, m in self._modules.items():
            yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)


class Linear(Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        bound = 1 / np.sqrt(n_in)
        self.weight = ms.Parameter(ms.Tensor(np.random.uniform(-bound, bound, (n_out, n_in)).astype(np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.random.uniform(-bound, bound, (n_out,)).astype(np.float32)), name="bias")

    def forward(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


class LayerNorm(Module):
    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones(n, np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.zeros(n, np.float32)), name="bias")
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keep_dims=True)
        var = ((x - mean) ** 2).mean(-1, keep_dims=True)
        return (x - mean) / ops.sqrt(var + self.eps) * self.weight + self.bias


class Mlp(Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.fc1 = Linear(6, 12)
        self.norm = LayerNorm(12, eps)
        self.fc2 = Linear(12, 3)

    def forward(self, x):
        return self.fc2(ops.relu(self.norm(self.fc1(x))))


class TorchMlp(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.norm, self.fc2 = tnn.Linear(6, 12), tnn.LayerNorm(12), tnn.Linear(12, 3)

    def forward(self, x):
        return self.fc2(tnn.functional.relu(self.norm(self.fc1(x))))


torch_like_mlp = PairedCase(
    doc="a torch-like MindSpore module (no nn.Cell): its named_parameters map by name, forward is called as torch's",
    torch=TorchMlp, mindspore=Mlp, inputs={"x": uniform(4, 6)}, tags=("torch-like",),
)

torch_like_mlp_eps = PairedCase(
    doc="known-bad: the torch-like port's LayerNorm eps is 1e-1 where torch's is 1e-5",
    torch=TorchMlp, mindspore=lambda: Mlp(eps=1e-1), inputs={"x": uniform(4, 6)}, checks=("forward",),
    expect="fail", fails_with="value", tags=("torch-like", "known-bad"),
)
