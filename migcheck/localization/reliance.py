"""Findings that rest on a guessed pairing are never [high].

A localization finding compares a torch layer with the MindSpore layer the mapping fed its weights to. When
that pairing was inferred with medium confidence (structure that aligned only in part, not confirmed by
activations), the finding may describe two layers that are not ports of each other (a body conv against a
shortcut conv: "stride differs"). Such a finding keeps its cause and fix but is capped at medium, and its
evidence names the pairing it depends on and how that pairing was inferred. Pure.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Dict, Iterable

from migcheck.records.findings import Finding, Localization
from migcheck.mapping.structure import Inference
from migcheck.mapping.transfer import WeightMapping

_TORCH = re.compile(r"torch '([^']*)'")


def _depends(finding: Finding, medium: Dict[str, Inference]) -> Iterable[Inference]:
    named = {m.group(1) for text in (finding.where, *finding.layers) for m in _TORCH.finditer(text)}
    for layer in named:
        for path, inference in medium.items():
            if path == layer or path.startswith(layer + ".") or layer.startswith(path + "."):
                yield inference


def capped(found: Localization, mapping: WeightMapping) -> Localization:
    """The localization with every [high] finding that depends on a medium pairing capped at medium."""
    medium = {i.torch_layer: i for i in mapping.inferred if i.confidence == "medium"}
    if not medium or not found.findings:
        return found
    findings, summary = [], found.summary
    for f in found.findings:
        guesses = list(dict.fromkeys(_depends(f, medium))) if f.confidence == "high" else []
        if guesses:
            said = "; ".join(g.describe() for g in guesses[:3])
            evidence = (f.evidence + "; " if f.evidence else "") + f"depends on a pairing inferred with medium confidence: {said}"
            summary = summary.replace(f"-> fix: {f.fix} [high]", f"-> fix: {f.fix} [medium, pairing unconfirmed]", 1)
            f = dataclasses.replace(f, confidence="medium", evidence=evidence)
        findings.append(f)
    return dataclasses.replace(found, findings=tuple(findings), summary=summary)
