"""What a runner reports about one parameter or buffer; framework-free so mapping stays pure."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class ParamInfo:
    """One parameter or buffer of a module tree, described without the framework."""

    name: str  # full dotted path, e.g. "layer1.0.running_mean"
    shape: Tuple[int, ...]
    dtype: str  # numpy dtype name
    owner_kind: str  # class name of the module/cell that owns it, e.g. "BatchNorm2d"
    trainable: bool
    is_buffer: bool

    @property
    def owner_path(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def leaf(self) -> str:
        return self.name.rpartition(".")[2]
