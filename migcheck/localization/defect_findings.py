"""Findings from defects: one per distinct cause and fix, listing every layer it applies to (pure)."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Sequence, Tuple

from migcheck.localization.locate import Defect
from migcheck.localization.rules import Finding


def findings_of(defects: Sequence[Defect]) -> List[Finding]:
    """One finding per distinct cause and fix, listing every layer it applies to."""
    groups: Dict[Tuple[str, str, str], List[Defect]] = {}
    for d in defects:
        if d.cause:
            groups.setdefault((d.rule, d.cause, d.fix), []).append(d)
    out = []
    for (rule, cause, fix), ds in groups.items():
        layers = tuple(f"torch '{d.torch_name or '<root>'}' / MindSpore '{d.ms_name or '<root>'}'" for d in ds)
        where = layers[0] if len(layers) == 1 else f"{len(layers)} layers: " + ", ".join(layers)
        where = f"{where} ({ds[0].torch_kind} / {ds[0].ms_kind})"
        confirmed = all(d.confirmed for d in ds)
        out.append(Finding(rule, where, cause, fix or "none shown (no candidate fix re-ran to agreement)",
                           "high" if confirmed else "medium" if ds[0].confidence != "low" else "low",
                           confirmed, bool(fix), layers, ds[0].evidence))
    return out


def unique_findings(findings: Sequence[Finding]) -> List[Finding]:
    """One finding per (rule, cause, fix): the same difference on many layers is listed once, with its layers."""
    merged: Dict[Tuple[str, str, str], Finding] = {}
    for f in findings:
        key = (f.rule, f.cause, f.fix)
        if key not in merged:
            merged[key] = f if f.layers else dataclasses.replace(f, layers=(f.where,))
            continue
        have = merged[key]
        extra = tuple(x for x in (f.layers or (f.where,)) if x not in have.layers)
        if extra:
            layers = have.layers + extra
            merged[key] = dataclasses.replace(have, layers=layers, where=f"{len(layers)} layers: " + ", ".join(layers),
                                              confirmed=have.confirmed and f.confirmed)
    return list(merged.values())
