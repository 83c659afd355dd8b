"""Which judge decides each tensor of an item, and the judging itself: the error budget by default.

Per tensor, in order: a tolerance someone wrote (a case pattern, --rtol/--atol) is judged by it;
else, with a float64 oracle, by the error budget (migcheck.judging.budget); a tensor the budget
cannot judge (no oracle, float64 or integer, a random op) falls back to rtol/atol, where random
outputs are judged by their distribution and ill-conditioned failures against float64.
Every fallback says so in the tensor's notes and the verdict's `judged_by`.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional, Tuple

from migcheck.judging.budget import apply_budget, budget_judged
from migcheck.judging.compare import TensorComparison
from migcheck.localization.arg_search import RULE as ARG_SEARCH
from migcheck.localization.op_search import RULE as OP_SEARCH
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.precision import apply_precision
from migcheck.running.outcome import Outcome, mode_and_reason
from migcheck.running.reference import Reference
from migcheck.tolerance import BUDGET, Budget
from migcheck.vocab import Kind

# Tolerances a person wrote: judged by them, whatever the mode (migcheck.tolerance.resolve's sources).
WRITTEN = ("case pattern", "command line", "case")
RANDOM = "random output"  # judged by distribution (migcheck.judging.randomness)


def budget_of(options: RunOptions) -> Budget:
    return BUDGET if options.budget_factor is None else Budget(options.budget_factor, BUDGET.floor_eps)


def judged_by(mode: str, why: str, budget: Budget, fallback: str = "") -> str:
    """The verdict's one line on its judge."""
    if mode == "budget" and not fallback:
        return (f"error budget: MindSpore's error vs a float64 re-run of torch <= {budget.factor:g} x torch float32's"
                f" own + {budget.floor_eps:g} eps" + ("" if why == "default" else f" ({why})"))
    return f"rtol/atol ({fallback or why})"


def judge_tensors(tensors: Tuple[TensorComparison, ...], item: Item, options: RunOptions, ref: Reference,
                  expected: Dict[str, Any], results: Dict[str, Any]) -> Tuple[Tuple[TensorComparison, ...], str]:
    """(the tensors as judged, the verdict's judged_by line)."""
    mode, why = mode_and_reason(item.case, options)
    budget = budget_of(options)
    fallback = ""
    if item.check == "train":  # random outputs first: a float64 re-run of a random op proves nothing
        tensors = _randomness(tensors, item, options, ref, expected, results)
    if mode == "budget":
        if ref.oracle is None:  # a golden recorded without one (record --no-oracle, an old golden), or it failed
            fallback = ref.oracle_note or ("the golden has no float64 re-run of torch; re-record it to judge by the"
                                           " error budget")
            tensors = tuple(dataclasses.replace(t, notes=t.notes + (f"judged by rtol/atol: {fallback}",))
                            if not t.tolerance_source.startswith(WRITTEN) else t for t in tensors)
        else:
            # By default a tolerance someone wrote keeps judging its tensors; --tolerance-mode budget overrides it.
            own = tuple(t for t in tensors if not t.tolerance_source.startswith(RANDOM)
                        and (why != "default" or not t.tolerance_source.startswith(WRITTEN)))
            oracle = {k: v for k, v in ref.oracle.items() if k in expected}
            judged = apply_budget(own, expected, results, oracle, budget)
            by_name = {t.name: t for t in judged}
            tensors = tuple(by_name.get(t.name, t) for t in tensors)
    rest = tuple(i for i, t in enumerate(tensors) if not budget_judged(t))
    if rest:
        others = _conditioning(tuple(tensors[i] for i in rest), item, options, ref, expected, results, budget)
        merged = list(tensors)
        for i, t in zip(rest, others):
            merged[i] = t
        tensors = tuple(merged)
    return tensors, judged_by(mode, why, budget, fallback)


def _randomness(tensors: Tuple[TensorComparison, ...], item: Item, options: RunOptions, ref: Reference,
                expected: Dict[str, Any], results: Dict[str, Any]) -> Tuple[TensorComparison, ...]:
    """Train-mode outputs that torch does not reproduce on a second run (dropout) are judged by their
    distribution, not element by element (migcheck.judging.randomness)."""
    from migcheck.judging.randomness import differs, judge_random
    from migcheck.util.tree import leaves

    failing = [t for t in tensors if not t.ok and t.kind == "value" and t.name.startswith("out")]
    if not failing or options.golden:  # a golden holds one torch run: randomness cannot be seen
        return tensors
    from migcheck.runners.torch_side import TorchModule

    case = item.case
    module = TorchModule(case.torch, input_names=case.network_inputs)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    n_net = len(ref.input_names) - len(case.targets)
    adapt = case.adapt_torch or (lambda out: out)
    # Two fresh runs, not one against the reference: a reference taken from the torch cache was drawn from the
    # random state each item starts from (the guarded scope puts it back), so a single re-run repeats it.
    again, third = (leaves({"out": adapt(module.forward(ref.inputs[:n_net], ref.input_dtypes, train=True))}, "")
                    for _ in range(2))
    first, ms = leaves(expected, ""), leaves(results, "")
    return tuple(judge_random(t, first[t.name], ms[t.name])
                 if t in failing and t.name in again and differs(again[t.name], third[t.name]) else t
                 for t in tensors)


