"""The torch half of the argument search: a module's constructor arguments read back off the module."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Tuple

import numpy as np
import torch

from migcheck.runners.arguments import MISSING, plain, read_arguments
from migcheck.runners.base import Argument, Constructor, TensorValue

_SKIP = ("device", "dtype")


def _to_list(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.numel() <= 64:
        return value.tolist()
    return MISSING


def constructor(module: Any) -> Constructor:
    cls = type(module)
    args = tuple(_buffered(module, a) for a in read_arguments(module, _to_list, skip=_SKIP) if not a.name.startswith("_"))
    return Constructor(cls.__name__, cls.__module__.split(".")[0] == "torch", args, "",
                       any(True for _ in module.parameters()))


def _buffered(module: Any, a: Argument) -> Argument:
    """An argument torch keeps as a buffer of its name (CrossEntropyLoss's class weight, BCEWithLogitsLoss's
    pos_weight), read off that buffer when no attribute held it."""
    if a.found:
        return a
    buffer = dict(module.named_buffers(recurse=False)).get(a.name)
    value = MISSING if buffer is None else _to_list(buffer)
    if value is MISSING:
        return a
    if buffer.dtype == torch.float32:  # float32's shortest form (0.2, not 0.20000000298023224): a fix shows it
        value = _short(value)
    return dataclasses.replace(a, value=TensorValue(plain(value, _to_list)), found=True)


def _short(value: Any) -> Any:
    if isinstance(value, list):
        return [_short(v) for v in value]
    return float(str(np.float32(value)))


def parameter_shapes_built_with(module: Any, changes: Dict[str, Any]) -> Dict[str, Tuple[int, ...]]:
    """The module's class built from the arguments it holds with `changes` made: its own parameters' shapes, by
    leaf name (which parameters a setting creates, measured by building the layer, not read from a table)."""
    held = {a.name: a.value for a in constructor(module).arguments if a.found and not isinstance(a.value, TensorValue)}
    built = type(module)(**{**held, **changes})
    return {name: tuple(p.shape) for name, p in built.named_parameters(recurse=False)}
