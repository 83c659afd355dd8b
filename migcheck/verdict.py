"""Verdicts: the result of one case x check x mode x backend, and how expectations turn into status."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from migcheck.compare import ErrorSample, Sample, TensorComparison
from migcheck.diagnosis import Finding
from migcheck.localize import Defect, Localization, SubcellRow
from migcheck.mapping import MappedParam, SkippedParam

# 2 added a tensor's `error_sample` (for the HTML report's plots). A version-1 reader would reject
# that field, hence the bump; this reader takes both (a version-1 tensor just has no sample).
SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)
# crashed: the isolated child process running the case died (signal or non-zero exit);
# timeout: the case ran past its time limit and its child process was killed (migcheck.isolate).
STATUSES = ("pass", "fail", "error", "skip", "xfail", "xpass", "crashed", "timeout")
# Statuses that mean "as the case said it would be"; anything else makes the run exit 1.
EXPECTED_STATUSES = ("pass", "xfail", "skip")


@dataclass(frozen=True)
class Verdict:
    case: str
    check: str
    mode: str
    backend: str
    status: str
    kind: Optional[str]  # what the comparison found: None when both sides agreed
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
    reference: str = ""  # where torch's side came from: "torch 2.x on cpu" or "golden DIR/<case>/<check>.npz (...)"
    # For failing verdicts: the sub-cell tree, the first divergence and the likely cause.
    localization: Optional[Localization] = None

    @property
    def item(self) -> str:
        return f"{self.case}[{self.check}-{self.mode}-{self.backend}]"

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
            return "pass", ""
        return ("error" if found in ("error", "graph-compile-error") else "fail"), ""
    want = expected.split(":", 1)[1]
    if found == want:
        return "xfail", f"failed as expected ({want})"
    if found is None:
        return "xpass", f"expected a {want} failure, but both sides agreed"
    return "fail", f"expected a {want} failure, got {found}"


def judge_diagnosis(status: str, remark: str, expected_rule: Optional[str],
                    localization: Optional[Localization], localization_skipped: bool = False) -> Tuple[str, str]:
    """A known-bad case that names its diagnosis fails as expected only when that rule fired.

    localization_skipped: no localization could run (golden mode has no torch to re-run with hooks);
    the expected failure kind still decides, and the remark says the diagnosis went unchecked.
    """
    if not expected_rule or status != "xfail":
        return status, remark
    if localization_skipped:
        return status, f"{remark}; diagnosis {expected_rule!r} not checked (localization is skipped with --golden)"
    found = [f.rule for f in localization.findings] if localization else []
    if expected_rule in found:
        return status, f"{remark}; diagnosed as expected ({expected_rule})"
    return "fail", f"failed as expected, but the diagnosis is {found or 'missing'} where the case expects {expected_rule!r}"


def to_dict(verdict: Verdict) -> Dict[str, Any]:
    data = dataclasses.asdict(verdict)
    data["item"] = verdict.item
    return data


def from_dict(data: Dict[str, Any]) -> Verdict:
    """Inverse of to_dict, for re-reading reports on a machine without the frameworks."""
    data = dict(data)
    data.pop("item", None)
    data["tensors"] = tuple(_tensor_from_dict(t) for t in data.get("tensors", ()))
    data["mapping"] = tuple(MappedParam(**{**m, "torch_shape": tuple(m["torch_shape"]), "ms_shape": tuple(m["ms_shape"])})
                            for m in data.get("mapping", ()))
    data["skipped_params"] = tuple(SkippedParam(**s) for s in data.get("skipped_params", ()))
    for key in ("structure", "notes"):
        data[key] = tuple(data.get(key, ()))
    if data.get("localization") is not None:
        data["localization"] = _localization(data["localization"])
    return Verdict(**data)


def _localization(data: Dict[str, Any]) -> Localization:
    return Localization(rows=tuple(SubcellRow(**r) for r in data.get("rows", ())),
                        first_divergence=data.get("first_divergence"),
                        first_divergence_ms=data.get("first_divergence_ms"),
                        findings=tuple(Finding(**{**f, "layers": tuple(f.get("layers", ()))}) for f in data.get("findings", ())),
                        summary=data.get("summary", ""),
                        defects=tuple(Defect(**d) for d in data.get("defects", ())),
                        between=data.get("between", ""))


def _tensor_from_dict(data: Dict[str, Any]) -> TensorComparison:
    data = dict(data)
    for key in ("torch_shape", "ms_shape"):
        if data.get(key) is not None:
            data[key] = tuple(data[key])
    for key in ("max_abs_at", "max_rel_at"):
        if data.get(key) is not None:
            data[key] = _sample(data[key])
    data["first_mismatches"] = tuple(_sample(s) for s in data.get("first_mismatches", ()))
    data["notes"] = tuple(data.get("notes", ()))
    if data.get("error_sample") is not None:
        data["error_sample"] = _error_sample(data["error_sample"])
    return TensorComparison(**data)


def _error_sample(data: Dict[str, Any]) -> ErrorSample:
    data = {k: v for k, v in data.items() if k in _ERROR_SAMPLE_FIELDS}  # fields a later version may add are ignored
    for key in ("hist_edges", "hist_counts", "map_axes", "map_block", "channel_max"):
        data[key] = tuple(data.get(key, ()))
    data["map"] = tuple(tuple(row) for row in data.get("map", ()))
    data["map_nonfinite"] = tuple(tuple(cell) for cell in data.get("map_nonfinite", ()))
    return ErrorSample(**data)


_ERROR_SAMPLE_FIELDS = frozenset(f.name for f in dataclasses.fields(ErrorSample))


def _sample(data: Dict[str, Any]) -> Sample:
    return Sample(tuple(data["index"]), data["torch"], data["mindspore"])
