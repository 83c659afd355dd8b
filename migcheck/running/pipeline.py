"""Runs one item (case x check x mode x backend) through fixtures, runners, mapping and comparator."""
from __future__ import annotations

import dataclasses
import functools
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.case import BACKENDS, PRESET_BACKENDS, PairedCase
from migcheck.golden.store import GoldenProblem
from migcheck.judging.budget import budget_summary
from migcheck.judging.compare import TensorComparison, compare_trees, fmt_shape
from migcheck.judging.error_sample import keep_detail
from migcheck.judging.verdict import Verdict
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.precision import apply_precision, as_precision, tolerance_dtype, unsupported_reason
from migcheck.runners.base import Side
from migcheck.runners.probes import MindSporeProbe
from migcheck.running.checks import CheckRun, check_results, optimizer_for
from migcheck.running.failures import error_outcome
from migcheck.util import signals
from migcheck.mapping.mapped import build_mapping, mapping_notes
from migcheck.mapping.transfer import WeightMapping, to_mindspore, to_torch
from migcheck.mapping.rules import tolerance_warnings
from migcheck.running.outcome import Outcome, profile_for, verdict_for, with_structure
from migcheck.running.reference import Reference, SkipCheck, reference
from migcheck.tolerance import Tolerance, ToleranceRules, resolve
from migcheck.util.tree import flatten
from migcheck.vocab import ERROR_KINDS, TENSOR_KINDS, Kind, Status, torch_name_of

# When several tensors fail, the verdict's kind is the most fundamental one.
KIND_ORDER = TENSOR_KINDS


def skip_reason(item: Item, options: Optional[RunOptions] = None) -> Optional[str]:
    case = item.case
    if item.mode not in case.modes:
        return f"case runs only in {', '.join(case.modes)} mode"
    for key in (item.mode, item.check, f"{item.check}-{item.mode}"):
        if key in case.skip:
            return case.skip[key]
    if item.check == "init" and item.mode == "graph":
        return "the init check compiles nothing (it compares freshly built parameters): it runs in pynative mode only"
    if item.backend not in BACKENDS:
        return f"unknown backend {item.backend!r}"
    unsupported = unsupported_reason(as_precision(case.precision), item.backend)
    if unsupported:
        return unsupported
    needs = PRESET_BACKENDS.get(case.optimizer) if isinstance(case.optimizer, str) else None
    if item.check == "step" and needs and item.backend not in needs:
        return (f"the {case.optimizer!r} preset's MindSpore optimizer runs on {', '.join(needs)} only;"
                f" pass optimizer=FrameworkPair(...) to step on {item.backend}")
    from migcheck.runners.mindspore_context import backend_unavailable

    reason = backend_unavailable(item.backend, options.device_id if options else None)
    if reason is None and options is not None and not options.golden and options.torch_device != "cpu":
        from migcheck.runners.torch_side import device_unavailable

        reason = device_unavailable(options.torch_device)
    return reason


# Statuses whose framework log is dropped: a passing item's warnings are noise in the report.
_LOG_DROPPED = (Status.PASS, Status.SKIP)


def run_item(item: Item, options: RunOptions = RunOptions()) -> Verdict:
    """One item's verdict; with options.capture_logs, what native code wrote to stderr meanwhile (and a
    GRAPH compile failure's analyze_fail.ir) becomes its framework_log."""
    from migcheck.running import guard
    from migcheck.running.fdcapture import captured_stderr, excerpt

    before = guard.take()  # what the case changes process-wide is put back after it, and named in its verdict
    try:
        with captured_stderr(options.capture_logs) as captured:
            verdict = _run_item(item, options)
    finally:
        changes = guard.restore(before)
    verdict = guard.noted(verdict, changes)
    ir = ""
    if "migcheck.runners.mindspore_context" in sys.modules:  # never import MindSpore just to look
        ir = sys.modules["migcheck.runners.mindspore_context"].take_ir_dumps()
    log = "\n".join(p for p in (excerpt(captured.text), ir) if p.strip())
    if verdict.status in _LOG_DROPPED or not log:
        return verdict
    if not options.capture_logs:  # shown live already; the IR excerpt is still worth keeping
        log = ir
    return dataclasses.replace(verdict, framework_log=log) if log else verdict


