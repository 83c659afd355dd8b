"""The torch half of the argument search: a module's constructor arguments read back off the module."""
from __future__ import annotations

from typing import Any

import torch

from migcheck.runners.arguments import MISSING, read_arguments
from migcheck.runners.base import Constructor

_SKIP = ("device", "dtype")


def _to_list(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.numel() <= 64:
        return value.tolist()
    return MISSING


def constructor(module: Any) -> Constructor:
    cls = type(module)
    args = tuple(a for a in read_arguments(module, _to_list, skip=_SKIP) if not a.name.startswith("_"))
    return Constructor(cls.__name__, cls.__module__.split(".")[0] == "torch", args, "",
                       any(True for _ in module.parameters()))
