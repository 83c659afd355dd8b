"""RunOptions, and the one table that both front ends register from: the CLI's flags and pytest's options.

Each option is parsed and validated by the same function whichever front end read it, so
`migcheck compare --atol 1e-4` and `pytest --migcheck-atol 1e-4` cannot drift apart. Light: no numpy.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from migcheck.vocab import BACKENDS, CHECKS, MODES


@dataclass(frozen=True)
class RunOptions:
    """How to run and judge items; every field has the default both front ends use."""

    checks: Optional[Tuple[str, ...]] = None  # None: each case's own checks
    modes: Tuple[str, ...] = MODES
    backends: Tuple[str, ...] = ("cpu",)
    # Tolerances that win over every other tolerance layer.
    rtol: Optional[float] = None
    atol: Optional[float] = None
    # Reference source: None runs torch here; a folder reads golden fixtures (torch is never imported).
    golden: Optional[str] = None
    torch_device: str = "cpu"  # cpu, cuda or auto (torch runs the reference there)
    device_id: Optional[int] = None  # passed to mindspore.set_device(target, device_id)
    profile: Optional[str] = None  # tolerance profile; None: each backend's own
    tolerance_mode: Optional[str] = None  # standard or budget; None: each case's own
    budget_factor: Optional[float] = None  # None: tolerance.BUDGET.factor
    # How to execute rather than how to compare (set by each front end's own flags, not the table):
    # native stderr (MindSpore's C++ logs, torch's warnings) during an item goes into the verdict's
    # framework_log instead of the terminal (migcheck.running.fdcapture); False: live, as --show-framework-logs.
    capture_logs: bool = True
    # A folder of torch-side results kept between runs (migcheck.running.torch_cache); None: computed every run.
    torch_cache: Optional[str] = None
    # Re-run only items whose case, factories' source, options or framework versions changed since the last
    # report; the others keep that report's verdicts, marked reused (migcheck.running.changed).
    changed: bool = False


class OptionError(ValueError):
    """A bad option value; the message names the flag and what would be accepted."""


# ------------------------------------------------------------------------------------- parsers
def csv_of(allowed: Tuple[str, ...], what: str) -> Callable[[str], Tuple[str, ...]]:
    def parse(text: str) -> Tuple[str, ...]:
        values = tuple(v.strip() for v in text.split(",") if v.strip())
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            raise ValueError(f"unknown {what} {', '.join(bad) or text!r}; choose from {', '.join(allowed)}")
        return values
    return parse


def finite_non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if math.isinf(value):  # it would pass every tensor silently: never what anyone means
        raise ValueError(f"{text!r} is infinite: every value would pass; give a finite tolerance")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{text!r} must be a finite non-negative number")
    return value


def relative(text: str) -> float:
    """An rtol: finite, non-negative and below MAX_RTOL (a wider one passes a different activation)."""
    from migcheck.tolerance import MAX_RTOL, rtol_too_wide

    value = finite_non_negative(text)
    if value >= MAX_RTOL:
        raise ValueError(rtol_too_wide(value))
    return value


def positive(text: str) -> float:
    value = finite_non_negative(text)
    if value <= 0:
        raise ValueError(f"{text!r} must be positive")
    return value


def device_id(text: str) -> int:
    if not str(text).isdigit():
        raise ValueError(f"{text!r} is not a device id (0, 1, ...)")
    return int(text)


def profile(text: str) -> str:
    from migcheck.tolerance import PROFILES

    if text not in PROFILES:
        raise ValueError(f"unknown profile {text!r}; choose from {', '.join(PROFILES)}")
    return text


def one_of(allowed: Tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"{text!r}: choose from {', '.join(allowed)}")
        return text
    return parse


def existing_folder(text: str) -> str:
    if not os.path.isdir(text):
        raise ValueError(f"{text}: no such folder; record goldens first with `migcheck record --fixtures {text}`")
    return text


# --------------------------------------------------------------------------------------- table
@dataclass(frozen=True)
class Option:
    """One RunOptions field as a command-line flag; pytest spells it --migcheck-<flag without -->."""

    name: str  # the RunOptions field
    flag: str
    parse: Callable[[str], Any]
    help: str
    metavar: Optional[str] = None
    default_text: Optional[str] = None  # the text the default parses from; None: RunOptions' default
    switch: bool = False  # a flag without a value (store_true); parse is then bool


    @property
    def pytest_flag(self) -> str:
        return "--migcheck-" + self.flag[2:]


OPTIONS: Tuple[Option, ...] = (
    Option("checks", "--check", csv_of(CHECKS, "check"), "checks to run, comma-separated (default: each case's own)"),
    Option("modes", "--mode", csv_of(MODES, "mode"), "MindSpore modes, comma-separated (default: pynative,graph)",
           default_text=",".join(MODES)),
    Option("backends", "--backend", csv_of(BACKENDS + ("auto",), "backend"),
           "MindSpore backends, comma-separated: cpu, gpu, ascend, or auto for what mindspore.hal reports here"
           " (default: cpu)", default_text="cpu"),
    Option("atol", "--atol", finite_non_negative, "absolute tolerance for every tensor (overrides all rules; judges"
           " by rtol/atol instead of the error budget)"),
    Option("rtol", "--rtol", relative, "relative tolerance for every tensor, below 1 (overrides all rules; judges by"
           " rtol/atol instead of the error budget)"),
    Option("golden", "--golden", existing_folder, "use golden fixtures recorded by `migcheck record` instead of"
           " running torch (torch is never imported)", metavar="DIR"),
    Option("torch_device", "--torch-device", one_of(("cpu", "cuda", "auto")),
           "where torch computes the reference: cpu, cuda or auto (default: cpu)"),
    Option("device_id", "--device-id", device_id, "MindSpore device id (mindspore.set_device)"),
    Option("profile", "--profile", profile, "tolerance profile: cpu, gpu, ascend, strict (default: the backend's own)"),
    Option("tolerance_mode", "--tolerance-mode", one_of(("standard", "budget")),
           "budget: MindSpore's error against a float64 re-run of torch, relative to torch float32's own;"
           " standard: rtol/atol (default: budget, unless a tolerance is given: the case's own, or an rtol or atol flag)"),
    Option("budget_factor", "--budget-factor", positive,
           "error-budget factor (default 4): MindSpore may be this many times less accurate than torch float32"),
    Option("changed", "--changed", bool, "re-run only the cases whose case file, factories' source or framework"
           " versions (or these options) changed since the last report; reuse that report's verdicts for the"
           " rest, each marked reused", switch=True),
)
# The options that only choose items (what `migcheck list` and `record` take as well).
SELECTION = ("checks", "modes", "backends")
_BY_NAME = {o.name: o for o in OPTIONS}
EXECUTION = ("capture_logs", "torch_cache")
assert {o.name for o in OPTIONS} | set(EXECUTION) == {f.name for f in fields(RunOptions)}, "every field needs a flag"


def option(name: str) -> Option:
    return _BY_NAME[name]


def build(raw: Mapping[str, Optional[str]], *, pytest_names: bool = False,
          execution: Optional[Mapping[str, Any]] = None, auto_backend: Optional[Callable[[], str]] = None) -> RunOptions:
    """RunOptions from option texts by field name (None: the default), plus execution fields as values.
    OptionError names the bad flag. auto_backend: what `--backend auto` means here (the front ends pass
    migcheck.runners.auto_backend; options import no runner)."""
    values: Dict[str, Any] = dict(execution or {})
    for name, text in raw.items():
        if text is None:
            continue
        opt = _BY_NAME[name]
        try:
            values[name] = opt.parse(text) if isinstance(text, str) else text
        except ValueError as exc:
            raise OptionError(f"{opt.pytest_flag if pytest_names else opt.flag}: {exc}") from None
    if "backends" in values:
        values["backends"] = resolve_backends(values["backends"], auto_backend)
    if values.get("golden"):
        values["golden"] = os.path.abspath(values["golden"])
    return RunOptions(**values)


def resolve_backends(chosen: Tuple[str, ...], auto_backend: Optional[Callable[[], str]] = None) -> Tuple[str, ...]:
    """'auto' becomes the backend auto_backend() reports here (mindspore.hal: Ascend, else GPU, else CPU)."""
    if "auto" not in chosen:
        return tuple(chosen)
    if auto_backend is None:
        raise OptionError("--backend auto: no backend probe was given to options.build (pass"
                          " auto_backend=migcheck.runners.auto_backend)")
    here = auto_backend()
    return tuple(dict.fromkeys(here if b == "auto" else b for b in chosen))


def add_cli_arguments(parser: Any, names: Tuple[str, ...] = tuple(_BY_NAME)) -> None:
    """argparse flags for these options; each keeps its text, parsed later by build()."""
    import argparse

    for name in names:
        opt = _BY_NAME[name]

        def checked(text: str, opt: Option = opt) -> str:
            try:
                opt.parse(text)
            except ValueError as exc:  # argparse prints "argument --atol: <message>" and exits 2
                raise argparse.ArgumentTypeError(str(exc)) from None
            return text

        if opt.switch:
            parser.add_argument(opt.flag, dest=name, action="store_true", default=None, help=opt.help)
        else:
            parser.add_argument(opt.flag, dest=name, type=checked, default=opt.default_text, metavar=opt.metavar,
                                help=opt.help)


def add_pytest_options(group: Any) -> None:
    for opt in OPTIONS:
        if opt.switch:
            group.addoption(opt.pytest_flag, dest=f"migcheck_{opt.name}", action="store_true", default=None,
                            help=opt.help)
        else:
            group.addoption(opt.pytest_flag, dest=f"migcheck_{opt.name}", default=opt.default_text,
                            metavar=opt.metavar, help=opt.help)


def from_cli(args: Any, names: Tuple[str, ...] = tuple(_BY_NAME),
             execution: Optional[Mapping[str, Any]] = None, auto_backend: Optional[Callable[[], str]] = None
             ) -> RunOptions:
    return build({name: getattr(args, name, None) for name in names}, execution=execution, auto_backend=auto_backend)


def from_pytest(config: Any, execution: Optional[Mapping[str, Any]] = None,
                auto_backend: Optional[Callable[[], str]] = None) -> RunOptions:
    return build({o.name: config.getoption(f"migcheck_{o.name}") for o in OPTIONS}, pytest_names=True,
                 execution=execution, auto_backend=auto_backend)


def to_json(options: RunOptions) -> Dict[str, Any]:
    """Plain values, for a worker process (tuples become lists)."""
    return {f.name: list(v) if isinstance(v := getattr(options, f.name), tuple) else v for f in fields(RunOptions)}


def from_json(data: Mapping[str, Any]) -> RunOptions:
    known = {f.name for f in fields(RunOptions)}
    return RunOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known})


__all__ = ["RunOptions", "OptionError", "OPTIONS", "Option", "build", "add_cli_arguments", "add_pytest_options",
           "from_cli", "from_pytest"]