def _run_item(item: Item, options: RunOptions) -> Verdict:
    started = time.perf_counter()
    reason = skip_reason(item, options)
    if reason is not None:
        return verdict_for(item, options, Outcome(None, reason), status=Status.SKIP)
    try:
        with signals.around_mindspore():  # Python's SIGINT/SIGTERM handlers around MindSpore's own
            outcome = _run_check(item, options)
    except SkipCheck as skip:
        return verdict_for(item, options, Outcome(None, str(skip)), status=Status.SKIP,
                           duration_s=time.perf_counter() - started)
    except GoldenProblem as problem:  # never used, whatever the case expected: an error naming the fix
        return verdict_for(item, options, Outcome(problem.kind, str(problem), reference=options.golden or ""),
                           status=Status.ERROR, duration_s=time.perf_counter() - started)
    except Exception as exc:  # a broken case is a verdict, never a crash of the run
        outcome = error_outcome(exc, item, pynative_runs=lambda: _runs_in_pynative(item, options))
    return verdict_for(item, options, outcome, duration_s=time.perf_counter() - started)


def _runs_in_pynative(item: Item, options: RunOptions) -> Optional[bool]:
    """Whether the item gets through in PYNATIVE (whatever its values): tells GRAPH-only failures apart.
    None when PYNATIVE cannot tell (the check skips there, or a golden is missing)."""
    try:
        with signals.around_mindspore():
            outcome = _run_check(dataclasses.replace(item, mode="pynative"), options)
    except (SkipCheck, GoldenProblem):
        return None
    except Exception:
        return False
    return outcome.kind not in ERROR_KINDS


def _run_check(item: Item, options: RunOptions) -> Outcome:
    case = item.case
    if item.check == "init":  # no reference run: both sides are built fresh under several seeds
        from migcheck.running.init_check import init_outcome

        return init_outcome(item, options)
    try:
        ref, source = reference(case, item.check, options)
    except (SkipCheck, GoldenProblem):
        raise
    except Exception as exc:
        return error_outcome(exc, item, side="torch")
    outcome = _run_mindspore_side(item, options, ref)
    return dataclasses.replace(outcome, reference=source)


def _run_mindspore_side(item: Item, options: RunOptions, ref: Reference, locate: bool = True) -> Outcome:
    from migcheck.runners.mindspore_context import configure
    from migcheck.runners.mindspore_side import MindSporeCell

    case = item.case
    configure(item.mode, item.backend, options.device_id)
    try:
        cell = MindSporeCell(case.mindspore, item.mode, case.network_inputs)
    except Exception as exc:  # the factory raised while it built the port: which constructor call, and its fix
        if not locate:
            raise
        return _construction_failed(exc, item, options, ref)
    n_net = len(ref.input_names) - len(case.targets)
    torch_side = None if options.golden else (lambda: _torch_module(case))
    mapping = build_mapping(case, ref.params, cell, torch_side, ref.inputs[:n_net], ref.input_dtypes, ref.weights)
    problems = tuple(mapping.problems())
    try:
        outcome = _compare_mapped(item, options, ref, cell, mapping)
    except Exception as exc:
        if not problems:
            raise
        outcome = Outcome(Kind.VALUE, f"it could not run ({type(exc).__name__}: {exc})", mapping=mapping)
        outcome = dataclasses.replace(with_structure(outcome, problems), tensors=())
    else:
        outcome = with_structure(outcome, problems) if problems else outcome

    def rerun() -> Outcome:  # the item again, the port's parameter set as torch's (which flag, dtype or tensor)
        return _compare_mapped(item, options, ref, cell, build_mapping(
            case, ref.params, cell, torch_side, ref.inputs[:n_net], ref.input_dtypes, ref.weights))
    if locate and not options.golden:  # differences re-run away: constants, tied or unset, trainable, dtype
        from migcheck.running.param_fixes import with_rerun_causes
        outcome = with_rerun_causes(outcome, case, mapping, cell, torch_side, ref.weights, rerun,
                                    functools.partial(_passes_with, item, options, ref))
    return dataclasses.replace(outcome, notes=outcome.notes + mapping_notes(mapping, outcome.kind is not None))


