"""The paired case: a PyTorch module factory, a MindSpore cell factory, and how to feed and judge them."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence, Tuple, Union

from migcheck.precision import Precision, precision_problems
from migcheck.specs import InputSpec, uniform
from migcheck.tolerance import TOLERANCE_MODES, Tolerance

from migcheck.vocab import BACKENDS, CHECKS, MODES  # noqa: E402,F401  (re-exported for case files)
# Kinds of failure a verdict can carry; a known-bad case names the one it must fail with.
from migcheck.vocab import FAILURE_KINDS  # noqa: E402,F401  (what fails_with may name)

OPTIMIZER_PRESETS = ("sgd", "adam", "adamw")
# Presets whose MindSpore half exists on some backends only: mindspore.mint.optim.AdamW (the
# faithful AdamW port; nn.AdamWeightDecay lacks bias correction) has an Ascend kernel only in 2.10.
PRESET_BACKENDS = {"adamw": ("ascend",)}


@dataclass(frozen=True)
class FrameworkPair:
    """Two factories that build the same thing on each side, e.g. a loss or an optimizer.

    For optimizers each factory takes the list of trainable parameters (in mapped order).
    """

    torch: Callable[..., Any]
    mindspore: Callable[..., Any]


WeightMap = Union[Mapping[Any, Any], Callable[[str], Optional[str]], Sequence[Tuple[str, str]]]
Adapter = Callable[[Any], Any]


@dataclass(frozen=True)
class PairedCase:
    """A PyTorch module and its MindSpore port, with everything needed to compare them.

    Only ``torch``, ``mindspore`` and ``inputs`` are required. ``inputs`` maps names to specs
    (``migcheck.uniform(2, 3)``, ``integers(...)``) or is a list of shapes (uniform float32).
    """

    torch: Callable[[], Any]
    mindspore: Callable[[], Any]
    inputs: Any
    name: str = ""
    doc: str = ""
    # torch name -> MindSpore name (None: unused on purpose; a list: split; a tuple key: concat),
    # a list of (regex, replacement) rename rules, or a function torch name -> MindSpore name.
    weight_map: Optional[WeightMap] = None
    # torch name (glob) -> migcheck.transforms transform, for layouts that differ (transpose, ...).
    # None (or a None value) means no transform.
    weight_transforms: Optional[Mapping[str, Any]] = field(default_factory=dict)
    # MindSpore parameter names (globs) that are constant by design and fed by no torch parameter,
    # e.g. ("gn.gamma", "gn.beta") of a GroupNorm built with affine=False: they keep the port's values.
    constant_params: Tuple[str, ...] = ()
    # "seeded" (default): per-parameter seeded numpy draws; a float: every parameter that value
    # (the reference guide's constant 0.1 style; BatchNorm variances stay positive).
    weights: Union[str, float] = "seeded"
    tolerance: Optional[Tolerance] = None
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    # "budget": MindSpore's error against a float64 torch oracle may be at most a few times torch's own
    # (migcheck.tolerance.BUDGET); "standard": rtol/atol layers. None: budget, unless the case gives
    # tolerance= (then rtol/atol, said in its verdicts). --tolerance-mode overrides it.
    tolerance_mode: Optional[str] = None
    # numpy tree -> numpy tree, for ports whose output layout differs by design.
    adapt_torch: Optional[Adapter] = None
    adapt_mindspore: Optional[Adapter] = None
    expect: str = "pass"
    fails_with: Optional[str] = None
    # For a known-bad case: the diagnosis rule id it must be explained by (a knowledge table id: docs/localization.md).
    diagnosis: Optional[str] = None
    # Where the expected failure shows: checks ("train"), modes ("graph") or "check-mode"; the rest
    # must pass. None: everywhere.
    fails_on: Optional[Tuple[str, ...]] = None
    # None: forward and backward, plus train when the torch module has buffers, plus step when
    # an optimizer is named.
    checks: Optional[Tuple[str, ...]] = None
    # For the step check: a preset name ("sgd", "adam", "adamw") or a FrameworkPair of factories.
    optimizer: Union[str, FrameworkPair, None] = None
    # A FrameworkPair of loss factories, called as loss(output, *targets). None: the objective is
    # sum(output * cotangent) with a seeded cotangent per floating-point output.
    loss: Optional[FrameworkPair] = None
    # Names of inputs that feed the loss rather than the network.
    targets: Tuple[str, ...] = ()
    steps: int = 1
    # For the step check: a torch factory taking torch's optimizer and returning its learning-rate scheduler
    # (torch.optim.lr_scheduler.*), stepped after every optimizer step. MindSpore's schedule is part of its
    # optimizer (a list of rates or a LearningRateSchedule as learning_rate=), as MindSpore writes it.
    lr_schedule: Optional[Callable[[Any], Any]] = None
    modes: Tuple[str, ...] = MODES
    # mode or check -> why it is not run for this case; shown as a skip reason.
    skip: Mapping[str, str] = field(default_factory=dict)
    tags: Tuple[str, ...] = ()
    # Mixed precision (migcheck.precision): "float16", "bfloat16" or Precision(dtype, keep_float32=...,
    # loss_float32=...). None: float32. Both sides then compute alike (MindSpore's to_float) and the
    # tolerances are those of the compute dtype.
    precision: Union[None, str, "Precision"] = None
    # Seconds the case (all its items) may run before its child process is killed and the running
    # item becomes a `timeout` verdict. A case with a timeout always runs isolated (migcheck.running.isolation);
    # it wins over `migcheck compare --timeout`. None: no limit of its own.
    timeout: Optional[float] = None
    # Zero-size inputs and outputs are intended: an empty tensor on both sides then passes instead of being an
    # `empty` verdict (comparing nothing proves nothing, and a zero dimension is easy to write by accident).
    allow_empty: bool = False
    file: str = ""

    @property
    def input_specs(self) -> Tuple[Tuple[str, InputSpec], ...]:
        """Inputs as (name, spec) pairs in call order."""
        return normalize_inputs(self.inputs)

    @property
    def network_inputs(self) -> Tuple[str, ...]:
        """Names of the inputs that feed the network (targets feed the loss), in call order. Passed by
        keyword when the callable names them all, else by position (migcheck.util.calls)."""
        return tuple(n for n, _ in self.input_specs if n not in self.targets)


def normalize_inputs(inputs: Any) -> Tuple[Tuple[str, InputSpec], ...]:
    if isinstance(inputs, Mapping):
        items = list(inputs.items())
    elif isinstance(inputs, Sequence) and not isinstance(inputs, (str, bytes)):
        items = [(f"x{i}" if len(inputs) > 1 else "x", spec) for i, spec in enumerate(inputs)]
    else:
        raise TypeError(f"inputs must be a dict of name -> spec or a list of specs/shapes, got {type(inputs).__name__}")
    out = []
    for name, spec in items:
        if isinstance(spec, (tuple, list)):
            spec = uniform(*spec)
        if not isinstance(spec, InputSpec):
            raise TypeError(f"input {name!r} must be a spec such as migcheck.uniform(2, 3) or a shape tuple, got {spec!r}")
        out.append((str(name), spec))
    return tuple(out)


def case_problems(case: PairedCase) -> list[Tuple[str, str]]:
    """(problem, fix) pairs for a case definition; empty when the case is well formed."""
    out: list[Tuple[str, str]] = []
    for side, value, method, kind in (("torch", case.torch, "forward", "torch.nn.Module"),
                                      ("mindspore", case.mindspore, "construct", "mindspore.nn.Cell")):
        torch_like = side == "mindspore" and hasattr(value, "forward") and hasattr(value, "named_parameters")
        if not isinstance(value, type) and (torch_like or hasattr(value, method) and hasattr(
                value, "parameters_dict" if side == "mindspore" else "parameters")):
            # An instance is callable too, but calling it with no arguments runs its forward: a framework TypeError.
            out.append((f"'{side}' is a {type(value).__name__} instance, not a factory",
                        f"pass the class or a function that returns a new {kind}, e.g. {side}=make_{side}"
                        f" with def make_{side}(): return {type(value).__name__}(...)"))
        elif not callable(value):
            out.append((f"'{side}' is not callable", f"pass a function or class that returns a {kind}"))
    try:
        specs = case.input_specs
    except TypeError as exc:
        out.append((str(exc), "see migcheck.uniform / integers / mask / given"))
        specs = ()
    for name, spec in specs:
        for problem in spec.problems():
            out.append((f"input {name!r}: {problem}", "correct the input spec"))
        shape = tuple(spec.shape) if isinstance(spec.shape, tuple) else ()
        if 0 in shape and not case.allow_empty and not spec.problems():
            looks_like_bounds = spec.kind in ("uniform", "integers") and len(shape) >= 3
            out.append((f"input {name!r}: shape {shape} has a zero-size dimension, so the input is empty and the"
                        f" comparison would prove nothing",
                        (f"low/high are keyword-only: write {spec.kind}({', '.join(map(str, shape[:-2]))},"
                         f" low={shape[-2]}, high={shape[-1]}) if they were meant as bounds; " if looks_like_bounds
                         else "") + "set allow_empty=True on the case if empty inputs are intended"))
    tols = ([("tolerance", case.tolerance)] if case.tolerance is not None else []) + \
        [(f"tolerances[{k!r}]", v) for k, v in case.tolerances.items()]
    for label, tol in tols:
        if not isinstance(tol, Tolerance):
            out.append((f"{label} is {tol!r}", "use migcheck.Tolerance(rtol=..., atol=...)"))
            continue
        for problem in tol.problems():
            out.append((f"{label}: {problem}", "use migcheck.Tolerance(rtol=..., atol=...)"))
    from migcheck.transforms import Transform

    for pattern, transform in (case.weight_transforms or {}).items():
        if transform is not None and not isinstance(transform, Transform):
            out.append((f"weight_transforms[{pattern!r}] is {transform!r}",
                        "use migcheck.transforms.transpose(1, 0), reshape(), split(), concat() or reorder_blocks(...)"))
    if case.weight_map is not None:
        from migcheck.mapping.rules import Explicit

        try:
            Explicit.of(case.weight_map)
        except (TypeError, re.error) as exc:
            out.append((f"weight_map: {exc}", "use a dict {torch_name: ms_name}, a function, or a list of"
                        " (regex, replacement) rename rules (docs/weight-mapping.md)"))
    if isinstance(case.constant_params, str) or not all(isinstance(c, str) for c in case.constant_params):
        out.append((f"constant_params={case.constant_params!r}", "use a tuple of MindSpore parameter names,"
                    " e.g. constant_params=('gn.gamma', 'gn.beta')"))
    if case.expect not in ("pass", "fail"):
        out.append((f"expect={case.expect!r}", "use expect='pass' or expect='fail'"))
    if case.expect == "fail" and case.fails_with not in FAILURE_KINDS:
        out.append((f"fails_with={case.fails_with!r}", f"a known-bad case names its failure: one of {', '.join(FAILURE_KINDS)}"))
    for check in case.checks or ():
        if check not in CHECKS:
            out.append((f"unknown check {check!r}", f"use some of {', '.join(CHECKS)}"))
    if case.optimizer is not None and not isinstance(case.optimizer, FrameworkPair) and case.optimizer not in OPTIMIZER_PRESETS:
        out.append((f"optimizer={case.optimizer!r}", f"use a preset ({', '.join(OPTIMIZER_PRESETS)}) or FrameworkPair(torch=..., mindspore=...)"))
    if case.loss is not None and not isinstance(case.loss, FrameworkPair):
        out.append(("loss is not a FrameworkPair", "use migcheck.FrameworkPair(torch=lambda: ..., mindspore=lambda: ...)"))
    names = [n for n, _ in specs]
    for target in case.targets:
        if target not in names:
            out.append((f"target {target!r} is not an input", f"name one of {', '.join(names)}"))
    if case.checks and "step" in case.checks and case.optimizer is None:
        out.append(("the step check needs an optimizer", "set optimizer='sgd' (or 'adam', 'adamw', or a FrameworkPair)"))
    if case.lr_schedule is not None and (not callable(case.lr_schedule) or case.optimizer is None):
        out.append(("lr_schedule needs an optimizer and a callable", "pass lr_schedule=lambda opt:"
                    " torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) with optimizer= set"))
    if not isinstance(case.steps, int) or case.steps < 1:
        out.append((f"steps={case.steps!r}", "use a positive integer"))
    for entry in case.fails_on or ():
        check, _, mode = entry.partition("-") if entry not in MODES else ("", "", entry)
        if check and (check not in CHECKS or (case.checks is not None and check not in case.checks)):
            out.append((f"fails_on names {entry!r}, which the case does not run", "name checks it runs and/or modes"))
        if mode and mode not in MODES:
            out.append((f"fails_on names unknown mode in {entry!r}", f"use {', '.join(MODES)}"))
    for mode in case.modes:
        if mode not in MODES:
            out.append((f"unknown mode {mode!r}", f"use some of {', '.join(MODES)}"))
    if not isinstance(case.weights, (int, float)) and case.weights != "seeded":
        out.append((f"weights={case.weights!r}", "use 'seeded' or a number such as 0.1"))
    if case.timeout is not None and (isinstance(case.timeout, bool) or not isinstance(case.timeout, (int, float))
                                     or not math.isfinite(case.timeout) or case.timeout <= 0):
        out.append((f"timeout={case.timeout!r}", "use a positive number of seconds such as timeout=60, or None"))
    for problem in precision_problems(case.precision):
        out.append((problem, "use precision='float16' or migcheck.Precision('float16', keep_float32=('BatchNorm',))"))
    if case.tolerance_mode is not None and case.tolerance_mode not in TOLERANCE_MODES:
        out.append((f"tolerance_mode={case.tolerance_mode!r}", f"use one of {', '.join(TOLERANCE_MODES)}"))
    return out


def optimizer_for(case: PairedCase, side: str) -> Any:
    """A preset name (each runner knows its half) or this side's factory from the FrameworkPair."""
    return case.optimizer if isinstance(case.optimizer, str) else getattr(case.optimizer, side)


def with_precision(case: PairedCase, precision: Union[str, Precision], name: str = "") -> PairedCase:
    """The same pair run in another precision, as its own case: ``name`` or the case's name + '_' + dtype."""
    import dataclasses

    dtype = precision if isinstance(precision, str) else precision.dtype
    return dataclasses.replace(case, precision=precision, name=name or (f"{case.name}_{dtype}" if case.name else ""))
