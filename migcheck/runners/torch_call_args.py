"""torch's calls in one forward, each with its owner module and its arguments as text (tensors as shape and
dtype): what a MindSpore call that raised is set beside (localization/raising_op.py). A TorchFunctionMode
(public API); calls made inside a call are not seen, so each is one the model's forward wrote."""
from __future__ import annotations

import functools
from typing import Any, List, Optional, Sequence

import numpy as np
import torch

from migcheck.records.ops import RaisingCall
from migcheck.runners.op_text import describe, float_text


def torch_calls(side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str]) -> List[RaisingCall]:
    tape = _Calls()
    named = list(side.module.named_modules())
    handles = [m.register_forward_pre_hook(functools.partial(tape.enter, n)) for n, m in named]
    handles += [m.register_forward_hook(tape.leave, always_call=True) for _, m in named]
    try:
        with tape, torch.no_grad():
            side.module.eval()
            side.module(*[torch.from_numpy(np.ascontiguousarray(x)) for x in inputs])
    finally:
        for h in handles:
            h.remove()
    return tape.calls


class _Calls(torch.overrides.TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.stack: List[str] = []
        self.calls: List[RaisingCall] = []

    def enter(self, name: str, _m: Any, _args: tuple) -> None:
        self.stack.append(name)

    def leave(self, _m: Any, _args: Any, _out: Any) -> None:
        if self.stack:
            self.stack.pop()

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        qual = getattr(func, "__qualname__", "")
        if self.stack and describe(name, qual, getattr(func, "__module__", "") or "", [], []) and name != "__get__":
            space = ("Tensor." if qual.startswith(("Tensor.", "TensorBase.", "_TensorBase.")) else
                     "F." if (getattr(func, "__module__", "") or "").endswith("nn.functional") else "torch.")
            body = [_arg(a) for a in args] + [f"{k}={_arg(v)}" for k, v in kwargs.items()]
            result = func(*args, **kwargs)
            self.calls.append(RaisingCall(self.stack[-1], name, f"{space}{name}({', '.join(body)})",
                                          output=_arg(result)))
            return result
        return func(*args, **kwargs)


def _arg(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"Tensor{list(value.shape)} {str(value.dtype).replace('torch.', '')}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_arg(v) for v in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
    if isinstance(value, float):
        return float_text(value)
    return repr(value) if isinstance(value, (bool, int, str, type(None))) else type(value).__name__
