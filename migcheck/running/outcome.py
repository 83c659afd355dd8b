"""What running one item found, before expectations: the outcome, and the one place it becomes a Verdict."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from migcheck.judging.compare import TensorComparison
from migcheck.judging.verdict import Verdict, expectation, judge, judge_diagnosis
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.mapping.transfer import WeightMapping
from migcheck.tolerance import default_profile


@dataclass(frozen=True)
class Outcome:
    """What one item found. kind None: both sides agreed."""

    kind: Optional[str]
    message: str
    tensors: Tuple[TensorComparison, ...] = ()
    structure: Tuple[str, ...] = ()
    mapping: Optional[WeightMapping] = None
    error: str = ""
    notes: Tuple[str, ...] = field(default_factory=tuple)
    reference: str = ""  # where the torch side's results came from
    compile_s: float = 0.0  # GRAPH mode: seconds MindSpore spent compiling graphs
    localization: Optional[Any] = None  # migcheck.localization.locate.Localization for failing verdicts


def profile_for(backend: str, options: RunOptions) -> str:
    return options.profile or default_profile(backend)


def tolerance_mode_for(case: Any, options: RunOptions) -> str:
    return options.tolerance_mode or case.tolerance_mode


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
                   reference=outcome.reference, localization=outcome.localization)
