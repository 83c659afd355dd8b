"""Input specs: how to make one seeded numpy input. Pure data; the fixture engine draws from it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

import numpy as np

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
KINDS = ("uniform", "normal", "integers", "mask", "given")


@dataclass(frozen=True)
class InputSpec:
    """One input tensor: shape, dtype and the distribution its values are drawn from."""

    shape: Tuple[int, ...]
    dtype: str = "float32"
    kind: str = "uniform"
    low: float = -1.0
    high: float = 1.0
    std: float = 1.0
    p: float = 0.5
    values: Any = field(default=None, compare=False, repr=False)

    def problems(self) -> list[str]:
        """What is wrong with this spec, as messages that say the fix; empty when valid."""
        out: list[str] = []
        if self.kind not in KINDS:
            out.append(f"unknown input kind {self.kind!r}; use one of {', '.join(KINDS)}")
        if self.kind != "given":
            if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in self.shape):
                out.append(f"shape {self.shape} must be a tuple of non-negative integers")
            if self.dtype not in FLOAT_DTYPES + INT_DTYPES + ("bool",):
                out.append(f"unknown dtype {self.dtype!r}; use one of {', '.join(FLOAT_DTYPES + INT_DTYPES + ('bool',))}")
        if self.kind in ("uniform", "integers") and not self.low < self.high:
            out.append(f"low ({self.low}) must be below high ({self.high})")
        if self.kind == "normal" and not self.std > 0:
            out.append(f"std ({self.std}) must be positive")
        if self.kind == "mask" and not 0.0 <= self.p <= 1.0:
            out.append(f"mask probability p={self.p} must be within [0, 1]")
        if self.kind == "given" and self.values is None:
            out.append("given input has no values")
        return out


def uniform(*shape: int, low: float = -1.0, high: float = 1.0, dtype: str = "float32") -> InputSpec:
    """Floats drawn uniformly from [low, high)."""
    return InputSpec(tuple(shape), dtype=dtype, kind="uniform", low=low, high=high)


def normal(*shape: int, std: float = 1.0, dtype: str = "float32") -> InputSpec:
    """Floats drawn from N(0, std^2)."""
    return InputSpec(tuple(shape), dtype=dtype, kind="normal", std=std)


def integers(*shape: int, low: int = 0, high: int, dtype: str = "int64") -> InputSpec:
    """Integers in [low, high): class labels, indices, token ids."""
    return InputSpec(tuple(shape), dtype=dtype, kind="integers", low=low, high=high)


def mask(*shape: int, p: float = 0.5) -> InputSpec:
    """Booleans, each True with probability p."""
    return InputSpec(tuple(shape), dtype="bool", kind="mask", p=p)


def given(values: Any, dtype: Optional[str] = None) -> InputSpec:
    """A fixed array, e.g. the exact labels of a reference example."""
    arr = np.asarray(values, dtype=dtype)
    return InputSpec(tuple(arr.shape), dtype=str(arr.dtype), kind="given", values=arr)