def _construction_failed(exc: Exception, item: Item, options: RunOptions, ref: Reference) -> Outcome:
    """The error verdict, located at the constructor call that raised (localization/construction_error.py)."""
    outcome = error_outcome(exc, item, pynative_runs=lambda: _runs_in_pynative(item, options))
    if outcome.kind != Kind.ERROR or options.golden:  # golden mode has no torch to compare the layer with
        return outcome
    from migcheck.localization.construction_error import locate_construction

    try:
        site = locate_construction(item.case, ref, _tolerance_for(item, options, "forward"),
                                   functools.partial(_passes_with, item, options, ref))
    except Exception as exc2:  # best effort: the error verdict stands, and says why it has no place
        return dataclasses.replace(outcome, notes=outcome.notes + (
            f"the constructor call that raised could not be located ({type(exc2).__name__}: {_first_line(exc2)})",))
    return outcome if site is None else dataclasses.replace(outcome, localization=site.as_localization())


def _passes_with(item: Item, options: RunOptions, ref: Reference, factory: Callable[[], Any]) -> bool:
    """Whether the item passes (PYNATIVE) with the port built by another factory."""
    changed = dataclasses.replace(item, case=dataclasses.replace(item.case, mindspore=factory), mode="pynative")
    try:
        return _run_mindspore_side(changed, options, ref, locate=False).kind is None
    except Exception:  # the changed network does not build or run either
        return False


def _torch_module(case: PairedCase) -> Any:
    from migcheck.runners.torch_side import TorchModule

    return TorchModule(case.torch)


def _compare_mapped(item: Item, options: RunOptions, ref: Reference, cell: MindSporeProbe, mapping: WeightMapping) -> Outcome:
    """Load the mapped weights (unset parameters at the port's own values), run the check, judge it."""
    case = item.case
    cell.load(to_mindspore(ref.weights, mapping))
    apply_precision(case.precision, cell)
    # Cotangents are shaped like torch's outputs. The step check compares MindSpore's output shapes in a
    # forward pass first; the backward check compares those its gradient pass returns (no extra pass).
    try:
        return _compared(item, options, ref, cell, mapping)
    except Exception as exc:  # the port raised: where, and which of its settings makes it raise
        return _raised(exc, item, options, ref, cell, mapping)


def _raised(exc: Exception, item: Item, options: RunOptions, ref: Reference, cell: MindSporeProbe, mapping: WeightMapping) -> Outcome:
    from migcheck.runners.mindspore_context import flush_pending_errors

    flush_pending_errors()
    try:
        return _diagnosed_error(exc, item, options, ref, cell, mapping)
    finally:
        flush_pending_errors()


def _diagnosed_error(exc: Exception, item: Item, options: RunOptions, ref: Reference, cell: MindSporeProbe,
                     mapping: WeightMapping) -> Outcome:
    outcome = error_outcome(exc, item, pynative_runs=lambda: _runs_in_pynative(item, options))
    if outcome.kind != Kind.ERROR or options.golden:  # golden mode has no torch to compare the sub-cell with
        return outcome
    from migcheck.localization.exceptions import classify
    from migcheck.localization.raised import locate_raise

    try:
        site = locate_raise(item.case, ref, cell, mapping, _tolerance_for(item, options, "forward"),
                            classify(str(exc), item.backend))
    except Exception as exc2:  # localizing is best effort: the error verdict stands, and says why it has no place
        return dataclasses.replace(outcome, notes=outcome.notes + (
            f"where it raised could not be located ({type(exc2).__name__}: {_first_line(exc2)})",))
    if site is None and item.check in ("backward", "step", "train"):  # the forward runs: an op's backward?
        from migcheck.localization.raising_backward import locate_backward_raise

        try:
            found = locate_backward_raise(item.case, ref, cell, _tolerance_for(item, options, "forward"),
                                          outcome.message.split("; cause: ", 1)[1] if "; cause: " in outcome.message else "")
        except Exception:  # best effort, as above
            found = None
        if found is not None:
            return dataclasses.replace(outcome, localization=found)
    if site is None:
        return dataclasses.replace(outcome, notes=outcome.notes + (
            "where it raised could not be located: a PYNATIVE re-run with hooks went through",))
    return dataclasses.replace(outcome, localization=site.as_localization())


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:200]


