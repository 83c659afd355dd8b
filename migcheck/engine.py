"""Runs one item (case x check x mode x backend) through fixtures, runners, mapping and comparator."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.case import BACKENDS, PairedCase
from migcheck.compare import TensorComparison, compare_trees
from migcheck.fixtures import make_inputs, make_weights
from migcheck.mapping import WeightMapping, map_weights, to_mindspore
from migcheck.params import ParamInfo
from migcheck.tolerance import Tolerance, ToleranceRules, resolve
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


def plan(cases: Sequence[PairedCase], options: RunOptions) -> List[Item]:
    """Every case x check x mode x backend, in a stable order."""
    items = []
    for case in cases:
        checks = [c for c in case.checks if options.checks is None or c in options.checks]
        for check in checks:
            for mode in options.modes:
                for backend in options.backends:
                    items.append(Item(case, check, mode, backend))
    return items


@dataclass(frozen=True)
class Reference:
    """Everything the torch side produced for one case and check; plain numpy, so it can be stored."""

    inputs: Dict[str, np.ndarray]
    input_dtypes: Tuple[str, ...]
    params: Tuple[ParamInfo, ...]
    weights: Dict[str, np.ndarray]
    outputs: Any


_REFERENCES: Dict[Tuple[str, str, str], Reference] = {}


def torch_reference(case: PairedCase, check: str) -> Reference:
    """The torch side's results, computed once per process and reused by every mode and backend."""
    key = (case.file, case.name, check)
    if key not in _REFERENCES:
        from migcheck.runners.torch_side import TorchModule

        specs = case.input_specs
        inputs = make_inputs(case.name, specs)
        module = TorchModule(case.torch)
        params = tuple(module.params())
        weights = make_weights(params, case_name=case.name, fill=case.weights)
        module.load(weights)
        dtypes = tuple(spec.dtype for _, spec in specs)
        outputs = module.forward(list(inputs.values()), dtypes, train=False)
        if case.adapt_torch is not None:
            outputs = case.adapt_torch(outputs)
        _REFERENCES[key] = Reference(inputs, dtypes, params, weights, outputs)
    return _REFERENCES[key]


def skip_reason(item: Item) -> Optional[str]:
    case = item.case
    if item.mode not in case.modes:
        return f"case runs only in {', '.join(case.modes)} mode"
    for key in (item.mode, item.check, f"{item.check}-{item.mode}"):
        if key in case.skip:
            return case.skip[key]
    if item.backend not in BACKENDS:
        return f"unknown backend {item.backend!r}"
    from migcheck.runners.mindspore_side import backend_unavailable

    return backend_unavailable(item.backend)


def run_item(item: Item, options: RunOptions = RunOptions()) -> Verdict:
    started = time.perf_counter()
    case = item.case
    expected = expectation(case.expect, case.fails_with, case.fails_on, item.check)
    base = dict(case=case.name, check=item.check, mode=item.mode, backend=item.backend,
                expected=expected, file=case.file)
    reason = skip_reason(item)
    if reason is not None:
        return Verdict(status="skip", kind=None, message=reason, **base)
    try:
        outcome = _forward(item, options)
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


def _forward(item: Item, options: RunOptions) -> Outcome:
    from migcheck.runners.mindspore_side import MindSporeCell, configure

    case = item.case
    try:
        ref = torch_reference(case, item.check)
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
    outputs = cell.forward(list(ref.inputs.values()), ref.input_dtypes, train=False)
    if case.adapt_mindspore is not None:
        outputs = case.adapt_mindspore(outputs)
    rules = ToleranceRules.build(case.tolerance, case.tolerances, options.rtol, options.atol)

    def tolerance_for(name: str, dtype: str) -> Tuple[Tolerance, str]:
        return resolve(dtype, check=item.check, backend=item.backend, tensor=name, rules=rules)

    tensors = compare_trees(ref.outputs, outputs, tolerance_for)
    return _outcome_from_tensors(tensors, mapping)


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
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[:n]) if lines else "(no message)"


def _excerpt(exc: BaseException, case_file: str) -> str:
    """The exception and the frames in the user's case file; migcheck's own frames are noise."""
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if case_file and f.filename == case_file] or frames[-2:]
    lines = [f"{f.filename}:{f.lineno} in {f.name}: {f.line or ''}".rstrip() for f in mine]
    body = str(exc).strip().splitlines()
    construct = [line for line in body if line.strip().startswith(("# ", "In file"))][:6]
    return "\n".join(lines + [f"{type(exc).__name__}: {_first_lines(str(exc), 8)}"] + construct)
