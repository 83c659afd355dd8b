"""What localization finds, as records: captured calls, the sub-cell table, defects, findings."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple


@dataclass(frozen=True)
class Finding:
    rule: str  # stable id, e.g. "batchnorm-momentum"; cases name it in `diagnosis=`
    where: str  # "torch 'layer1.1' (BatchNorm2d) / MindSpore 'features.1' (BatchNorm2d)"
    cause: str
    fix: str
    confidence: str  # "high": confirmed by a counterfactual re-run; "medium": consistent with settings or numbers
    confirmed: bool = False  # re-running torch's layer with MindSpore's setting reproduced MindSpore's output
    fix_checked: bool = False  # the port's layer rebuilt with the fix agreed with torch
    layers: Tuple[str, ...] = ()  # every layer this finding applies to (findings are deduplicated)
    evidence: str = ""


@dataclass(frozen=True)
class Call:
    name: str  # dotted module path; "" is the whole network
    kind: str  # class name
    inputs: Tuple[Any, ...]  # numpy arrays of the tensor arguments
    output: Any  # numpy tree
    start: int = -1  # torch only: where the forward began and ended on the op counter (op_trace)
    end: int = -1


@dataclass(frozen=True)
class SubcellRow:
    order: int  # completion order on the torch side
    torch_name: str
    torch_kind: str
    ms_name: str  # "" when unpaired
    ms_kind: str
    inputs_ok: Optional[bool]  # None when unpaired or not comparable
    outputs_ok: Optional[bool]
    isolated_ok: Optional[bool]  # the MindSpore sub-cell fed torch's inputs
    max_abs_err: float
    isolated_max_abs_err: Optional[float]
    message: str


@dataclass(frozen=True)
class Defect:
    """One sub-cell wrong on its own (or a functional op between two), with what explains it."""
    order: int  # torch completion order: defects are ranked by where they arise
    torch_name: str
    torch_kind: str
    ms_name: str
    ms_kind: str
    evidence: str
    cause: str  # plain words; "" when nothing explains it
    fix: str  # "" unless a re-run showed it makes the layer agree
    confidence: str  # "high" only when confirmed
    confirmed: bool
    rule: str = ""
    # The counterfactual search over the port's own arguments (arg_search.py): its cost, and what it re-ran.
    search_s: float = 0.0
    search_tried: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Localization:
    rows: Tuple[SubcellRow, ...]
    first_divergence: Optional[str]  # torch name
    first_divergence_ms: Optional[str]
    findings: Tuple[Finding, ...]
    summary: str  # one line for terminals and reports
    defects: Tuple[Defect, ...] = ()  # every independent defect, by position
    between: str = ""  # "between A's output and B's input" when the first divergence is a functional op
