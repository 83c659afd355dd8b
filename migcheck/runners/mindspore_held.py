"""Exceptions held inside MindSpore's PYNATIVE gradient calls, so that one failing port cannot break the next.

mindspore.grad / mindspore.vjp open a gradient graph when they enter the function and close it when the
function returns. An exception in between leaves it open, and every later gradient in the process then fails
in unrelated code (MindSpore 2.10: "Only support integers, ... but got 0 with type <class 'int'>" from a GRU's
indexing, cases after a port that raised in its backward check). There is no public call that closes it, so
the function is wrapped: the exception is held, a zero placeholder is returned (which closes the graph the
normal way), and the caller re-raises it once the gradient call is over. GRAPH mode needs none of this: a
failed compile clears MindSpore's state itself. The op trace holds a float16 cell's construct the same way, so
that Cell.__call__ pops the mixed-precision type it pushed (runners/mindspore_ops.py).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import mindspore as ms


class HeldErrors:
    """fn wrapped for a PYNATIVE gradient call; `function` goes to mindspore.grad/vjp, `reraise()` after it."""

    def __init__(self, fn: Callable[..., Any], *, pair: bool = False) -> None:
        self.fn = fn
        self.pair = pair  # has_aux: mindspore.grad expects (value, aux)
        self.error: Optional[BaseException] = None

    def function(self) -> Callable[..., Any]:
        def held(*args: Any) -> Any:
            try:
                return self.fn(*args)
            except Exception as exc:  # noqa: BLE001 - re-raised by reraise() once the gradient call closed
                self.error = exc
                zero = ms.Tensor(0.0, ms.float32)
                return (zero, (zero,)) if self.pair else zero
        return held

    def reraise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error
