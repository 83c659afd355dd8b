"""Runs one item (case x check x mode x backend) through fixtures, runners, mapping and comparator."""
from __future__ import annotations

import dataclasses
import functools
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.case import BACKENDS, PRESET_BACKENDS, PairedCase
from migcheck.compare import TensorComparison, compare_trees, fmt_shape
from migcheck.fixtures import make_inputs, make_weights
from migcheck.golden import GoldenProblem, RecordedSkip
from migcheck.mapping import WeightMapping, map_weights, to_mindspore, to_torch
from migcheck.objective import LazyObjective, Objective, make_cotangents, output_layout_problem
from migcheck.params import ParamInfo
from migcheck.precision import apply_precision, as_precision, tolerance_dtype, unsupported_reason
from migcheck.planning import Item, effective_checks, plan  # noqa: F401  (re-exported: light, in planning.py)
from migcheck.tolerance import BUDGET, Budget, Tolerance, ToleranceRules, default_profile, resolve
from migcheck.tree import flatten, index_paths
from migcheck.verdict import Verdict, expectation, judge, judge_diagnosis

# When several tensors fail, the verdict's kind is the most fundamental one.
KIND_ORDER = ("structure", "tree", "shape", "dtype", "nonfinite", "value")


@dataclass(frozen=True)
class RunOptions:
    checks: Optional[Tuple[str, ...]] = None  # None: each case's own checks
    modes: Tuple[str, ...] = ("pynative", "graph")
    backends: Tuple[str, ...] = ("cpu",)
    # --rtol / --atol from the command line: they win over every other tolerance layer.
    rtol: Optional[float] = None
    atol: Optional[float] = None
    # Reference source: None runs torch here; a folder reads golden fixtures (torch is never imported).
    golden: Optional[str] = None
    torch_device: str = "cpu"  # cpu, cuda or auto (torch runs the reference there)
    device_id: Optional[int] = None  # passed to mindspore.set_device(target, device_id)
    profile: Optional[str] = None  # tolerance profile; None: each backend's own
    tolerance_mode: Optional[str] = None  # standard or budget; None: each case's own
    budget_factor: Optional[float] = None  # None: tolerance.BUDGET.factor


class SkipCheck(Exception):
    """This check cannot apply to this case; the message says why (shown as the skip reason)."""


@dataclass(frozen=True)
class Reference:
    """Everything the torch side produced for one case and check; plain numpy, so it can be stored.

    ``results`` maps tensor names ('out', 'grad.param.fc.weight', 'step1.loss') to numpy trees;
    the MindSpore side produces the same names through the weight mapping.
    """

    inputs: Tuple[np.ndarray, ...]  # network inputs first, then loss targets
    input_names: Tuple[str, ...]
    input_dtypes: Tuple[str, ...]
    params: Tuple[ParamInfo, ...]
    weights: Dict[str, np.ndarray]
    results: Dict[str, Any]
    objective: Optional[Objective] = None
    # The same results computed in float64 from the same inputs, weights and cotangents: the
    # oracle of error-budget mode. None unless that mode asked for it.
    oracle: Optional[Dict[str, Any]] = None


_REFERENCES: Dict[Tuple[str, ...], Reference] = {}
_ORACLES: Dict[Tuple[str, ...], Dict[str, Any]] = {}


def reference(case: PairedCase, check: str, options: RunOptions = RunOptions()) -> Tuple[Reference, str]:
    """The seam between the two reference sources: golden fixtures (options.golden) or torch run here.

    Returns the reference and a line saying where it came from. Golden mode never imports torch.
    """
    budget = tolerance_mode_for(case, options) == "budget"
    if options.golden:
        from migcheck.fingerprint import case_fingerprint
        from migcheck.golden import load_check
        from migcheck.record import record_hint

        fingerprint, parts = case_fingerprint(case)
        try:
            loaded = load_check(options.golden, case.name, check, fingerprint, parts, need_oracle=budget,
                                record_hint=record_hint(case, options.golden))
        except RecordedSkip as skip:
            raise SkipCheck(f"{skip} (recorded with the golden)") from None
        return Reference(**loaded.fields), loaded.description
    from migcheck.runners.torch_side import resolve_device, versions

    device = resolve_device(options.torch_device)
    ref = torch_reference(case, check, device=device)
    if budget:
        try:
            ref = dataclasses.replace(ref, oracle=torch_oracle(case, check, device=device))
        except SkipCheck:
            raise
        except Exception as exc:
            raise RuntimeError(f"the float64 oracle of error-budget mode could not run: {type(exc).__name__}: {exc}") from exc
    return ref, f"torch {versions()['torch']} on {device}"


