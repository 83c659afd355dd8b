"""Counterfactual search over the port's own arguments for a layer wrong on its own.

The MindSpore layer is rebuilt from the arguments it holds (runners: Cell.__init__'s signature and the
attributes holding those values) and must first reproduce its own output (else rebuilding is not
faithful and only candidates that need no rebuild are tried). Each candidate from arg_candidates.py is then
re-run on torch's recorded inputs; the first that agrees with torch within torch's own float32 band is
the confirmed cause, and its change the checked fix. Also tried: the other train/eval state, torch's
arguments that the port does not carry (torch's layer re-run with the default must reproduce MindSpore,
and a mindspore.nn class taking that argument is tried as the fix), and other mindspore.nn classes
in the port's layer's place. The search is budgeted in candidates and seconds; what was tried and how long
it took are returned with the outcome.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_candidates import (Candidate, alternative_kwargs, call_text, not_carried,
                                                  setting_candidates)
from migcheck.localization.beyond import SecondInputs
from migcheck.localization.confirm import agree, nan_from_inf, own_error
from migcheck.records.ops import finite_bound
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
MAX_CANDIDATES = 40
MAX_SECONDS = 20.0
RULE = "argument-search"


@dataclass(frozen=True)
class SearchOutcome:
    cause: str  # "" when no candidate agreed
    fix: str  # the checked change, as code; "" unless a re-run agreed with torch
    confirmed: bool
    tried: Tuple[str, ...]  # every candidate re-run, in order
    seconds: float
    rule: str = RULE
    workaround: bool = False  # the change that agreed contradicts torch's own call: kept below [high]
    located: str = ""  # no change agreed, but the op-level search inside the layer placed the first diverging op
    replacement: str = ""  # the mindspore.nn class the fix puts in the layer's place, when it is one


class _Budget:
    def __init__(self, max_count: int, max_seconds: float) -> None:
        self.started = time.monotonic()
        self.max_count, self.max_seconds = max_count, max_seconds
        self.tried: List[str] = []

    def allows(self) -> bool:
        return len(self.tried) < self.max_count and time.monotonic() - self.started < self.max_seconds

    def outcome(self, cause: str = "", fix: str = "") -> SearchOutcome:
        return SearchOutcome(cause, fix, bool(cause and fix), tuple(self.tried),
                             round(time.monotonic() - self.started, 3))


def _table_pairs(torch_kind: str, ms_kind: str) -> List[Tuple[str, str]]:
    from migcheck.knowledge.lookup import lookup

    entry = lookup(torch_kind, ms_kind)
    return [(a.torch, a.ms) for a in entry.attrs] if entry is not None else []


def _in_ms_convention(torch_c: Any, ms_kind: str) -> Any:
    """torch's flags the table says MindSpore holds the other way round (track_running_stats ~ not
    use_batch_statistics), given in MindSpore's convention, so torch's value is a candidate, not a flip."""
    from migcheck.knowledge.lookup import lookup

    from migcheck.knowledge.table import MISSING

    entry = lookup(torch_c.kind, ms_kind)
    negated = {a.torch: a for a in entry.attrs if a.convert == "not"} if entry is not None else {}
    if not negated:
        return torch_c

    def converted(a: Any) -> Any:  # torch at its default: MindSpore's default of that flag (None: mode-dependent)
        row = negated[a.name]
        at_default = a.has_default and a.value == a.default and row.ms_default is not MISSING
        return dataclasses.replace(a, value=row.ms_default if at_default else not a.value)

    return dataclasses.replace(torch_c, arguments=tuple(
        converted(a) if a.name in negated and isinstance(a.value, bool) else a for a in torch_c.arguments))


def _effective_none(module: TorchProbe, torch_name: str, torch_c: Any, inputs: Sequence[np.ndarray],
                    matches_torch: Callable[[Any], bool], budget: "_Budget") -> Any:
    """An axis argument torch's call leaves None (nn.LogSoftmax() picks one by the input's rank), given the value
    torch's layer computes as on this input: its re-run with each axis, the first that reproduces its own output."""
    rank = next((np.ndim(x) for x in inputs if isinstance(x, np.ndarray)), 0)
    args = list(torch_c.arguments)
    for i, a in enumerate(args):
        if a.value is not None or not any(w in a.name.lower() for w in ("dim", "axis")) or not rank:
            continue
        for d in range(rank):
            if not budget.allows():
                return torch_c
            budget.tried.append(f"torch {a.name}={d} (torch's {a.name}=None, measured)")
            if matches_torch(_try(lambda d=d: module.rerun_patched(torch_name, inputs, {a.name: d}))):
                args[i] = dataclasses.replace(a, value=d)
                break
    return dataclasses.replace(torch_c, arguments=tuple(args))


