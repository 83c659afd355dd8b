"""torch's own op calls of one module's forward as OpRecords (numpy), from the trace the localization re-run
kept (runners/torch_capture.py records it with a TorchFunctionMode; runners/torch_replay.RawOp)."""
from __future__ import annotations

import inspect
from typing import Any, List, Tuple

import numpy as np
import torch

from migcheck.records.ops import OpRecord

TENSOR = "<tensor>"


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return TENSOR
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return f"<{value}>"


def _tensors(value: Any) -> List[np.ndarray]:
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        return [(t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()] if t.numel() <= 1 << 20 else []
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _tensors(v)]
    return []


def _names(func: Any) -> Tuple[str, ...]:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def records(torch_module: Any, owner: str) -> List[OpRecord]:
    """The calls `owner`'s own forward made (the shown ones, with a tensor in or out), in order."""
    out = []
    for r in getattr(torch_module, "trace", []):
        if r.owner != owner or not r.shown:
            continue
        inputs = tuple(a for v in list(r.args) + list(r.kwargs.values()) for a in _tensors(v))
        outputs = tuple(_tensors(r.result))
        if inputs or outputs:
            names = _names(r.func)
            given = set(names[:len(r.args)]) | set(r.kwargs)
            unpassed = tuple((k, v) for k, v in _defaults(r.func) if k not in given)  # used without being said
            out.append(OpRecord(r.seq, getattr(r.func, "__name__", "") or str(r.func), tuple(_plain(a) for a in r.args),
                                tuple((k, _plain(v)) for k, v in r.kwargs.items()) + unpassed, inputs, outputs, names))
    return out


def _defaults(func: Any) -> Tuple[Tuple[str, Any], ...]:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple((p.name, p.default) for p in params if p.default is not p.empty
                 and (p.default is None or isinstance(p.default, (bool, int, float, str))))
