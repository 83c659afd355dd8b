"""Verdicts: the result of one case x check x mode x backend, and how expectations turn into status."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from migcheck.judging.compare import TensorComparison
from migcheck.records.findings import Localization
from migcheck.records.params import MappedParam, SkippedParam
from migcheck.vocab import (ERROR_KINDS, EXPECTED_STATUSES, STATUSES, Backend, Check, Kind, Mode, Status,  # noqa: F401
                            item_id, word)  # (STATUSES re-exported)


@dataclass(frozen=True)
class Verdict:
    case: str
    check: Check
    mode: Mode
    backend: Backend
    status: Status
    kind: Optional[Kind]  # what the comparison found: None when both sides agreed
    message: str
    expected: str = "pass"  # "pass" or "fail:<kind>"
    tensors: Tuple[TensorComparison, ...] = ()
    structure: Tuple[str, ...] = ()  # weight-mapping problems, one line each
    mapping: Tuple[MappedParam, ...] = ()
    skipped_params: Tuple[SkippedParam, ...] = ()
    error: str = ""  # excerpt of the exception for error kinds
    file: str = ""
    duration_s: float = 0.0
    compile_s: float = 0.0  # GRAPH mode: of duration_s, the seconds MindSpore spent compiling graphs
    notes: Tuple[str, ...] = field(default_factory=tuple)
    profile: str = ""  # the tolerance profile that judged it (migcheck.tolerance.PROFILES)
    tolerance_mode: str = ""  # "standard" or "budget" (error budget against a float64 oracle)
    # Which judge decided, in words: the error budget (the default) or rtol/atol, and why (schema 4 readers skip it).
    judged_by: str = ""
    reference: str = ""  # where torch's side came from: "torch 2.x on cpu" or "golden DIR/<case>/<check>.npz (...)"
    # For failing verdicts: the sub-cell tree, the first divergence and the likely cause.
    localization: Optional[Localization] = None
    # An excerpt of what MindSpore and torch wrote to stderr during the item (C++ logs), with a GRAPH
    # compile failure's analyze_fail.ir; kept for verdicts that are not pass or skip (migcheck.running.fdcapture).
    framework_log: str = ""
    # --changed (migcheck.running.changed): what the verdict was computed from, when, and for a verdict taken
    # over from an earlier report instead of re-run, that report.
    fingerprint: str = ""
    computed: str = ""
    reused_from: str = ""

    def __post_init__(self) -> None:
        # Held as vocab enums however they were given (a plain string from JSON or a caller); a value this
        # version does not know (a newer report's) is kept as read. serialize writes each as its value.
        for name, cls in (("check", Check), ("mode", Mode), ("backend", Backend), ("status", Status), ("kind", Kind)):
            object.__setattr__(self, name, word(cls, getattr(self, name)))

    @property
    def item(self) -> str:
        return item_id(self.case, self.check, self.mode, self.backend)

    @property
    def reuse_note(self) -> str:
        """'' for a verdict computed by this run; else where it was taken from (--changed)."""
        if not self.reused_from:
            return ""
        return f"reused from {self.reused_from}, unchanged since {self.computed or 'an earlier run'}"

    @property
    def as_expected(self) -> bool:
        return self.status in EXPECTED_STATUSES

    @property
    def worst(self) -> Optional[TensorComparison]:
        """The failing tensor with the largest error, for one-line summaries."""
        failing = [t for t in self.tensors if not t.ok]
        return max(failing, key=lambda t: (t.kind != "value", t.max_abs_err), default=None)


def expectation(expect: str, fails_with: Optional[str], fails_on: Optional[Tuple[str, ...]], check: str,
                mode: str = "") -> str:
    """'pass' or 'fail:<kind>' for one check and mode of a case.

    fails_on names checks ('train'), modes ('graph') or both ('backward-graph'); None means all.
    """
    if expect == "fail" and (fails_on is None or check in fails_on or mode in fails_on or f"{check}-{mode}" in fails_on):
        return f"fail:{fails_with}"
    return "pass"


def judge(found: Optional[str], expected: str) -> Tuple[str, str]:
    """(status, remark) from what the comparison found and what the case expected."""
    if expected == "pass":
        if found is None:
            return Status.PASS, ""
        return (Status.ERROR if found in ERROR_KINDS else Status.FAIL), ""
    want = expected.split(":", 1)[1]
    if found == want:
        return Status.XFAIL, f"failed as expected ({want})"
    if found is None:
        return Status.XPASS, f"expected a {want} failure, but both sides agreed"
    return Status.FAIL, f"expected a {want} failure, got {found}"


def judge_diagnosis(status: str, remark: str, expected_rule: Optional[str],
                    localization: Optional[Localization], localization_skipped: bool = False) -> Tuple[str, str]:
    """A known-bad case that names its diagnosis fails as expected only when that rule fired.

    localization_skipped: no localization could run (golden mode has no torch to re-run with hooks);
    the expected failure kind still decides, and the remark says the diagnosis went unchecked.
    """
    if not expected_rule or status != Status.XFAIL:
        return status, remark
    if localization_skipped:
        return status, f"{remark}; diagnosis {expected_rule!r} not checked (localization is skipped with --golden)"
    found = [f.rule for f in localization.findings] if localization else []
    if expected_rule in found:
        return status, f"{remark}; diagnosed as expected ({expected_rule})"
    return Status.FAIL, f"failed as expected, but the diagnosis is {found or 'missing'} where the case expects {expected_rule!r}"