def _counterpart(torch_kind: str) -> List[str]:
    from migcheck.knowledge.lookup import counterparts

    return [c.ms for c in counterparts(torch_kind)]


def search(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[np.ndarray], torch_out: Any,
           ms_out: Any, tol_for: TolFor, train: bool = False, max_count: int = MAX_CANDIDATES,
           max_seconds: float = MAX_SECONDS, classes: bool = True, only_classes: bool = False) -> SearchOutcome:
    """The first change to the port's layer that makes it agree with torch on torch's recorded inputs: its own
    settings, then (classes) other mindspore.nn classes in its place; only_classes: those alone."""
    budget = _Budget(max_count, max_seconds)
    try:
        torch_c, ms_c = module.constructor(torch_name), cell.constructor(ms_name)
    except (AttributeError, KeyError):
        return budget.outcome()
    matches_torch, second = torch_bench(module, torch_name, inputs, torch_out, tol_for)
    torch_c = _effective_none(module, torch_name, torch_c, inputs, matches_torch, budget)
    table = _table_pairs(torch_c.kind, ms_c.kind)
    torch_c = _in_ms_convention(torch_c, ms_c.kind)
    held = {a.name: a.value for a in ms_c.arguments if a.found}
    extra = _torch_params(module, torch_name)
    if not only_classes and _rebuilds(cell, ms_name, held, inputs, ms_out, tol_for, budget):
        rank = next((np.ndim(x) for x in inputs if isinstance(x, np.ndarray)), None)
        cands = setting_candidates(torch_c, ms_c, table, rank)
        both = next((c for c in cands if c.why == "torch's values together"), None) or next(
            (c for c in cands if c.why.startswith("torch's ")), None)
        ran: List[Candidate] = []  # for a layer that raised: candidates after which it runs
        for cand in _then_with(cands, ran, both, ms_out is None):
            if not budget.allows():
                return budget.outcome()
            budget.tried.append(cand.label())
            kwargs = {**held, **dict(cand.changes)}
            got = _try(lambda: cell.rerun_arguments(ms_name, kwargs, inputs, train=train, extra=extra))
            if got is not None and cand.why != "torch's values together":
                ran.append(cand)
            if matches_torch(got):
                beyond = second.check_run(lambda arrays, kw=kwargs: cell.rerun_arguments(ms_name, kw, arrays,
                                                                                          train=train, extra=extra))
                if not beyond.ok:  # agrees on the case's input only (beyond.py): not the cause
                    budget.tried[-1] += f" (rejected: {beyond.words})"
                    continue
                cause, fix = _said(torch_c, ms_c, cand, held, budget)
                outcome = budget.outcome(f"{cause}; {beyond.words}", fix)
                return dataclasses.replace(outcome, workaround=cand.against_torch)
        from migcheck.localization.crop_search import crop_candidate

        cropped = (crop_candidate(cell, ms_name, ms_c, held, inputs, torch_out, matches_torch, budget.tried)
                   if budget.allows() else None)
        if cropped is not None:  # the unpadded layer's full output, cropped as torch crops it
            return budget.outcome(*cropped)
    if not only_classes and budget.allows() and nan_from_inf(inputs, ms_out, torch_out):
        budget.tried.append("its -inf/inf inputs clamped to large finite values")
        clamped = [np.clip(x, -finite_bound(x.size), finite_bound(x.size)) if isinstance(x, np.ndarray)
                   and x.dtype.kind == "f" else x for x in inputs]
        if matches_torch(_try(lambda: cell.run_live(ms_name, clamped, train))):
            bound = finite_bound(max(x.size for x in inputs if isinstance(x, np.ndarray) and x.dtype.kind == "f"))
            return budget.outcome(
                f"MindSpore's {ms_c.kind} returns NaN where its input holds -inf and torch's {torch_c.kind} stays"
                f" finite: with the -inf inputs clamped to -{bound:g}, re-run on torch's recorded input, it agrees",
                f"hand '{ms_name}' its input through ops.clamp(x, {-bound:g}, {bound:g}) (a masked -inf made a large"
                f" finite value)")
    if not only_classes and budget.allows():
        budget.tried.append(f"{'eval' if train else 'train'} mode")
        # measured both ways: the other mode agrees and this one, run the same way, does not
        if matches_torch(_try(lambda: cell.run_live(ms_name, inputs, not train))) and not matches_torch(
                _try(lambda: cell.run_live(ms_name, inputs, train))):
            state = "eval" if train else "train"
            return budget.outcome(
                f"MindSpore '{ms_name}' ({ms_c.kind}) agrees with torch's {torch_c.kind} only in {state} mode "
                f"(re-run on torch's recorded input): the port's layer behaves differently between train and eval",
                f"call set_train({not train}) on '{ms_name}' for this pass, or port the mode-dependent part")
    if not classes:  # a port's own class: the ops inside it are searched before the class is replaced
        return budget.outcome()
    missing = not_carried(torch_c, ms_c, table)
    dropped = _dropped(module, torch_name, missing, inputs, ms_out, tol_for, budget, train)
    wanted = [a.name for a in missing]
    if ms_c.has_parameters and not wanted:
        return budget.outcome()
    for alt_name, alt in cell.alternatives(torch_c.kind, wanted, _counterpart(torch_c.kind)):
        if alt_name == ms_c.kind or not budget.allows():
            continue
        base = alternative_kwargs(alt, ms_c, torch_c)
        if base is None:
            continue
        # the class as filled from both calls, then with one of its own settings changed (nn.GELU's
        # approximate=True default against torch's exact GELU): torch's values, flips, its enumerations
        variants = [base] + [{**base, **dict(c.changes)} for c in setting_candidates(torch_c, alt, table)]
        kwargs = next((kw for kw in _unique(variants)[:MAX_VARIANTS] if budget.allows() and _tried(
            budget, f"nn.{alt_name}({_kw(kw)})", lambda kw=kw: matches_torch(
                _try(lambda: cell.run_alternative(ms_name, alt_name, kw, inputs))) and second.check_run(
                lambda arrays: cell.run_alternative(ms_name, alt_name, kw, arrays)).ok)), None)
        if kwargs is not None:
            code = f"nn.{alt_name}({_kw(kwargs)})"
            taken = [a for a in missing if a.name in kwargs]
            if taken:
                lost = ", ".join(f"{a.name}={a.value!r}" for a in taken)
                shown = ("torch's layer re-run without it reproduces MindSpore's output, and "
                         if any(a in dropped for a in taken) else "")
                cause = (f"torch's {torch_c.kind} sets {lost}, which the port's {ms_c.kind} does not carry: "
                         f"{shown}{code} in its place agrees with torch (re-run on torch's recorded input)")
            elif dropped:  # measured from torch's side: the setting the port's class lacks, and a class that has it
                lost = ", ".join(f"{a.name}={a.value!r}" for a in dropped)
                cause = (f"torch's {torch_c.kind} sets {lost}, which the port's {ms_c.kind} does not carry: torch's"
                         f" layer re-run without it reproduces MindSpore's output, and {code} in its place agrees"
                         f" with torch (re-run on torch's recorded input)")
            else:
                cause = (f"the port's {ms_c.kind} does not compute torch's {torch_c.kind}: {code} in its place "
                         f"agrees with torch (re-run on torch's recorded input)")
            return dataclasses.replace(budget.outcome(cause, f"use mindspore.{code} in place of {ms_c.kind}"),
                                       replacement=alt_name)
    if not ms_c.has_parameters and not train and not module.has_parameters(torch_name) and budget.allows():
        from migcheck.localization.class_sweep import sweep_classes

        swept = sweep_classes(cell, ms_name, torch_c.kind, ms_c.kind, inputs, matches_torch, second, budget.tried)
        if swept is not None:
            return budget.outcome(*swept)
    if dropped:  # the cause is confirmed from torch's side, but no fix re-ran to agreement
        lost = ", ".join(f"{a.name}={a.value!r}" for a in dropped)
        out = budget.outcome()
        return SearchOutcome(f"torch's {torch_c.kind} sets {lost}, which the port's {ms_c.kind} does not carry: "
                             f"torch's layer re-run without it reproduces MindSpore's output", "", True,
                             out.tried, out.seconds)
    return budget.outcome()