def _compared(item: Item, options: RunOptions, ref: Reference, cell: MindSporeProbe, mapping: WeightMapping) -> Outcome:
    case = item.case
    shapes_matter = ref.objective is not None and bool(ref.objective.cotangents)
    after = shapes_matter and item.check == "backward"
    mismatch = _output_shape_mismatch(cell, ref, mapping) if shapes_matter and not after else None
    if mismatch is None:
        try:
            results, output_shapes = _mindspore_results(item, cell, ref, mapping)
            mismatch = _shape_mismatch(output_shapes or [], ref, mapping) if after else None
        except Exception as exc:
            # Cotangents of the wrong shape can break the objective itself: then the shapes are the verdict.
            mismatch = _probe_output_shapes(cell, ref, mapping, exc) if after else None
            if mismatch is None:
                raise
    if mismatch is not None:
        return dataclasses.replace(_localized(mismatch, item, options, ref, cell, mapping,
                                              _tolerance_for(item, options, "forward")), compile_s=cell.compile_s)
    skipped = {s.torch_name for s in mapping.skipped} | set(mapping.untransferred_torch())
    expected = {k: v for k, v in ref.results.items() if torch_name_of(k) not in skipped}
    profile = profile_for(item.backend, options)
    precision = as_precision(case.precision)
    tolerance_for = _tolerance_for(item, options, item.check)
    tensors = compare_trees(expected, results, tolerance_for, prefix="")
    tensors = tuple(dataclasses.replace(t, profile=profile) for t in tensors)
    if case.allow_empty:  # the case says empty tensors are intended
        tensors = tuple(dataclasses.replace(t, ok=True, kind=None, message=f"{t.name}: empty on both sides (allow_empty)")
                        if t.kind == "empty" else t for t in tensors)
    from migcheck.running.judged import for_localization, judge_tensors, settle_grey_zone

    tensors, judge_line = judge_tensors(tensors, item, options, ref, expected, results)
    outcome = dataclasses.replace(_outcome_from_tensors(tensors, mapping), judged_by=judge_line)
    if outcome.kind is None and judge_line.startswith("rtol/atol"):  # the terminal line names the judge
        outcome = dataclasses.replace(outcome, message=f"{outcome.message}; judged by {judge_line}")
    unmatched = tolerance_warnings(list(case.tolerances), item.check, [t.name for t in tensors])
    outcome = dataclasses.replace(outcome, notes=outcome.notes + tuple(unmatched))
    if ref.objective is not None and ref.objective.notes:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + ref.objective.notes)
    if precision is not None:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + (precision.describe(),))
    localized = _localized(for_localization(outcome), item, options, ref, cell, mapping, tolerance_for, results)
    outcome = settle_grey_zone(dataclasses.replace(localized, tensors=outcome.tensors), golden=bool(options.golden))
    return dataclasses.replace(outcome, compile_s=cell.compile_s)


def _tolerance_for(item: Item, options: RunOptions, check: str) -> Callable[[str, str], Tuple[Tolerance, str]]:
    """(tensor name, dtype) -> (tolerance, which layer chose it) for one item's comparisons of a check."""
    rules = ToleranceRules.build(item.case.tolerance, item.case.tolerances, options.rtol, options.atol)
    profile = profile_for(item.backend, options)
    precision = as_precision(item.case.precision)

    def tolerance_for(name: str, dtype: str) -> Tuple[Tolerance, str]:
        judged = tolerance_dtype(dtype, precision)
        tol, source = resolve(judged, check=check, backend=item.backend, tensor=name, rules=rules, profile=profile)
        return tol, (f"{source} (a {dtype} result of a {judged} run)" if judged != dtype else source)

    return tolerance_for