def tolerance_mode_for(case: PairedCase, options: RunOptions) -> str:
    return options.tolerance_mode or case.tolerance_mode


def torch_reference(case: PairedCase, check: str, device: str = "cpu") -> Reference:
    """The torch side's results, computed once per process and reused by every mode and backend."""
    key = (case.file, case.name, check, device)
    if key not in _REFERENCES:
        _REFERENCES[key] = _compute_reference(case, check, device)
    return _REFERENCES[key]


def torch_oracle(case: PairedCase, check: str, device: str = "cpu") -> Dict[str, Any]:
    """torch_reference's results recomputed in float64: same inputs, weights and cotangents, widened."""
    key = (case.file, case.name, check, device)
    if key not in _ORACLES:
        _ORACLES[key] = _compute_oracle(case, check, device)
    return _ORACLES[key]


def _compute_oracle(case: PairedCase, check: str, device: str) -> Dict[str, Any]:
    from migcheck.runners.torch_side import TorchModule

    ref = torch_reference(case, check, device=device)
    module = TorchModule(case.torch, device)
    module.load(ref.weights)
    module.to_float64()
    n_net = len(ref.input_names) - len(case.targets)
    return _torch_results(case, check, module, ref.inputs, ref.input_dtypes, ref.input_names, n_net, ref.params,
                          ref.objective)


def _torch_results(case: PairedCase, check: str, module: Any, inputs: Tuple[np.ndarray, ...],
                   dtypes: Tuple[str, ...], order: Sequence[str], n_net: int, params: Tuple[ParamInfo, ...],
                   objective: Optional[Objective]) -> Dict[str, Any]:
    """One check's results from a loaded torch module (the reference and its float64 oracle share it)."""
    adapt = case.adapt_torch or (lambda out: out)
    if check == "forward":
        return {"out": adapt(module.forward(inputs[:n_net], dtypes, train=False))}
    if check == "train":
        out = module.forward(inputs[:n_net], dtypes, train=True)
        state = module.state()
        return {"out": adapt(out), **{f"state.{p.name}": state[p.name] for p in params if p.is_buffer}}
    loss = case.loss.torch if case.loss else None
    if check == "backward":
        input_grads, param_grads = module.gradients(inputs, dtypes, objective, loss)
        return _gradient_results(input_grads, param_grads, order)
    records = module.steps(inputs, dtypes, objective, loss, _optimizer_for(case, "torch"), case.steps)
    return _step_results(records, params)


def _compute_reference(case: PairedCase, check: str, device: str = "cpu") -> Reference:
    from migcheck.runners.torch_side import TorchModule

    specs = dict(case.input_specs)
    order = [n for n in specs if n not in case.targets] + list(case.targets)
    drawn = make_inputs(case.name, list(specs.items()))
    inputs = tuple(drawn[n] for n in order)
    dtypes = tuple(specs[n].dtype for n in order)
    n_net = len(order) - len(case.targets)
    module = TorchModule(case.torch, device)
    params = tuple(module.params())
    weights = make_weights(params, case_name=case.name, fill=case.weights, built=module.state())
    module.load(weights)
    apply_precision(case.precision, module)
    objective = None if check in ("forward", "train") else _objective(case, module, inputs, dtypes, n_net,
                                                                       lazy=check == "backward")
    results = _torch_results(case, check, module, inputs, dtypes, order, n_net, params, objective)
    if isinstance(objective, LazyObjective):
        objective = module.objective  # built from the outputs of the gradient pass itself
    return Reference(inputs, tuple(order), dtypes, params, weights, results, objective)


def _objective(case: PairedCase, module: Any, inputs: Tuple[np.ndarray, ...], dtypes: Tuple[str, ...], n_net: int,
               lazy: bool = False) -> Union[Objective, LazyObjective]:
    """lazy: the cotangents are shaped by the gradient pass's own outputs (no extra forward pass)."""
    if case.loss is not None:
        return Objective(n_net, ())
    if case.adapt_torch is not None or case.adapt_mindspore is not None:
        raise SkipCheck("output adapters are numpy functions, so gradients through them cannot be paired;"
                        " give the case a loss=FrameworkPair(...) to differentiate instead")
    if lazy:
        return LazyObjective(n_net, functools.partial(_objective_from_outputs, case, n_net))
    return _objective_from_outputs(case, n_net, module.forward(inputs[:n_net], dtypes, train=False))


