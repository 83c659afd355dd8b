"""Functional calls as the torch runner records them (for localization's op trace and replay)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

TENSOR = "<tensor>"  # how a site shows a tensor argument


@dataclass(frozen=True)
class OpCall:
    seq: int  # position in the forward, on the same counter as the module spans
    owner: str  # the innermost module whose forward made the call ("" is the whole network)
    text: str  # e.g. "F.softmax(dim=-1)", "Tensor * 0.3536"


@dataclass(frozen=True)
class OpSite:
    """One recorded call: its position on the op counter, its name and its non-tensor arguments."""
    seq: int
    name: str  # e.g. "softmax", "interpolate", "binary_cross_entropy_with_logits"
    positional: Tuple[Any, ...]  # arguments in order, tensors shown as TENSOR
    keywords: Tuple[Tuple[str, Any], ...]
    ndim: int  # rank of the first tensor argument (0 when none)
    text: str  # e.g. "Tensor.softmax(-1)"


@dataclass(frozen=True)
class Change:
    seq: int
    position: Optional[int]  # where the argument sits when given positionally
    keyword: str
    value: Any
