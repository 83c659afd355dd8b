"""Input specs: how to make one seeded numpy input. Pure data; the fixture engine draws from it."""
from __future__ import annotations

import math
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
        """What is wrong with this spec, as messages that say the fix; empty when valid.

        Inputs must be finite: a NaN or an infinity fed to both sides proves nothing about the port
        (NaN compares unequal to itself), so a spec that would draw or hold one is refused here.
        """
        out: list[str] = []
        if self.kind not in KINDS:
            out.append(f"unknown input kind {self.kind!r}; use one of {', '.join(KINDS)}")
        if self.kind != "given":
            if not isinstance(self.shape, tuple) or not all(
                    isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in self.shape):
                out.append(f"shape {self.shape} must be a tuple of non-negative integers")
            if self.dtype not in FLOAT_DTYPES + INT_DTYPES + ("bool",):
                out.append(f"unknown dtype {self.dtype!r}; use one of {', '.join(FLOAT_DTYPES + INT_DTYPES + ('bool',))}")
        numbers = {"uniform": ("low", "high"), "integers": ("low", "high"), "normal": ("std",), "mask": ("p",)}
        valid = True
        for name in numbers.get(self.kind, ()):
            problem = _number_problem(name, getattr(self, name))
            if problem:
                out.append(problem)
                valid = False
        if not valid:
            return out
        if self.kind in ("uniform", "integers") and not self.low < self.high:
            out.append(f"low ({self.low}) must be below high ({self.high})")
        elif self.kind == "uniform" and self.dtype in FLOAT_DTYPES:
            largest = float(np.finfo("float32" if self.dtype == "bfloat16" else self.dtype).max)
            if max(abs(self.low), abs(self.high)) > largest or not math.isfinite(float(self.high) - float(self.low)):
                out.append(f"uniform range [{self.low}, {self.high}) overflows {self.dtype} (largest finite value"
                           f" {largest:g}): the drawn inputs would hold infinities; use a narrower range")
        elif self.kind == "integers" and self.dtype in INT_DTYPES:
            info = np.iinfo(self.dtype)
            if self.low < info.min or self.high - 1 > info.max:
                out.append(f"integers in [{self.low}, {self.high}) do not fit {self.dtype} ([{info.min}, {info.max}]);"
                           f" use a wider dtype or a narrower range")
        if self.kind == "normal" and not self.std > 0:
            out.append(f"std ({self.std}) must be positive")
        if self.kind == "mask" and not 0.0 <= self.p <= 1.0:
            out.append(f"mask probability p={self.p} must be within [0, 1]")
        if self.kind == "given":
            out.extend(_given_problems(self.values))
        return out


def _number_problem(name: str, value: Any) -> Optional[str]:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return f"{name}={value!r} is not a number; give an int or a float"
    if not math.isfinite(value):
        return (f"{name}={value} is not finite; inputs must be finite numbers (NaN/Inf inputs prove nothing"
                f" about a port): give a finite {name}")
    return None


def _given_problems(values: Any) -> list[str]:
    if values is None:
        return ["given input has no values"]
    arr = np.asarray(values)
    if arr.dtype.kind not in "biufc":
        return [f"given values must be numbers or booleans, got dtype {arr.dtype}; pass a numeric array"]
    if arr.dtype.kind in "fc":
        bad = ~np.isfinite(arr)
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            return [f"given values hold {int(bad.sum())} NaN/Inf value(s), first at index {first}; inputs must be"
                    f" finite (NaN/Inf inputs prove nothing about a port): replace them, or let the module itself"
                    f" produce the non-finite values"]
    return []


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
