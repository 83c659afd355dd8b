"""Runs one item (case x check x mode x backend) through fixtures, runners, mapping and comparator."""
from __future__ import annotations

import dataclasses
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.case import BACKENDS, PRESET_BACKENDS, PairedCase
from migcheck.compare import TensorComparison, compare_trees, fmt_shape
from migcheck.fixtures import make_inputs, make_weights
from migcheck.mapping import WeightMapping, map_weights, to_mindspore
from migcheck.objective import Objective, make_cotangents, output_layout_problem
from migcheck.params import ParamInfo
from migcheck.tolerance import Tolerance, ToleranceRules, resolve
from migcheck.tree import flatten
from migcheck.verdict import Verdict, expectation, judge

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


@dataclass(frozen=True)
class Item:
    case: PairedCase
    check: str
    mode: str
    backend: str

    @property
    def id(self) -> str:
        return f"{self.case.name}[{self.check}-{self.mode}-{self.backend}]"


def effective_checks(case: PairedCase) -> Tuple[str, ...]:
    """The case's own checks, or the defaults: forward, backward, train, and step with an optimizer."""
    if case.checks is not None:
        return tuple(case.checks)
    return ("forward", "backward", "train") + (("step",) if case.optimizer is not None else ())


def plan(cases: Sequence[PairedCase], options: RunOptions) -> List[Item]:
    """Every case x check x mode x backend, in a stable order."""
    items = []
    for case in cases:
        checks = [c for c in effective_checks(case) if options.checks is None or c in options.checks]
        for check in checks:
            for mode in options.modes:
                for backend in options.backends:
                    items.append(Item(case, check, mode, backend))
    return items


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


_REFERENCES: Dict[Tuple[str, str, str], Reference] = {}


def torch_reference(case: PairedCase, check: str) -> Reference:
    """The torch side's results, computed once per process and reused by every mode and backend."""
    key = (case.file, case.name, check)
    if key not in _REFERENCES:
        _REFERENCES[key] = _compute_reference(case, check)
    return _REFERENCES[key]


def _compute_reference(case: PairedCase, check: str) -> Reference:
    from migcheck.runners.torch_side import TorchModule

    specs = dict(case.input_specs)
    order = [n for n in specs if n not in case.targets] + list(case.targets)
    drawn = make_inputs(case.name, list(specs.items()))
    inputs = tuple(drawn[n] for n in order)
    dtypes = tuple(specs[n].dtype for n in order)
    n_net = len(order) - len(case.targets)
    module = TorchModule(case.torch)
    params = tuple(module.params())
    weights = make_weights(params, case_name=case.name, fill=case.weights, built=module.state())
    module.load(weights)
    adapt = case.adapt_torch or (lambda out: out)
    objective = None
    if check == "forward":
        results: Dict[str, Any] = {"out": adapt(module.forward(inputs[:n_net], dtypes, train=False))}
    elif check == "train":
        out = module.forward(inputs[:n_net], dtypes, train=True)
        state = module.state()
        results = {"out": adapt(out), **{f"state.{p.name}": state[p.name] for p in params if p.is_buffer}}
    else:
        objective = _objective(case, module, inputs, dtypes, n_net)
        loss = case.loss.torch if case.loss else None
        if check == "backward":
            input_grads, param_grads = module.gradients(inputs, dtypes, objective, loss)
            results = _gradient_results(input_grads, param_grads, order)
        else:
            records = module.steps(inputs, dtypes, objective, loss, _optimizer_for(case, "torch"), case.steps)
            results = _step_results(records, params)
    return Reference(inputs, tuple(order), dtypes, params, weights, results, objective)


def _objective(case: PairedCase, module: Any, inputs: Tuple[np.ndarray, ...], dtypes: Tuple[str, ...], n_net: int) -> Objective:
    if case.loss is not None:
        return Objective(n_net, ())
    if case.adapt_torch is not None or case.adapt_mindspore is not None:
        raise SkipCheck("output adapters are numpy functions, so gradients through them cannot be paired;"
                        " give the case a loss=FrameworkPair(...) to differentiate instead")
    raw = module.forward(inputs[:n_net], dtypes, train=False)
    problem = output_layout_problem(raw)
    if problem:
        raise SkipCheck(problem + "; give the case a loss=FrameworkPair(...) that reduces it to a scalar")
    cotangents, notes = make_cotangents(case.name, raw)
    return Objective(n_net, cotangents, notes)


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


def skip_reason(item: Item) -> Optional[str]:
    case = item.case
    if item.mode not in case.modes:
        return f"case runs only in {', '.join(case.modes)} mode"
    for key in (item.mode, item.check, f"{item.check}-{item.mode}"):
        if key in case.skip:
            return case.skip[key]
    if item.backend not in BACKENDS:
        return f"unknown backend {item.backend!r}"
    needs = PRESET_BACKENDS.get(case.optimizer) if isinstance(case.optimizer, str) else None
    if item.check == "step" and needs and item.backend not in needs:
        return (f"the {case.optimizer!r} preset's MindSpore optimizer runs on {', '.join(needs)} only;"
                f" pass optimizer=FrameworkPair(...) to step on {item.backend}")
    from migcheck.runners.mindspore_side import backend_unavailable

    return backend_unavailable(item.backend)


