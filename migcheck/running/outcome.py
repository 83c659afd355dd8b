"""What running one item found, before expectations: the outcome, and the one place it becomes a Verdict (the
engine's, isolation's, and those of a pytest item that pytest-timeout stopped or whose xdist worker died)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple

from migcheck.judging.compare import TensorComparison
from migcheck.judging.verdict import Verdict, expectation, judge, judge_diagnosis
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.records.findings import Localization
from migcheck.mapping.transfer import WeightMapping
from migcheck.tolerance import choose_mode, default_profile
from migcheck.vocab import Kind, Status, parse_item_id, word


@dataclass(frozen=True)
class Outcome:
    """What one item found. kind None: both sides agreed."""

    kind: Optional[Kind]
    message: str
    tensors: Tuple[TensorComparison, ...] = ()
    structure: Tuple[str, ...] = ()
    mapping: Optional[WeightMapping] = None
    error: str = ""
    notes: Tuple[str, ...] = field(default_factory=tuple)
    reference: str = ""  # where the torch side's results came from
    compile_s: float = 0.0  # GRAPH mode: seconds MindSpore spent compiling graphs
    localization: Optional[Localization] = None  # for failing verdicts
    judged_by: str = ""  # which judge decided (migcheck.running.judged.judged_by); "" for errors and skips

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", word(Kind, self.kind))


def profile_for(backend: str, options: RunOptions) -> str:
    return options.profile or default_profile(backend)


def tolerance_mode_for(case: Any, options: RunOptions) -> str:
    return mode_and_reason(case, options)[0]


def mode_and_reason(case: Any, options: RunOptions) -> Tuple[str, str]:
    """Which judge decides this case's verdicts ("budget" or "standard") and why (migcheck.tolerance.choose_mode)."""
    return choose_mode(options.tolerance_mode, options.rtol is not None or options.atol is not None,
                       getattr(case, "tolerance_mode", None), getattr(case, "tolerance", None) is not None)


def verdict_for(item: Item, options: RunOptions, outcome: Outcome, *, status: Optional[str] = None,
                duration_s: float = 0.0) -> Verdict:
    """The Verdict of an item: the engine's, isolation's (crashed, timeout) and the pytest plugin's.

    status None: judged from the outcome's kind against what the case expects (and its expected
    diagnosis); a status given (skip, crashed, timeout, a golden error) is what happened to the run.
    """
    case = item.case
    expected = expectation(case.expect, case.fails_with, case.fails_on, item.check, item.mode)
    message = outcome.message
    if status is None:
        status, remark = judge(outcome.kind, expected)
        status, remark = judge_diagnosis(status, remark, case.diagnosis, outcome.localization,
                                         localization_skipped=bool(options.golden))
        message = outcome.message if not remark else f"{remark}: {outcome.message}" if outcome.message else remark
    mapping = outcome.mapping
    return Verdict(case=case.name, check=item.check, mode=item.mode, backend=item.backend, status=status,
                   kind=outcome.kind, message=message, expected=expected, tensors=outcome.tensors,
                   structure=outcome.structure, mapping=mapping.pairs if mapping else (),
                   skipped_params=mapping.skipped if mapping else (), error=outcome.error, file=case.file,
                   duration_s=duration_s, compile_s=outcome.compile_s, notes=outcome.notes,
                   profile=profile_for(item.backend, options), tolerance_mode=tolerance_mode_for(case, options),
                   reference=outcome.reference, localization=outcome.localization, judged_by=outcome.judged_by)


def with_structure(outcome: Outcome, problems: Sequence[str]) -> Outcome:
    """The structure problems as the verdict, with what the comparison of everything else found."""
    head = f"weights cannot be transferred: {problems[0]}" + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else "")
    rest = outcome.message if outcome.kind is None else f"{outcome.kind}: {outcome.message}"
    return dataclasses.replace(outcome, kind=Kind.STRUCTURE, structure=tuple(problems),
                               message=f"{head}; the rest compared with those left at the port's own values: {rest}")


def unloaded_verdict(case: str, check: str, mode: str, backend: str, file: str, outcome: Outcome,
                     status: str) -> Verdict:
    """The verdict of an item whose case cannot be loaded where it is reported (a pytest-xdist worker died and
    the case file does not import in the controller): what its id says, the outcome, no expectation."""
    return Verdict(case=case, check=check, mode=mode, backend=backend, status=status, kind=outcome.kind,
                   message=outcome.message, file=file, notes=tuple(outcome.notes))


def timed_out_verdict(item: Item, options: RunOptions, message: str) -> Verdict:
    """pytest-timeout stopped the item (its "signal" method raises inside the item): a `timeout` verdict."""
    case = item.case
    text = f"timed out: {message}" + (f" (the case's timeout={case.timeout:g} s, applied per item in pytest)"
                                      if case.timeout is not None else "")
    return verdict_for(item, options, Outcome(Kind.TIMEOUT, text), status=Status.TIMEOUT)


def worker_died_verdict(path: Path, item_text: str, detail: str, options: RunOptions) -> Optional[Verdict]:
    """A `crashed` verdict for the item a pytest-xdist worker was running when it died (xdist restarts it; the
    rest run on); None when item_text is no item id. The expectation is the case's own, its file loaded here;
    where it cannot be loaded, what the id says is all there is."""
    parsed = parse_item_id(item_text)
    if parsed is None:
        return None
    case_name, check, mode, backend = parsed
    outcome = Outcome(Kind.CRASHED, f"the pytest-xdist worker running this item died ({detail}); xdist started a new"
                                    " worker for the other items. `migcheck compare --isolate` names the signal and"
                                    " shows the last lines of the process's stderr",
                      notes=("reported by pytest-xdist: the worker process exited while running this item",))
    try:
        from migcheck.planning.discovery import load_file

        case = next(c for c in load_file(path).cases if c.name == case_name)
        return verdict_for(Item(case, check, mode, backend), options, outcome, status=Status.CRASHED)
    except Exception:  # the case cannot be loaded here
        return unloaded_verdict(case_name, check, mode, backend, str(path), outcome, Status.CRASHED)