def _objective_from_outputs(case: PairedCase, n_net: int, raw: Any) -> Objective:
    """Seeded cotangents for the network's outputs (only their structure, shapes and dtypes count)."""
    problem = output_layout_problem(raw)
    if problem:
        raise SkipCheck(problem + "; give the case a loss=FrameworkPair(...) that reduces it to a scalar")
    cotangents, notes = make_cotangents(case.name, raw)
    return Objective(n_net, cotangents, notes, tuple(index_paths(raw)))


def _optimizer_for(case: PairedCase, side: str) -> Any:
    """A preset name (each runner knows its half) or this side's factory from the FrameworkPair."""
    return case.optimizer if isinstance(case.optimizer, str) else getattr(case.optimizer, side)


def _gradient_results(input_grads: Dict[int, np.ndarray], param_grads: Dict[str, np.ndarray],
                      order: Sequence[str]) -> Dict[str, Any]:
    results: Dict[str, Any] = {f"grad.input.{order[i]}": g for i, g in input_grads.items()}
    results.update({f"grad.param.{name}": g for name, g in param_grads.items()})
    return results


def _step_results(records: Sequence[Dict[str, Any]], params: Sequence[ParamInfo]) -> Dict[str, Any]:
    results: Dict[str, Any] = {}
    for k, record in enumerate(records, start=1):
        results[f"step{k}.loss"] = record["loss"]
        for p in params:
            if p.name in record["state"]:
                results[f"step{k}.{'state' if p.is_buffer else 'param'}.{p.name}"] = record["state"][p.name]
    return results


def skip_reason(item: Item, options: Optional[RunOptions] = None) -> Optional[str]:
    case = item.case
    if item.mode not in case.modes:
        return f"case runs only in {', '.join(case.modes)} mode"
    for key in (item.mode, item.check, f"{item.check}-{item.mode}"):
        if key in case.skip:
            return case.skip[key]
    if item.backend not in BACKENDS:
        return f"unknown backend {item.backend!r}"
    unsupported = unsupported_reason(as_precision(case.precision), item.backend)
    if unsupported:
        return unsupported
    needs = PRESET_BACKENDS.get(case.optimizer) if isinstance(case.optimizer, str) else None
    if item.check == "step" and needs and item.backend not in needs:
        return (f"the {case.optimizer!r} preset's MindSpore optimizer runs on {', '.join(needs)} only;"
                f" pass optimizer=FrameworkPair(...) to step on {item.backend}")
    from migcheck.runners.mindspore_side import backend_unavailable

    reason = backend_unavailable(item.backend, options.device_id if options else None)
    if reason is None and options is not None and not options.golden and options.torch_device != "cpu":
        from migcheck.runners.torch_side import device_unavailable

        reason = device_unavailable(options.torch_device)
    return reason


def profile_for(backend: str, options: RunOptions) -> str:
    return options.profile or default_profile(backend)


def run_item(item: Item, options: RunOptions = RunOptions()) -> Verdict:
    started = time.perf_counter()
    case = item.case
    expected = expectation(case.expect, case.fails_with, case.fails_on, item.check, item.mode)
    base = dict(case=case.name, check=item.check, mode=item.mode, backend=item.backend,
                expected=expected, file=case.file, profile=profile_for(item.backend, options),
                tolerance_mode=tolerance_mode_for(case, options))
    reason = skip_reason(item, options)
    if reason is not None:
        return Verdict(status="skip", kind=None, message=reason, **base)
    try:
        outcome = _run_check(item, options)
    except SkipCheck as skip:
        return Verdict(status="skip", kind=None, message=str(skip), duration_s=time.perf_counter() - started, **base)
    except GoldenProblem as problem:  # never used, whatever the case expected: an error naming the fix
        return Verdict(status="error", kind=problem.kind, message=str(problem), reference=options.golden or "",
                       duration_s=time.perf_counter() - started, **base)
    except Exception as exc:  # a broken case is a verdict, never a crash of the run
        outcome = _error_outcome(exc, item)
    status, remark = judge(outcome.kind, expected)
    status, remark = judge_diagnosis(status, remark, case.diagnosis, outcome.localization,
                                     localization_skipped=bool(options.golden))
    message = outcome.message if not remark else f"{remark}: {outcome.message}" if outcome.message else remark
    return Verdict(status=status, kind=outcome.kind, message=message, tensors=outcome.tensors,
                   structure=outcome.structure, mapping=outcome.mapping.pairs if outcome.mapping else (),
                   skipped_params=outcome.mapping.skipped if outcome.mapping else (), error=outcome.error,
                   duration_s=time.perf_counter() - started, compile_s=outcome.compile_s, notes=outcome.notes,
                   reference=outcome.reference,
                   localization=outcome.localization, **base)