def _conditioning(tensors: Tuple[TensorComparison, ...], item: Item, options: RunOptions, ref: Reference,
                  expected: Dict[str, Any], results: Dict[str, Any], budget: Budget) -> Tuple[TensorComparison, ...]:
    """Value failures where torch's own float32 error already exceeds the tolerance are float32 noise,
    not the port: re-judged against a float64 re-run of torch (computed only when something failed)."""
    from migcheck.judging.conditioning import needs_oracle, rejudge
    from migcheck.running.reference import oracle_for

    if not needs_oracle(tensors):
        return tensors
    try:
        oracle: Optional[Dict[str, Any]] = ref.oracle if ref.oracle is not None else oracle_for(
            item.case, item.check, options)
    except Exception as exc:  # the check stands as judged; say why it could not be refined
        note = f"conditioning not checked: the float64 re-run of torch failed ({type(exc).__name__}: {exc})"
        return tuple(dataclasses.replace(t, notes=t.notes + (note,)) if not t.ok else t for t in tensors)
    if oracle is None:
        return tensors
    return rejudge(tensors, expected, results, {k: v for k, v in oracle.items() if k in expected}, budget)


def grey(t: TensorComparison) -> bool:
    """A failure of the error budget alone: within rtol/atol."""
    return not t.ok and budget_judged(t) and bool(t.standard_ok)


def for_localization(outcome: Outcome) -> Outcome:
    """The outcome localization should explain: where some tensors fail rtol/atol too, those alone (the grey
    zone's rounding-level budget failures would point it at the wrong stage, e.g. a first optimizer step
    that only rounds differently while later steps differ for real)."""
    if any(not t.ok and not grey(t) for t in outcome.tensors):
        return dataclasses.replace(outcome, tensors=tuple(
            dataclasses.replace(t, ok=True, kind=None) if grey(t) else t for t in outcome.tensors))
    return outcome


def settle_grey_zone(outcome: Outcome, golden: bool) -> Outcome:
    """A failure beyond the error budget but within rtol/atol stands only when a re-run confirmed its cause.

    MindSpore's own kernels (exp, log, log_softmax, reductions) are up to ~80x less accurate than torch's on
    correct ports, as far above torch's error as a real setting difference of the same size (benchmarks/
    budget_factor.py): the numbers alone cannot tell them apart there, a counterfactual re-run can.
    """
    failing = [t for t in outcome.tensors if not t.ok]
    if outcome.kind != Kind.VALUE or not failing or not all(grey(t) for t in failing):
        return outcome
    worst = max(failing, key=lambda t: t.oracle_err_ms / t.budget_limit if t.budget_limit else 0.0)
    ratio = f"{worst.oracle_err_ms / worst.oracle_err_pt:.3g}x" if worst.oracle_err_pt else "beyond"
    beyond = (f"beyond the error budget in {len(failing)} tensor(s) ({worst.name}: mindspore err"
              f" {worst.oracle_err_ms:.3g}, {ratio} torch float32's {worst.oracle_err_pt:.3g}) but within rtol/atol")
    findings = outcome.localization.findings if outcome.localization is not None else ()
    # A search for a change that makes the port agree with torch proves nothing where it already agrees within
    # rtol/atol; a setting difference confirmed by reproducing MindSpore's output does.
    # torch's own optimizer class in the port's place, a library child rebuilt, and a kernel measured less accurate
    # are searches or say exactly that MindSpore's kernels are less accurate: none confirms a failure here
    confirmed = [f for f in findings if f.confirmed and f.rule not in (ARG_SEARCH, OP_SEARCH, "optimizer-torch-class",
                                                                       "child-setting", "kernel-precision")]
    if confirmed:
        return dataclasses.replace(outcome, notes=outcome.notes + (
            f"{beyond}; it fails because a re-run confirmed the cause ({', '.join(f.rule for f in confirmed)})",))
    if golden:
        return dataclasses.replace(outcome, notes=outcome.notes + (
            f"{beyond}; it stands as a failure: with --golden no re-run can confirm or clear a cause",))
    note = (f"{beyond}; passed: no re-run confirmed a setting or port difference, so this is taken as MindSpore's"
            f" kernels being less accurate than torch's")
    tensors = tuple(dataclasses.replace(t, ok=True, kind=None, notes=t.notes + (note,)) if t in failing else t
                    for t in outcome.tensors)
    return dataclasses.replace(outcome, kind=None, tensors=tensors, localization=None, notes=outcome.notes + (note,),
                               message=f"{len(tensors)} tensor(s) agree: {beyond}, and no re-run confirmed a cause"
                                       f" (MindSpore's kernels less accurate here)")
