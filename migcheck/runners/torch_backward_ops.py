"""torch's own ops inside the port-authored forwards, each with the gradient that reached its output and the
gradient it passed to its inputs: the torch half of the op-level backward comparison
(migcheck.localization.backward_ops). One gradient pass under a TorchFunctionMode (public API); each op's
input gradients come from re-running that one op on its recorded inputs with torch.autograd.grad."""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.records.ops import OpGradient
from migcheck.runners.op_text import describe
from migcheck.runners.base import Objective
from migcheck.runners.torch_replay import replayable, signature_of
from migcheck.runners.torch_numpy import as_numpy


def op_gradients(side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                 loss: Optional[Callable[[], Any]]) -> List[OpGradient]:
    """Every differentiable op that a container, the root or a port-authored layer ran itself (not inside
    torch.nn's own layers), in forward order, with output gradient and input gradients."""
    tape = _Tape(replayable(side.module))
    named = list(side.module.named_modules())
    handles = [m.register_forward_pre_hook(functools.partial(tape.enter, n)) for n, m in named]
    handles += [m.register_forward_hook(tape.leave, always_call=True) for _, m in named]
    try:
        with tape:
            side.gradients(inputs, dtypes, objective, loss)
    finally:
        for h in handles:
            h.remove()
    out = []
    for index, (owner, func, args, kwargs, result) in enumerate(tape.kept):
        grad = tape.grads.get(index)
        if grad is None:
            continue
        out.append(_single_op(index, owner, func, args, kwargs, result, grad, tape.after[index], tape.picks[index]))
    return [o for o in out if o is not None]


class _Tape(torch.overrides.TorchFunctionMode):
    def __init__(self, keep: set) -> None:
        super().__init__()
        self.keep = keep
        self.stack: List[str] = []
        self.kept: List[Tuple[str, Any, tuple, dict, torch.Tensor]] = []
        self.grads: Dict[int, np.ndarray] = {}
        self.last_done = ""  # the module that finished last
        self.after: List[str] = []  # per kept op: the module that finished last before it, if a child of its owner
        self.picks: List[Optional[int]] = []  # per kept op: which element of a tuple result it stands for

    def enter(self, name: str, _m: Any, _args: tuple) -> None:
        self.stack.append(name)

    def leave(self, _m: Any, _args: Any, _out: Any) -> None:
        if self.stack:
            self.last_done = self.stack.pop()

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        pick = _float_result(result)  # a tuple result (cummax's values, indices): its first float tensor
        head = result if pick is None else result[pick]
        if (self.stack and self.stack[-1] in self.keep and isinstance(head, torch.Tensor)
                and head.requires_grad and head.is_floating_point()
                and any(t.requires_grad for t in _tensors(args, kwargs))):
            index = len(self.kept)
            owner = self.stack[-1]
            child = self.last_done.startswith(f"{owner}." if owner else "") and self.last_done != owner
            self.after.append(self.last_done if child else "")
            self.kept.append((owner, func, args, kwargs, head))
            self.picks.append(pick)
            head.register_hook(functools.partial(self._keep_grad, index))
        return result

    def _keep_grad(self, index: int, grad: torch.Tensor) -> None:
        self.grads[index] = _numpy(grad)


def _float_result(result: Any) -> Optional[int]:
    """The position of the first float tensor in a tuple result; None for a tensor (or nothing to pick)."""
    if isinstance(result, (tuple, list)):
        return next((i for i, v in enumerate(result) if isinstance(v, torch.Tensor) and v.is_floating_point()), None)
    return None


def _single_op(index: int, owner: str, func: Any, args: tuple, kwargs: dict, result: torch.Tensor,
               grad: np.ndarray, after: str = "", pick: Optional[int] = None) -> Optional[OpGradient]:
    fresh: List[torch.Tensor] = []

    def clone(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            c = v.detach().clone()
            if c.is_floating_point():
                c.requires_grad_(True)
            fresh.append(c)
            return c
        if isinstance(v, (tuple, list)):
            return type(v)(clone(x) for x in v)
        return v

    new_args, new_kwargs = clone(args), {k: clone(v) for k, v in kwargs.items()}
    wrt = [c for c in fresh if c.requires_grad]
    with torch.enable_grad():
        value = func(*new_args, **new_kwargs)
        value = value[pick] if pick is not None and isinstance(value, (tuple, list)) else value
        if not isinstance(value, torch.Tensor) or not value.requires_grad:
            return None
        grads = torch.autograd.grad(value, wrt, torch.from_numpy(grad.copy()).to(value.dtype), allow_unused=True)
    name = getattr(func, "__name__", "")
    plain = (bool, int, float, str, type(None))
    text = describe(name, getattr(func, "__qualname__", ""), getattr(func, "__module__", "") or "",
                    [a for a in args if isinstance(a, plain)], [(k, v) for k, v in kwargs.items() if isinstance(v, plain)])
    named = _named(func, args, kwargs)
    numbers = [(k, float(a)) for k, a in named if isinstance(a, (int, float)) and not isinstance(a, bool)]
    inputs = [k for k, a in named if isinstance(a, torch.Tensor) and a.is_floating_point()]
    return OpGradient(index, owner, name, text or name, tuple(_numpy(c) for c in wrt), _numpy(result), grad,
                      tuple(None if g is None else _numpy(g) for g in grads), tuple(v for _, v in numbers), after,
                      tuple(inputs) if len(inputs) == len(wrt) else (), tuple(k for k, _ in numbers))


def _named(func: Any, args: tuple, kwargs: dict) -> List[Tuple[str, Any]]:
    """The call's arguments in order, each with its parameter name ("" where the signature is unknown: a
    builtin's positional argument)."""
    params = signature_of(func)[0]
    return ([(params[i] if i < len(params) else "", a) for i, a in enumerate(args)]
            + list(kwargs.items()))


def _tensors(args: tuple, kwargs: dict) -> List[torch.Tensor]:
    flat: List[Any] = []
    for v in list(args) + list(kwargs.values()):
        flat.extend(v if isinstance(v, (tuple, list)) else [v])
    return [v for v in flat if isinstance(v, torch.Tensor)]


def _numpy(t: torch.Tensor) -> np.ndarray:
    return as_numpy(t)
