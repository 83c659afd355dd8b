"""A layer's dtype applied the way MindSpore's to_float does (the torch side of a mixed-precision case)."""
from __future__ import annotations

from typing import Any, List, Optional

import torch

# Tensor methods that only read metadata or convert on purpose: their arguments are never cast.
_NO_CAST = frozenset({torch.Tensor.to, torch.Tensor.type, torch.Tensor.float, torch.Tensor.half, torch.Tensor.double,
                      torch.Tensor.bfloat16, torch.Tensor.size, torch.Tensor.dim, torch.Tensor.numel,
                      torch.Tensor.detach, torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.numpy,
                      torch.Tensor.is_floating_point, torch.Tensor.__setitem__, torch.Tensor.__repr__,
                      torch.Tensor.__format__})


class CastToLayerDtype(torch.overrides.TorchFunctionMode):
    """MindSpore's to_float policy as GRAPH mode compiles it (and as the original model means it): a
    layer's float inputs are cast to its dtype on entry (``enter``, a forward pre-hook), and its float
    parameters wherever an op uses them (this mode; autograd carries float32 gradients back to them).
    Casts the forward makes on purpose (``x.float()`` before a variance) are kept. Buffers are never
    cast: ops update them in place (BatchNorm's running statistics), and a copy would lose the update.

    MindSpore's PYNATIVE mode casts every op's inputs instead, undoing such deliberate casts inside a
    flagged cell: a port that relies on one differs there, which is a real difference to report.
    """

    def __init__(self, buffers: set) -> None:
        super().__init__()
        self.stack: List[torch.dtype] = []
        self.buffers = buffers

    def enter(self, dtype: torch.dtype, _module: Any, args: tuple) -> tuple:
        self.stack.append(dtype)
        return tuple(self._cast(a, dtype, activations=True) for a in args)

    def leave(self, _module: Any, _args: Any, _output: Any) -> None:  # returns None: the output stays
        self.stack.pop()

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        # An op that updates buffers (batch_norm) keeps its parameters' dtype: torch's kernels want weight
        # and running statistics alike, and take a low-precision input with float32 statistics.
        if (self.stack and func not in _NO_CAST and getattr(func, "__name__", "") != "__get__"
                and not any(id(a) in self.buffers for a in [*args, *kwargs.values()])):
            dtype = self.stack[-1]
            args = tuple(self._cast(a, dtype) for a in args)
            kwargs = {k: v if k == "out" else self._cast(v, dtype) for k, v in kwargs.items()}
        return func(*args, **kwargs)

    def _cast(self, value: Any, dtype: torch.dtype, activations: bool = False) -> Any:
        if isinstance(value, torch.Tensor):
            wanted = activations or isinstance(value, torch.nn.Parameter)
            if wanted and value.is_floating_point() and value.dtype != dtype and id(value) not in self.buffers:
                return value.to(dtype)
            return value
        if isinstance(value, (list, tuple)) and value and any(isinstance(v, torch.Tensor) for v in value):
            return type(value)(self._cast(v, dtype, activations) for v in value)
        return value