@dataclass(frozen=True)
class Outcome:
    kind: Optional[str]
    message: str
    tensors: Tuple[TensorComparison, ...] = ()
    structure: Tuple[str, ...] = ()
    mapping: Optional[WeightMapping] = None
    error: str = ""
    notes: Tuple[str, ...] = field(default_factory=tuple)
    reference: str = ""  # where the torch side's results came from
    compile_s: float = 0.0  # GRAPH mode: seconds MindSpore spent compiling graphs
    localization: Optional[Any] = None  # migcheck.localize.Localization for failing verdicts


def _run_check(item: Item, options: RunOptions) -> Outcome:
    case = item.case
    try:
        ref, source = reference(case, item.check, options)
    except (SkipCheck, GoldenProblem):
        raise
    except Exception as exc:
        return _error_outcome(exc, item, side="torch")
    outcome = _run_mindspore_side(item, options, ref)
    return dataclasses.replace(outcome, reference=source)


def _run_mindspore_side(item: Item, options: RunOptions, ref: Reference) -> Outcome:
    from migcheck.runners.mindspore_side import MindSporeCell, configure

    case = item.case
    configure(item.mode, item.backend, options.device_id)
    cell = MindSporeCell(case.mindspore, item.mode)
    mapping = map_weights(ref.params, cell.params(), case.weight_map, case.weight_transforms)
    problems = tuple(mapping.problems())
    if problems:
        return Outcome("structure", f"weights cannot be transferred: {problems[0]}"
                       + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""),
                       structure=problems, mapping=mapping)
    cell.load(to_mindspore(ref.weights, mapping))
    apply_precision(case.precision, cell)
    # Cotangents are shaped like torch's outputs. The step check compares MindSpore's output shapes in a
    # forward pass first; the backward check compares those its gradient pass returns (no extra pass).
    shapes_matter = ref.objective is not None and bool(ref.objective.cotangents)
    after = shapes_matter and item.check == "backward"
    mismatch = _output_shape_mismatch(cell, ref, mapping) if shapes_matter and not after else None
    if mismatch is None:
        try:
            results = _mindspore_results(item, cell, ref, mapping)
            mismatch = _shape_mismatch(cell.output_shapes, ref, mapping) if after else None
        except Exception:
            # Cotangents of the wrong shape can break the objective itself: then the shapes are the verdict.
            mismatch = _probe_output_shapes(cell, ref, mapping) if after else None
            if mismatch is None:
                raise
    if mismatch is not None:
        return dataclasses.replace(_localized(mismatch, item, options, ref, cell, mapping,
                                              _tolerance_for(item, options, "forward")), compile_s=cell.compile_s)
    skipped = {s.torch_name for s in mapping.skipped}
    expected = {k: v for k, v in ref.results.items() if _torch_name_of(k) not in skipped}
    profile = profile_for(item.backend, options)
    precision = as_precision(case.precision)
    tolerance_for = _tolerance_for(item, options, item.check)
    tensors = compare_trees(expected, results, tolerance_for, prefix="")
    tensors = tuple(dataclasses.replace(t, profile=profile) for t in tensors)
    if tolerance_mode_for(case, options) == "budget":
        from migcheck.budget import apply_budget

        budget = BUDGET if options.budget_factor is None else Budget(options.budget_factor, BUDGET.floor_eps)
        tensors = apply_budget(tensors, expected, results, ref.oracle or {}, budget)
    conditioning: Tuple[str, ...] = ()
    if tolerance_mode_for(case, options) != "budget" and any(t.kind == "value" for t in tensors) \
            and all(t.ok or t.kind == "value" for t in tensors) and not options.golden:
        tensors, conditioning = _conditioned(case, item, expected, results, tensors)
    outcome = _outcome_from_tensors(tensors, mapping)
    if conditioning:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + conditioning)
    if ref.objective is not None and ref.objective.notes:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + ref.objective.notes)
    if precision is not None:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + (precision.describe(),))
    return dataclasses.replace(_localized(outcome, item, options, ref, cell, mapping, tolerance_for),
                               compile_s=cell.compile_s)