def torch_bench(module: TorchProbe, torch_name: str, inputs: Sequence[np.ndarray], torch_out: Any, tol_for: TolFor
                ) -> Tuple[Callable[[Any], bool], SecondInputs]:
    """(whether a re-run agrees with torch's recorded output, within torch's own float32 band; the second inputs
    a candidate that agrees must agree on too): what every change to the layer is judged by."""
    noise = own_error(module, torch_name, inputs)

    def matches_torch(got: Any) -> bool:
        return agree(torch_out, got, tol_for) or agree(torch_out, got, tol_for, noise)

    return matches_torch, SecondInputs(module, torch_name, inputs, torch_out, tol_for)


def _torch_params(module: TorchProbe, torch_name: str) -> dict:
    """torch's layer's own parameters by leaf name: the values a candidate that adds a parameter (has_bias=True
    where the port switched the bias off) is re-run with."""
    prefix = f"{torch_name}." if torch_name else ""
    try:
        state = module.state()
    except Exception:  # no state to read: candidates that add a parameter cannot agree
        return {}
    return {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix) and "." not in k[len(prefix):]}


def _try(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except Exception:  # a candidate the layer cannot take: it is not the cause
        return None


def _rebuilds(cell: MindSporeProbe, ms_name: str, held: dict, inputs: Sequence[np.ndarray], ms_out: Any, tol_for: TolFor,
              budget: _Budget) -> bool:
    """Whether the cell rebuilt from the arguments read off it reproduces its own output (for a layer that raised
    on these inputs, ms_out None: whether the rebuilt one raises too)."""
    budget.tried.append("rebuilt as held (baseline)")
    again = _try(lambda: cell.rerun_arguments(ms_name, held, inputs))
    return again is None if ms_out is None else agree(ms_out, again, tol_for)


def _dropped(module: TorchProbe, torch_name: str, missing: Sequence[Any], inputs: Sequence[np.ndarray], ms_out: Any,
             tol_for: TolFor, budget: _Budget, train: bool = False) -> List[Any]:
    """Of torch's arguments the port has no counterpart for, those whose default, in torch's layer, reproduces
    MindSpore."""
    out = []
    for arg in missing:
        if not budget.allows():
            break
        budget.tried.append(f"torch {arg.name}={arg.default!r} (not carried by the port)")
        if agree(_try(lambda: module.rerun_patched(torch_name, inputs, {arg.name: arg.default}, train=train)), ms_out, tol_for):
            out.append(arg)
    return out


def _then_with(cands: Sequence[Candidate], ran: List[Candidate], torch_values: Optional[Candidate],
               raised: bool) -> Iterator[Candidate]:
    """The candidates, then, for a layer that raised, each one after which it ran combined with torch's values
    (the call that raised may also differ from torch's in a setting that only shows once it runs: a LayerNorm
    normalizing from the wrong axis and with MindSpore's default epsilon)."""
    for cand in cands:
        yield cand
        if raised and torch_values is not None and ran and ran[-1] is cand:  # it runs now: with torch's values too
            merged = {**dict(torch_values.changes), **dict(cand.changes)}
            if merged != dict(cand.changes):
                yield Candidate(tuple(merged.items()), f"{cand.why}, with torch's values")


MAX_VARIANTS = 6  # settings of one alternative class tried


def _unique(variants: Sequence[dict]) -> List[dict]:
    out: List[dict] = []
    for v in variants:
        if v not in out:
            out.append(v)
    return out


def _tried(budget: _Budget, label: str, run: Callable[[], bool]) -> bool:
    budget.tried.append(label)
    return run()


def _kw(kwargs: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _said(torch_c: Any, ms_c: Any, cand: Candidate, held: dict, budget: _Budget) -> Tuple[str, str]:
    new = dict(cand.changes)
    old = {k: held.get(k, next((a.value for a in ms_c.arguments if a.name == k), None)) for k in new}
    if cand.against_torch:
        cause = (f"MindSpore's {ms_c.kind} computes differently from torch's {torch_c.kind} with the same "
                 + _kw(old) + ": re-run on torch's recorded input with " + _kw(new) + " (a workaround: torch's own"
                 f" call has {_kw(old)}), MindSpore's layer agrees with torch; another of the port's settings likely"
                 f" means something else in MindSpore ({len(budget.tried)} candidates tried)")
    else:
        cause = (f"the port's {ms_c.kind} is called with " + _kw(old) + f" where torch's {torch_c.kind} computes as "
                 + _kw(new) + f" ({cand.why}): re-run on torch's recorded input with " + _kw(new)
                 + f", MindSpore's layer agrees with torch ({len(budget.tried)} candidates tried)")
    return cause, f"{call_text(ms_c.kind, ms_c.library, old)} -> {call_text(ms_c.kind, ms_c.library, new)}"


def found(outcome: Optional[SearchOutcome]) -> bool:
    return outcome is not None and bool(outcome.cause)