def run_item(item: Item, options: RunOptions = RunOptions()) -> Verdict:
    started = time.perf_counter()
    case = item.case
    expected = expectation(case.expect, case.fails_with, case.fails_on, item.check, item.mode)
    base = dict(case=case.name, check=item.check, mode=item.mode, backend=item.backend,
                expected=expected, file=case.file)
    reason = skip_reason(item)
    if reason is not None:
        return Verdict(status="skip", kind=None, message=reason, **base)
    try:
        outcome = _run_check(item, options)
    except SkipCheck as skip:
        return Verdict(status="skip", kind=None, message=str(skip), duration_s=time.perf_counter() - started, **base)
    except Exception as exc:  # a broken case is a verdict, never a crash of the run
        outcome = _error_outcome(exc, item)
    status, remark = judge(outcome.kind, expected)
    message = outcome.message if not remark else f"{remark}: {outcome.message}" if outcome.message else remark
    return Verdict(status=status, kind=outcome.kind, message=message, tensors=outcome.tensors,
                   structure=outcome.structure, mapping=outcome.mapping.pairs if outcome.mapping else (),
                   skipped_params=outcome.mapping.skipped if outcome.mapping else (), error=outcome.error,
                   duration_s=time.perf_counter() - started, notes=outcome.notes, **base)


@dataclass(frozen=True)
class Outcome:
    kind: Optional[str]
    message: str
    tensors: Tuple[TensorComparison, ...] = ()
    structure: Tuple[str, ...] = ()
    mapping: Optional[WeightMapping] = None
    error: str = ""
    notes: Tuple[str, ...] = field(default_factory=tuple)


def _run_check(item: Item, options: RunOptions) -> Outcome:
    from migcheck.runners.mindspore_side import MindSporeCell, configure

    case = item.case
    try:
        ref = torch_reference(case, item.check)
    except SkipCheck:
        raise
    except Exception as exc:
        return _error_outcome(exc, item, side="torch")
    configure(item.mode, item.backend)
    cell = MindSporeCell(case.mindspore, item.mode)
    mapping = map_weights(ref.params, cell.params(), case.weight_map)
    problems = tuple(mapping.problems())
    if problems:
        return Outcome("structure", f"weights cannot be transferred: {problems[0]}"
                       + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""),
                       structure=problems, mapping=mapping)
    cell.load(to_mindspore(ref.weights, mapping))
    if ref.objective is not None and ref.objective.cotangents:
        mismatch = _output_shape_mismatch(cell, ref, mapping)
        if mismatch is not None:
            return mismatch
    results = _mindspore_results(item, cell, ref, mapping)
    skipped = {s.torch_name for s in mapping.skipped}
    expected = {k: v for k, v in ref.results.items() if _torch_name_of(k) not in skipped}
    rules = ToleranceRules.build(case.tolerance, case.tolerances, options.rtol, options.atol)

    def tolerance_for(name: str, dtype: str) -> Tuple[Tolerance, str]:
        return resolve(dtype, check=item.check, backend=item.backend, tensor=name, rules=rules)

    tensors = compare_trees(expected, results, tolerance_for, prefix="")
    outcome = _outcome_from_tensors(tensors, mapping)
    if ref.objective is not None and ref.objective.notes:
        outcome = dataclasses.replace(outcome, notes=outcome.notes + ref.objective.notes)
    return outcome


def _output_shape_mismatch(cell: Any, ref: Reference, mapping: WeightMapping) -> Optional[Outcome]:
    """Cotangents are shaped like torch's outputs: if MindSpore's differ, that is the verdict."""
    n_net = ref.objective.n_net_inputs
    out = cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=False)
    ms_shapes = [np.shape(leaf) for _, leaf in flatten(out)]
    pt_shapes = [np.shape(c) if c is not None else None for c in ref.objective.cotangents]
    if len(ms_shapes) != len(pt_shapes):
        return Outcome("tree", f"the network returns {len(ms_shapes)} output(s) in MindSpore and {len(pt_shapes)} in torch",
                       mapping=mapping)
    for (name, _), ms_shape, pt_shape in zip(flatten(out), ms_shapes, pt_shapes):
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
    to_torch = {p.ms_name: p.torch_name for p in mapping.pairs}
    if item.check == "forward":
        return {"out": adapt(cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=False))}
    if item.check == "train":
        out = cell.forward(ref.inputs[:n_net], ref.input_dtypes, train=True)
        state = cell.state()
        buffers = {p.name for p in ref.params if p.is_buffer}
        return {"out": adapt(out), **{f"state.{to_torch[n]}": v for n, v in state.items()
                                      if to_torch.get(n) in buffers}}
    loss = case.loss.mindspore if case.loss else None
    if item.check == "backward":
        input_grads, param_grads = cell.gradients(ref.inputs, ref.input_dtypes, ref.objective, loss)
        return _gradient_results(input_grads, {to_torch[n]: g for n, g in param_grads.items()}, ref.input_names)
    records = cell.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, _optimizer_for(case, "mindspore"), case.steps)
    renamed = [{"loss": r["loss"], "state": {to_torch[n]: v for n, v in r["state"].items() if n in to_torch}}
               for r in records]
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
    mine = [f for f in frames if case_file and f.filename == case_file] or frames[-2:]
    lines = [f"{f.filename}:{f.lineno} in {f.name}: {f.line or ''}".rstrip() for f in mine]
    body = str(exc).strip().splitlines()
    construct = [line for line in body if line.strip().startswith(("# ", "In file"))][:6]
    return "\n".join(lines + [f"{type(exc).__name__}: {_first_lines(str(exc), 8)}"] + construct)