def _conditioned(case: PairedCase, item: Item, expected: Any, results: Any, tensors: Any) -> Tuple[Any, Tuple[str, ...]]:
    """Re-judge value failures against torch's own float32 error (a float64 torch run, only on failure)."""
    from migcheck.conditioning import rejudge

    if item.check not in ("forward", "backward") or case.precision is not None:
        return tensors, ()
    try:
        oracle = torch_oracle(case, item.check)
    except Exception:  # a model without float64 support is judged at the plain tolerance
        return tensors, ()
    return rejudge(tensors, expected, results, oracle)


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


def _localized(outcome: Outcome, item: Item, options: RunOptions, ref: Reference, cell: Any,
               mapping: WeightMapping, tolerance_for: Any) -> Outcome:
    """Attach where the pair first diverges and why, for failures a sub-cell re-run can explain."""
    from migcheck.divergence import LOCALIZABLE, locate

    if outcome.kind not in LOCALIZABLE:
        return outcome
    if options.golden:
        return dataclasses.replace(outcome, notes=outcome.notes + (
            "localization needs torch to re-run the reference with hooks; it is skipped with --golden",))
    try:
        cell.load(to_mindspore(ref.weights, mapping))  # train and step checks have moved the weights on
        found = locate(item.case, item.check, ref, cell, mapping, outcome.tensors, tolerance_for)
    except Exception as exc:  # localisation explains a verdict; it must never replace one
        return dataclasses.replace(outcome, notes=outcome.notes + (f"localization failed: {type(exc).__name__}: {exc}",))
    return dataclasses.replace(outcome, localization=found)


def mapping_for(case: PairedCase, mode: str = "pynative", backend: str = "cpu") -> WeightMapping:
    """Build both sides (no forward pass) and map their weights: what `migcheck map` shows."""
    from migcheck.runners.mindspore_side import MindSporeCell, configure
    from migcheck.runners.torch_side import TorchModule

    configure(mode, backend)
    return map_weights(TorchModule(case.torch).params(), MindSporeCell(case.mindspore, mode).params(),
                       case.weight_map, case.weight_transforms)


def _output_shape_mismatch(cell: Any, ref: Reference, mapping: WeightMapping) -> Optional[Outcome]:
    """Cotangents are shaped like torch's outputs: if MindSpore's differ, that is the verdict."""
    n_net = ref.objective.n_net_inputs
    out = cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=False)
    return _shape_mismatch([(name, np.shape(leaf)) for name, leaf in flatten(out)], ref, mapping)


def _probe_output_shapes(cell: Any, ref: Reference, mapping: WeightMapping) -> Optional[Outcome]:
    """After the gradient pass failed: the shape mismatch that explains it, or None (the failure stands)."""
    try:
        return _output_shape_mismatch(cell, ref, mapping)
    except Exception:
        return None


def _shape_mismatch(ms_outputs: Sequence[Tuple[str, Tuple[int, ...]]], ref: Reference,
                    mapping: WeightMapping) -> Optional[Outcome]:
    """MindSpore's (name, shape) per output leaf against the cotangents' (torch's) shapes."""
    ms_shapes = [shape for _, shape in ms_outputs]
    pt_shapes = [np.shape(c) if c is not None else None for c in ref.objective.cotangents]
    if len(ms_shapes) != len(pt_shapes):
        return Outcome("tree", f"the network returns {len(ms_shapes)} output(s) in MindSpore and {len(pt_shapes)} in torch",
                       mapping=mapping)
    for (name, _), ms_shape, pt_shape in zip(ms_outputs, ms_shapes, pt_shapes):
        if pt_shape is not None and tuple(ms_shape) != tuple(pt_shape):
            return Outcome("shape", f"shape mismatch in {name}: torch {fmt_shape(pt_shape)} vs mindspore"
                           f" {fmt_shape(tuple(ms_shape))} (gradients need equal output shapes)", mapping=mapping)
    return None


