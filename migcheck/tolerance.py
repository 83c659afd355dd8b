"""Tolerance rules: which (rtol, atol) judges a tensor. Pure functions over plain data.

Layers, most specific last (later layers win):
dtype default <- backend profile <- check kind <- case <- output pattern <- command line.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Mapping, Optional, Tuple


@dataclass(frozen=True)
class Tolerance:
    """An element passes when |ms - pt| <= atol + rtol * |pt| (torch.testing semantics)."""

    rtol: float
    atol: float
    equal_nan: bool = False

    def problems(self) -> list[str]:
        out = []
        for name in ("rtol", "atol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                out.append(f"{name}={value!r} is not a number; give a float such as 1e-5")
            elif not value >= 0:
                out.append(f"{name}={value!r} must be a non-negative number")
        return out


# torch.testing's defaults; integers and booleans compare exactly.
DTYPE_DEFAULTS: Mapping[str, Tolerance] = {
    "float16": Tolerance(1e-3, 1e-5),
    "bfloat16": Tolerance(1.6e-2, 1e-5),
    "float32": Tolerance(1.3e-6, 1e-5),
    "float64": Tolerance(1e-7, 1e-7),
    "complex64": Tolerance(1.3e-6, 1e-5),
    "complex128": Tolerance(1e-7, 1e-7),
}
EXACT = Tolerance(0.0, 0.0)

# Gradients and updates accumulate more rounding than a forward pass (reductions over the
# batch, longer chains of ops), so they start looser. A scale multiplies the dtype default.
CHECK_SCALE: Mapping[str, float] = {"forward": 1.0, "train": 1.0, "backward": 10.0, "step": 10.0}

# Backend profiles: a scale per dtype on top of the defaults. CPU kernels of the two
# frameworks differ in summation order, so float32 gets a little headroom.
BACKEND_PROFILES: Mapping[str, Mapping[str, float]] = {
    "cpu": {"float32": 1.0},
    "gpu": {"float32": 2.0},
    "ascend": {"float32": 1.0},
}


@dataclass(frozen=True)
class ToleranceRules:
    """Everything that can change a tolerance, gathered for one case and one run."""

    case: Optional[Tolerance] = None
    patterns: Tuple[Tuple[str, Tolerance], ...] = ()
    # --rtol / --atol: each replaces its half of whatever the other layers chose.
    cli_rtol: Optional[float] = None
    cli_atol: Optional[float] = None

    @staticmethod
    def build(case: Optional[Tolerance], patterns: Optional[Mapping[str, Tolerance]],
              cli_rtol: Optional[float] = None, cli_atol: Optional[float] = None) -> "ToleranceRules":
        return ToleranceRules(case, tuple((patterns or {}).items()), cli_rtol, cli_atol)


def _scaled(tol: Tolerance, scale: float) -> Tolerance:
    return Tolerance(tol.rtol * scale, tol.atol * scale, tol.equal_nan)


def resolve(dtype: str, *, check: str, backend: str, tensor: str,
            rules: ToleranceRules = ToleranceRules()) -> Tuple[Tolerance, str]:
    """The tolerance for one tensor and a short text saying which layer chose it."""
    kind = dtype_kind(dtype)
    if kind in ("int", "bool"):
        return EXACT, f"exact ({dtype})"
    tol = DTYPE_DEFAULTS.get(dtype, DTYPE_DEFAULTS["float32"])
    source = f"{dtype} default"
    scale = BACKEND_PROFILES.get(backend, {}).get(dtype, 1.0) * CHECK_SCALE.get(check, 1.0)
    if scale != 1.0:
        tol = _scaled(tol, scale)
        source += f" x{scale:g} ({backend}/{check})"
    if rules.case is not None:
        tol, source = rules.case, "case"
    for pattern, override in rules.patterns:
        if matches(pattern, check=check, tensor=tensor):
            tol, source = override, f"case pattern {pattern!r}"
    if rules.cli_rtol is not None or rules.cli_atol is not None:
        tol = Tolerance(tol.rtol if rules.cli_rtol is None else rules.cli_rtol,
                        tol.atol if rules.cli_atol is None else rules.cli_atol, tol.equal_nan)
        source = "command line"
    return tol, source


def matches(pattern: str, *, check: str, tensor: str) -> bool:
    """A pattern names a tensor ('out[0]', 'grad.param.*') or a check and tensor ('backward/*')."""
    # Brackets are literal: tensor names index with them ('out[0]'), so they are no character classes.
    pattern = pattern.replace("[", "[[]")
    if "/" in pattern:
        return fnmatch.fnmatchcase(f"{check}/{tensor}", pattern)
    return fnmatch.fnmatchcase(tensor, pattern)


def dtype_kind(dtype: str) -> str:
    """'float', 'int' or 'bool'."""
    if dtype == "bool":
        return "bool"
    if dtype.startswith(("int", "uint")):
        return "int"
    return "float"
