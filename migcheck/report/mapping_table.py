"""The weight-mapping table as text: problems first, then structural pairings to confirm, then the rest."""
from __future__ import annotations

from typing import List

from migcheck.judging.compare import fmt_shape
from migcheck.mapping.transfer import WeightMapping


def render_mapping(case: str, mapping: WeightMapping) -> str:
    lines: List[str] = [f"weight mapping for {case}"]
    problems = mapping.problems()
    if problems:
        lines.append(f"{len(problems)} problem(s):")
        lines += [f"  ! {p}" for p in problems]
    structural = mapping.structural()
    if structural:
        lines.append(f"{len(structural)} pairing(s) made by structure alone; confirm them or give a weight_map:")
        lines += [f"  ? {r.torch_name} -> {r.ms_name}" for r in structural]
    rows = [("torch", "shape", "mindspore", "shape", "transform", "how")]
    rows += [(r.torch_name, fmt_shape(r.torch_shape), r.ms_name, fmt_shape(r.ms_shape), r.transform or "-", r.how)
             for r in mapping.pairs]
    rows += [(s.torch_name, "", "(not transferred)", "", "-", s.reason) for s in mapping.skipped]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:5], widths)) + "  " + row[5])
    return "\n".join(lines)