def _torch_name_of(result_name: str) -> str:
    """'state.bn.running_mean' / 'step2.param.fc.weight' / 'grad.param.x' -> the torch name part."""
    for marker in (".state.", ".param."):
        if marker in result_name:
            return result_name.split(marker, 1)[1]
    return result_name.split(".", 1)[1] if result_name.startswith("state.") else result_name


def _mindspore_results(item: Item, cell: Any, ref: Reference, mapping: WeightMapping) -> Dict[str, Any]:
    """The MindSpore side's results under the reference's (torch) names."""
    case = item.case
    n_net = len(ref.input_names) - len(case.targets)
    adapt = case.adapt_mindspore or (lambda out: out)
    if item.check == "forward":
        return {"out": adapt(cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=False))}
    if item.check == "train":
        out = cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=True)
        state = to_torch(cell.state(), mapping)
        return {"out": adapt(out), **{f"state.{p.name}": state[p.name] for p in ref.params
                                      if p.is_buffer and p.name in state}}
    loss = case.loss.mindspore if case.loss else None
    if item.check == "backward":
        input_grads, param_grads = cell.gradients(ref.inputs, ref.input_dtypes, ref.objective, loss)
        return _gradient_results(input_grads, to_torch(param_grads, mapping), ref.input_names)
    records = cell.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, _optimizer_for(case, "mindspore"), case.steps)
    renamed = [{"loss": r["loss"], "state": to_torch(r["state"], mapping)} for r in records]
    return _step_results(renamed, ref.params)


def _outcome_from_tensors(tensors: Tuple[TensorComparison, ...], mapping: WeightMapping) -> Outcome:
    failing = [t for t in tensors if not t.ok]
    notes = tuple(n for t in tensors for n in t.notes)
    if not failing:
        worst = max((t.max_abs_err for t in tensors), default=0.0)
        return Outcome(None, f"{len(tensors)} tensor(s) agree; max abs err {worst:.3g}", tensors, mapping=mapping, notes=notes)
    first = min(failing, key=lambda t: KIND_ORDER.index(t.kind))
    more = f" (+{len(failing) - 1} more failing tensor(s))" if len(failing) > 1 else ""
    return Outcome(first.kind, first.message + more, tensors, mapping=mapping, notes=notes)


def _error_outcome(exc: BaseException, item: Item, side: str = "") -> Outcome:
    from migcheck.runners import mindspore_side

    graph = item.mode == "graph" and side != "torch" and mindspore_side.is_graph_compile_error(exc)
    kind = "graph-compile-error" if graph else "error"
    where = side or "mindspore"
    text = _first_lines(str(exc), 3)
    message = f"{where} side raised {type(exc).__name__}: {text}"
    if graph:
        message = (f"GRAPH mode could not compile the cell: {text}; hint: move numpy/Python-object work out of"
                   f" construct (into __init__) or run this case in PYNATIVE only (skip={{'graph': '...'}})")
    return Outcome(kind, message, error=_excerpt(exc, item.case.file))


def _first_lines(text: str, n: int) -> str:
    """The message's first lines, stopping at MindSpore's '----' banners (its C++ stack follows)."""
    lines = []
    for line in text.strip().splitlines():
        if line.startswith("-----"):
            break
        if line.strip():
            lines.append(line.strip())
    return " / ".join(lines[:n]) if lines else "(no message)"


def _excerpt(exc: BaseException, case_file: str) -> str:
    """The exception and the frames in the user's case file; migcheck's own frames are noise."""
    frames = traceback.extract_tb(exc.__traceback__)
    package = __file__.rsplit("engine.py", 1)[0]  # migcheck/: frames there say nothing about the case
    mine = ([f for f in frames if case_file and f.filename == case_file]
            or [f for f in frames if not f.filename.startswith(package)][-2:])
    lines = [f"{f.filename}:{f.lineno} in {f.name}: {f.line or ''}".rstrip() for f in mine]
    body = str(exc).strip().splitlines()
    construct = [line for line in body if line.strip().startswith(("# ", "In file"))][:6]
    return "\n".join(lines + [f"{type(exc).__name__}: {_first_lines(str(exc), 8)}"] + construct)
