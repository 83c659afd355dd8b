"""The weight mapping as a verdict shows it: one row per parameter, and what was left out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class MappedParam:
    """One row of the mapping table: a torch name and the MindSpore name it feeds."""

    torch_name: str
    ms_name: str
    torch_shape: Tuple[int, ...]
    ms_shape: Tuple[int, ...]
    how: str  # "same name", "rule BatchNorm.running_var->moving_variance", "override", "structure"
    transform: str = ""  # "" for none, else e.g. "reshape", "split(axis=0)"


@dataclass(frozen=True)
class SkippedParam:
    torch_name: str
    reason: str
