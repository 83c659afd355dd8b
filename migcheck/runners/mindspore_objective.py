"""The scalar MindSpore differentiates, as cells: a paired loss, or sum(output * cotangent); and the
split of what mindspore.grad returns into input and parameter gradients."""
from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import mindspore as ms

from migcheck.runners.base import Objective


class MindSporeSideError(TypeError):
    """The MindSpore side was given something it cannot use; the message names the fix."""


def split_grads(result: Any, has_inputs: bool, has_params: bool) -> Tuple[tuple, tuple]:
    # mindspore.grad returns (inputs, weights) when asked for both, else just the one asked for,
    # and a bare tensor when a tuple of one position was asked for.
    if has_inputs and has_params:
        inputs, params = result
    elif has_inputs:
        inputs, params = result, ()
    else:
        inputs, params = (), result
    as_tuple = lambda g: tuple(g) if isinstance(g, (tuple, list)) else (g,)  # noqa: E731
    return as_tuple(inputs), as_tuple(params)


class KeywordCall(ms.nn.Cell):
    """Calls a network with its leading inputs as keywords (migcheck.util.calls); its parameters keep their names."""

    def __init__(self, net: Any, names: Tuple[str, ...]) -> None:
        super().__init__(auto_prefix=False)
        self.net = net
        self.names = names

    def construct(self, *args):
        kwargs = {}
        for i in range(len(self.names)):
            kwargs[self.names[i]] = args[i]
        return self.net(*args[len(self.names):], **kwargs)


class _LossObjective(ms.nn.Cell):
    def __init__(self, net: Any, loss: Any, n_net: int) -> None:
        super().__init__(auto_prefix=False)  # keep the backbone's parameter names
        self.net = net
        self.loss = loss
        self.n_net = n_net

    def construct(self, *args):
        return self.loss(self.net(*args[:self.n_net]), *args[self.n_net:])


class _CotangentObjective(ms.nn.Cell):
    """sum(leaf * cotangent) over the float output leaves, each reached by its index path."""

    def __init__(self, net: Any, cotangents: tuple, paths: tuple, with_outputs: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self.net = net
        self.cotangents = cotangents
        self.paths = paths
        self.with_outputs = with_outputs  # also return the network's outputs (as mindspore.grad's aux)

    def construct(self, *args):
        out = self.net(*args)
        total = 0.0
        for k, path in enumerate(self.paths):
            leaf = out
            found = True
            for i in path:
                if found and isinstance(leaf, (tuple, list)) and isinstance(i, int) and i < len(leaf):
                    leaf = leaf[i]
                elif found and isinstance(leaf, dict) and isinstance(i, str) and i in leaf:
                    leaf = leaf[i]  # a model-output field, by name
                elif found and isinstance(i, str) and hasattr(leaf, i):
                    leaf = getattr(leaf, i)  # a dataclass output (PYNATIVE)
                else:
                    found = False
            # A leaf missing, or shaped unlike torch's, is left out rather than raising: an exception
            # inside mindspore.grad's trace breaks the next gradient taken in this process (MindSpore
            # 2.10, PYNATIVE). The caller finds the mismatch in the outputs (with_outputs) or beforehand.
            if found and leaf.shape == self.cotangents[k].shape:
                if leaf.dtype in (ms.float16, ms.bfloat16):  # as torch promotes: float32 cotangent, float32 sum
                    leaf = leaf.astype(ms.float32)
                total = total + (leaf * self.cotangents[k]).sum()
        if self.with_outputs:
            return total, out
        return total


def objective_cell(net: Any, objective: Objective, loss: Optional[Callable[[], Any]], with_outputs: bool = False,
                    loss_float32: bool = False) -> Any:
    if loss is not None:
        loss_cell = loss()
        if loss_float32:  # mixed precision: the loss casts its inputs up, as the migration guide does
            if not isinstance(loss_cell, ms.nn.Cell):
                raise MindSporeSideError(f"loss_float32 needs the MindSpore loss to be a mindspore.nn.Cell (to_float),"
                                         f" got {type(loss_cell).__name__}; wrap it in a Cell or set loss_float32=False")
            loss_cell.to_float(ms.float32)
        return _LossObjective(net, loss_cell, objective.n_net_inputs)
    used = [(path, c) for path, c in zip(objective.paths, objective.cotangents) if c is not None]
    return _CotangentObjective(net, tuple(ms.Tensor(c) for _, c in used), tuple(path for path, _ in used),
                               with_outputs)