def _localized(outcome: Outcome, item: Item, options: RunOptions, ref: Reference, cell: MindSporeProbe,
               mapping: WeightMapping, tolerance_for: Any, results: Optional[Dict[str, Any]] = None) -> Outcome:
    """Attach where the pair first diverges and why, for failures a sub-cell re-run can explain."""
    from migcheck.localization.capture import LOCALIZABLE, locate
    from migcheck.localization.reliance import capped

    if outcome.kind not in LOCALIZABLE:
        return outcome
    if options.golden:
        return dataclasses.replace(outcome, notes=outcome.notes + (
            "localization needs torch to re-run the reference with hooks; it is skipped with --golden",))
    try:
        if item.check == "step" and results is not None:  # forward, backward, then the update: blame in order
            blamed = _blame_step(outcome, item, ref, cell, mapping, tolerance_for, results)
            if blamed is not None:
                return blamed
        cell.load(to_mindspore(ref.weights, mapping))  # train and step checks have moved the weights on
        found = capped(locate(item.case, item.check, ref, cell, mapping, outcome.tensors, tolerance_for), mapping)
    except Exception as exc:  # localisation explains a verdict; it must never replace one
        return dataclasses.replace(outcome, notes=outcome.notes + (f"localization failed: {type(exc).__name__}: {exc}",))
    return dataclasses.replace(outcome, localization=found)


def _blame_step(outcome: Outcome, item: Item, ref: Reference, cell: MindSporeProbe, mapping: WeightMapping,
                tolerance_for: Any, results: Dict[str, Any]) -> Optional[Outcome]:
    """A step whose forward and gradients agree is the optimizer's fault: no sub-cell to look for."""
    from migcheck.localization.locate import Localization
    from migcheck.localization.stages import blame_step

    blame = blame_step(item.case, ref, cell, mapping, results, outcome.tensors, tolerance_for)
    if blame is None or blame.stage != "optimizer":
        return None
    return dataclasses.replace(outcome, localization=Localization(rows=(), first_divergence=None, first_divergence_ms=None,
                                                                  findings=blame.findings, summary=blame.summary))


def mapping_for(case: PairedCase, mode: str = "pynative", backend: str = "cpu", resolve: bool = True) -> WeightMapping:
    """Build both sides and map their weights: what `migcheck map` shows. Ambiguous pairings are settled
    by one forward pass per candidate on the case's seeded inputs (resolve=False: no forward pass)."""
    from migcheck.running.fixtures import make_inputs, make_weights
    from migcheck.runners.mindspore_context import configure
    from migcheck.runners.mindspore_side import MindSporeCell
    from migcheck.runners.torch_side import TorchModule

    configure(mode, backend)
    module = TorchModule(case.torch)
    specs = case.input_specs
    n_net = len(specs) - len(case.targets)
    inputs = list(make_inputs(case.name, specs).values())[:n_net]
    weights = make_weights(module.params(), case_name=case.name, fill=case.weights, built=module.state())
    return build_mapping(case, module.params(), MindSporeCell(case.mindspore, mode),
                         (lambda: module) if resolve else None, inputs, [spec.dtype for _, spec in specs], weights)


def _output_shape_mismatch(cell: MindSporeProbe, ref: Reference, mapping: WeightMapping) -> Optional[Outcome]:
    """Cotangents are shaped like torch's outputs: if MindSpore's differ, that is the verdict."""
    n_net = ref.objective.n_net_inputs
    out = cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=False)
    return _shape_mismatch([(name, np.shape(leaf)) for name, leaf in flatten(out)], ref, mapping)


