"""What each side records of one op for the op-level backward comparison (localization/backward_ops.py): plain
numpy, so the runners that record them and the pure code that compares them share no framework type."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np


@dataclass(frozen=True)
class OpGradient:
    """One torch op, as it ran in the gradient pass."""
    index: int
    owner: str  # the module whose own forward called it ("" is the root)
    name: str  # function name, e.g. "clamp"
    text: str  # e.g. "torch.clamp(-0.5, 0.5)"
    inputs: Tuple[np.ndarray, ...]  # its float tensor arguments, in order
    output: np.ndarray
    grad_output: np.ndarray
    grad_inputs: Tuple[Optional[np.ndarray], ...]  # one per float input (None: no gradient flows)
    scalars: Tuple[float, ...] = ()  # its number arguments (bounds, slopes)
    after: str = ""  # the sub-module that finished last before it ran (its output is what came before)


@dataclass(frozen=True)
class OpRecord:
    """One MindSpore call the port's construct made."""
    index: int
    owner: str
    name: str  # e.g. "ops.clip_by_value", "Tensor.clamp"
    text: str
    inputs: Tuple[np.ndarray, ...]
    output: np.ndarray
    scalars: Tuple[float, ...] = ()


@dataclass(frozen=True)
class RaisingCall:
    """The MindSpore call that raised, or a torch call it is set beside."""
    owner: str  # the cell (module) whose own construct (forward) made it
    name: str  # "ops.concat", "Tensor.view", "primitive MatMul"; torch: "cat", "view"
    text: str  # the call with its arguments: tensors as their shape and dtype
    message: str = ""  # the first line of what MindSpore said
    output: str = ""  # what it returned, as text (a call that ran through)
