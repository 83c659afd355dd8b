"""Tolerance rules: which (rtol, atol) judges a tensor. Pure functions over plain data.

Layers, most specific last (later layers win):
dtype default <- backend profile <- check kind <- case <- output pattern <- command line.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Dict, Mapping, Optional, Tuple


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
            elif value == float("inf"):  # every value would pass, silently
                out.append(f"{name}={value!r} is infinite: every value would pass; give a finite tolerance")
            elif name == "rtol" and value >= MAX_RTOL:
                out.append(rtol_too_wide(value))
        return out


# At rtol 1 an all-zero output passes every tensor, and Sigmoid ported as ReLU passes from rtol 1
# (inputs N(0, 0.1)) or 2.4 (N(0, 1)): benchmarks/wide_tolerance.py. Such an rtol judges nothing.
MAX_RTOL = 1.0


def rtol_too_wide(value: float) -> str:
    return (f"rtol={value:g}: every value passes (from rtol={MAX_RTOL:g} an all-zero output passes, and a different"
            f" activation such as ReLU for Sigmoid); give an rtol below {MAX_RTOL:g}, or judge by the error budget")


# torch.testing's defaults for float32 and wider; integers and booleans compare exactly. Low-precision
# results of two frameworks differ by an ulp or two wherever their kernels round differently (measured:
# 1 ulp in 1-20% of a float16 conv/BatchNorm/linear block's outputs), so float16 and bfloat16 allow two
# ulps relative (eps 9.8e-4 and 7.8e-3) and one ulp of a unit value absolute, for sums that cancel to
# near zero. torch.testing's float16/bfloat16 atol of 1e-5 suits single ops, not cells.
DTYPE_DEFAULTS: Mapping[str, Tolerance] = {
    "float16": Tolerance(2e-3, 1e-3),
    "bfloat16": Tolerance(1.6e-2, 8e-3),
    "float32": Tolerance(1.3e-6, 1e-5),
    "float64": Tolerance(1e-7, 1e-7),
    "complex64": Tolerance(1.3e-6, 1e-5),
    "complex128": Tolerance(1e-7, 1e-7),
}
EXACT = Tolerance(0.0, 0.0)

# Gradients and updates accumulate more rounding than a forward pass (reductions over the
# batch, longer chains of ops), so they start looser. A scale multiplies the dtype default.
CHECK_SCALE: Mapping[str, float] = {"forward": 1.0, "train": 1.0, "backward": 10.0, "step": 10.0}



@dataclass(frozen=True)
class Profile:
    """A named tolerance policy for one kind of hardware (or a stricter review), as plain data.

    ``base`` replaces a dtype's default before scaling; ``scale`` multiplies it per dtype;
    ``check_scale`` multiplies it per check kind. Case tolerances and --rtol/--atol still win.
    """

    name: str
    doc: str
    base: Mapping[str, Tolerance] = field(default_factory=dict)
    scale: Mapping[str, float] = field(default_factory=dict)
    check_scale: Mapping[str, float] = field(default_factory=lambda: dict(CHECK_SCALE))


# Named profiles. Each backend is judged by the profile of its name unless --profile picks another.
PROFILES: Dict[str, Profile] = {
    "cpu": Profile("cpu", "torch.testing defaults; backward/step x10 (both CPU kernels are float32 throughout)"),
    "gpu": Profile("gpu", "float32 x2: torch runs with TF32 off and deterministic algorithms, but cuBLAS/cuDNN"
                          " and MindSpore's GPU kernels still pick different algorithms (summation orders)",
                   scale={"float32": 2.0}),
    # Ascend computes Conv/MatMul (and Sort/TopK keys) in float16 by default, accumulating in
    # float32: a float32 output carries float16 input rounding, eps 9.8e-4, also near zero.
    "ascend": Profile("ascend", "float32 outputs judged at float16 level (rtol 1e-3, atol 1e-3): Ascend runs"
                                " Conv/MatMul/Sort/TopK in float16 by default",
                      base={"float32": Tolerance(1e-3, 1e-3), "complex64": Tolerance(1e-3, 1e-3)}),
    "strict": Profile("strict", "torch.testing defaults with no headroom at all, backward and step included",
                      check_scale={}),
}


def register_profile(profile: Profile) -> None:
    """Add or replace a named profile (e.g. from a conftest.py), then select it with --profile NAME."""
    PROFILES[profile.name] = profile


def default_profile(backend: str) -> str:
    """The profile that judges a backend when none is chosen: the backend's own, else cpu."""
    return backend if backend in PROFILES else "cpu"


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ValueError(f"unknown tolerance profile {name!r}; choose from {', '.join(PROFILES)}")
    return PROFILES[name]


# Error-budget mode: MindSpore's error against a float64 oracle may be at most FACTOR times
# torch's error against the same oracle, plus a floor of FLOOR_EPS machine epsilons of the
# tensor's largest oracle magnitude (a result cannot beat correct rounding, so a torch result that
# happens to be correctly rounded must not turn a 1-ulp difference into a failure).
TOLERANCE_MODES = ("standard", "budget")


@dataclass(frozen=True)
class Budget:
    # Measured (benchmarks/budget_factor.py, docs/tolerances.md): with a floor of 4 eps, correct random ports
    # need a factor of at most 2.6 and defective twins are caught below 8.3; 4 sits in that gap.
    factor: float = 4.0
    floor_eps: float = 4.0


BUDGET = Budget()


def choose_mode(option: Optional[str], cli_tolerance: bool, case_mode: Optional[str],
                case_tolerance: bool) -> Tuple[str, str]:
    """(mode, why) for one case: the error budget unless someone asked for rtol/atol.

    An explicit --tolerance-mode wins; then --rtol/--atol, a case's own tolerance_mode, a case's
    tolerance= (written for the rtol/atol judge, so it keeps judging that case by rtol/atol).
    """
    if option:
        return option, f"--tolerance-mode {option}"
    if cli_tolerance:
        return "standard", "--rtol/--atol given"
    if case_mode:
        return case_mode, f"the case's tolerance_mode={case_mode!r}"
    if case_tolerance:
        return "standard", "the case gives tolerance=; drop it (or set tolerance_mode='budget') for the error budget"
    return "budget", "default"


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
            rules: ToleranceRules = ToleranceRules(), profile: Optional[str] = None) -> Tuple[Tolerance, str]:
    """The tolerance for one tensor and a short text saying which layer chose it.

    ``profile`` names a PROFILES entry; None means the backend's own profile.
    """
    kind = dtype_kind(dtype)
    if kind in ("int", "bool"):
        return EXACT, f"exact ({dtype})"
    prof = get_profile(profile or default_profile(backend))
    tol = DTYPE_DEFAULTS.get(dtype, DTYPE_DEFAULTS["float32"])
    source = f"{dtype} default"
    if dtype in prof.base:
        tol, source = prof.base[dtype], f"{dtype} {prof.name} profile"
    scale = prof.scale.get(dtype, 1.0) * prof.check_scale.get(check, 1.0)
    if scale != 1.0:
        tol = _scaled(tol, scale)
        source += f" x{scale:g} ({prof.name}/{check})"
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