def _probe_output_shapes(cell: MindSporeProbe, ref: Reference, mapping: WeightMapping, exc: Exception) -> Optional[Outcome]:
    """After the gradient pass failed: the nesting or shape mismatch that explains it, or None (the failure stands)."""
    from migcheck.running.output_structure import structure_outcome

    try:
        out = cell.forward(ref.inputs[:ref.objective.n_net_inputs], ref.input_dtypes, train=False)
    except Exception:
        return None
    nesting = structure_outcome(exc, ref.objective.paths, out)
    if nesting is not None:
        return dataclasses.replace(nesting, mapping=mapping)
    return _shape_mismatch([(name, np.shape(leaf)) for name, leaf in flatten(out)], ref, mapping)


def _shape_mismatch(ms_outputs: Sequence[Tuple[str, Tuple[int, ...]]], ref: Reference,
                    mapping: WeightMapping) -> Optional[Outcome]:
    """MindSpore's (name, shape) per output leaf against the cotangents' (torch's) shapes."""
    ms_shapes = [shape for _, shape in ms_outputs]
    pt_shapes = [np.shape(c) if c is not None else None for c in ref.objective.cotangents]
    if len(ms_shapes) != len(pt_shapes):
        return Outcome(Kind.TREE, f"the network returns {len(ms_shapes)} output(s) in MindSpore and {len(pt_shapes)} in torch",
                       mapping=mapping)
    for (name, _), ms_shape, pt_shape in zip(ms_outputs, ms_shapes, pt_shapes):
        if pt_shape is not None and tuple(ms_shape) != tuple(pt_shape):
            return Outcome(Kind.SHAPE, f"shape mismatch in {name}: torch {fmt_shape(pt_shape)} vs mindspore"
                           f" {fmt_shape(tuple(ms_shape))} (gradients need equal output shapes)", mapping=mapping)
    return None


def _mindspore_results(item: Item, cell: Side, ref: Reference,
                       mapping: WeightMapping) -> Tuple[Dict[str, Any], Optional[List[Tuple[str, Tuple[int, ...]]]]]:
    """The MindSpore side's results under the reference's (torch) names, and the output shapes of a
    gradient pass that returned them (None otherwise)."""
    case = item.case
    results, _, shapes = check_results(cell, CheckRun(
        item.check, ref.inputs, ref.input_dtypes, ref.input_names, len(ref.input_names) - len(case.targets),
        ref.params, ref.objective, case.loss.mindspore if case.loss else None,
        optimizer_for(case, "mindspore") if item.check == "step" else None, case.steps,
        case.adapt_mindspore or (lambda out: out), lambda tree: to_torch(tree, mapping)))
    return results, shapes


def _outcome_from_tensors(tensors: Tuple[TensorComparison, ...], mapping: WeightMapping) -> Outcome:
    failing = [t for t in tensors if not t.ok]
    notes = tuple(n for t in tensors for n in t.notes)
    if not failing:
        worst = max((t.max_abs_err for t in tensors), default=0.0)
        noisy = sum(t.tolerance_source.startswith("conditioning:") for t in tensors)
        random = sum(t.tolerance_source.startswith("random output") for t in tensors)
        within = (f"; {noisy} ill-conditioned tensor(s) agree within what float32 resolves (judged against a float64"
                  " re-run of torch)" if noisy else "")
        within += (f"; {random} random output(s) (dropout) agree in distribution, not element by element"
                   if random else "")
        within += budget_summary(tensors)
        return Outcome(None, f"{len(tensors)} tensor(s) agree; max abs err {worst:.3g}{within}", tensors,
                       mapping=mapping, notes=notes)
    first = min(failing, key=lambda t: KIND_ORDER.index(t.kind))
    more = f" (+{len(failing) - 1} more failing tensor(s))" if len(failing) > 1 else ""
    tensors, bounded = keep_detail(tensors, KIND_ORDER)  # the report's size stays bounded on real nets
    return Outcome(first.kind, first.message + more, tensors, mapping=mapping, notes=notes + ((bounded,) if bounded else ()))

