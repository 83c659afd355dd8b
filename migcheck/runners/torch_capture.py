"""What the torch side records for localization beyond sub-module inputs and outputs: the functional calls
each module's own forward makes (a TorchFunctionMode, public API) and each sub-module's gradients in one
backward pass (full backward hooks). ``side`` is a migcheck.runners.torch_side.TorchModule."""
from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.records.ops import OpCall
from migcheck.runners.op_text import describe
from migcheck.runners.base import Objective
from migcheck.runners.torch_replay import keep_call, replayable
from migcheck.runners.torch_numpy import as_numpy


def capture_with_ops(side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str], *, train: bool = False,
                     keep: Sequence[str] = ()) -> Tuple[List[Any], List[Any]]:
    """capture(), each call with its span on an op counter, and the functional ops every module's own
    forward made on that counter (what runs between two sub-modules); `keep`: modules whose calls are kept
    for replay beyond the containers (the counter does not depend on it)."""
    recorder = _OpRecorder()
    recorder.keep = replayable(side.module) | set(keep)
    handles = []
    for name, m in side.module.named_modules():
        handles.append(m.register_forward_pre_hook(functools.partial(recorder.enter, name)))
        handles.append(m.register_forward_hook(recorder.leave, always_call=True))
    try:
        with recorder:
            calls = side.capture(inputs, dtypes, train=train)
    finally:
        for h in handles:
            h.remove()
    spans = iter(recorder.spans)
    side.trace, side.trace_texts = recorder.raw, {o.seq: o.text for o in recorder.ops}  # for runners/torch_replay.py
    side.trace_inputs = recorder.inputs
    return [dataclasses.replace(c, start=s, end=e) for c, (s, e) in zip(calls, spans)], recorder.ops


def capture_backward(side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str], objective: Objective,
                     loss: Optional[Callable[[], Any]]) -> Dict[str, Tuple[Tuple[Any, ...], Tuple[Any, ...]]]:
    """name -> (grad_output, grad_input) of every sub-module called once, from one gradient pass with
    full backward hooks (None where a gradient does not flow)."""
    counts: Dict[str, int] = {}
    records: Dict[str, Tuple[Tuple[Any, ...], Tuple[Any, ...]]] = {}

    def count(name: str, _m: Any, _args: tuple) -> None:
        counts[name] = counts.get(name, 0) + 1

    def hook(name: str, _m: Any, grad_input: tuple, grad_output: tuple) -> None:
        records[name] = (tuple(None if g is None else _numpy(g) for g in grad_output),
                         tuple(None if g is None else _numpy(g) for g in grad_input))

    named = list(side.module.named_modules())
    handles = [m.register_forward_pre_hook(functools.partial(count, n)) for n, m in named]
    handles += [m.register_full_backward_hook(functools.partial(hook, n)) for n, m in named]
    try:
        side.gradients(inputs, dtypes, objective, loss)
    finally:
        for h in handles:
            h.remove()
    return {n: r for n, r in records.items() if counts.get(n) == 1}



class _OpRecorder(torch.overrides.TorchFunctionMode):
    """Functional calls during one forward, each owned by the innermost module running, on one counter
    with the modules' starts and ends (spans, in completion order like the captured calls)."""

    def __init__(self) -> None:
        super().__init__()
        self.seq = 0
        self.stack: List[Tuple[str, int]] = []
        self.spans: List[Tuple[int, int]] = []
        self.ops: List[Any] = []
        self.keep: set = set()  # modules whose own calls are kept for replay (containers)
        self.raw: List[Any] = []
        self.inputs: Dict[int, str] = {}  # id of a kept module's input tensor -> its forward's parameter name

    def enter(self, name: str, module: Any, args: tuple) -> None:
        self.seq += 1
        self.stack.append((name, self.seq))
        if name in self.keep:  # which of its forward's parameters each input tensor is (a replay names it so)
            try:
                names = [p for p in inspect.signature(module.forward).parameters]
            except (TypeError, ValueError):
                names = []
            self.inputs.update({id(a): n for a, n in zip(args, names) if isinstance(a, torch.Tensor)})

    def leave(self, _module: Any, _args: Any, _output: Any) -> None:
        self.seq += 1
        if self.stack:
            self.spans.append((self.stack.pop()[1], self.seq))

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Optional[dict] = None) -> Any:
        kwargs = kwargs or {}
        if self.stack:
            plain = (bool, int, float, str, type(None), tuple, list)
            text = describe(getattr(func, "__name__", ""), getattr(func, "__qualname__", ""),
                            getattr(func, "__module__", "") or "",
                            [a for a in args if isinstance(a, plain) and not _has_tensor(a)],
                            [(k, v) for k, v in kwargs.items() if isinstance(v, plain) and not _has_tensor(v)])
            if text:
                self.seq += 1
                self.ops.append(OpCall(self.seq, self.stack[-1][0], text))
            if self.stack[-1][0] in self.keep:  # kept for replay (runners/torch_replay.py)
                return keep_call(self.raw, self.seq, self.stack[-1][0], func, args, kwargs, bool(text))
        return func(*args, **kwargs)


def _numpy(t: torch.Tensor) -> np.ndarray:
    return as_numpy(t)


def _has_tensor(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value)
