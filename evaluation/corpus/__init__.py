"""The evaluation corpora: single-API differences and real model ports, each a naive and a correct port.

An Entry pairs two PairedCases (the naive port, expected to fail; the correct port, expected to pass)
with what a diagnosis must say: the torch layer(s) where each independent defect arises and the cause
of each. Layers are torch module paths; "<root>" is the whole module (a loss, a bare op);
"after:NAME" is a functional op in forward/construct reached from NAME's output; "optimizer" is the
update rule. A cause is a rule id or a few '|'-separated keywords, one of which the cause text must contain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

from migcheck.case import PairedCase

# "blind" / "blind-port": the blind held-out corpus (blind*.py), written without reading the localization code.
# "h3" / "h3-port": held-out set 3 (heldout3*.py), blind, scored once before issue 22's methods.
# "h4" / "h4-port": held-out set 4 (heldout4*.py), blind, scored once on the methods as they landed.
# "h5" / "h5-port": held-out set 5 (heldout5*.py), blind, written in halves.
# "h6" / "h6-port": held-out set 6 (heldout6*.py), blind, written in halves.
# "h7" / "h7-port": held-out set 7 (heldout7*.py), blind, written in halves.
# "h8" / "h8-port": held-out set 8 (heldout8*.py), blind, written in halves.
# "h9" / "h9-port": held-out set 9 (heldout9*.py), blind, written in halves.
# "h10" / "h10-port": held-out set 10 (heldout10*.py), blind, written in halves.
# "h11" / "h11-port": held-out set 11 (heldout11*.py), blind, written in halves.
# "h12" / "h12-port": held-out set 12 (heldout12*.py), blind, written in halves.
# "h13" / "h13-port": held-out set 13 (heldout13*.py), blind, written in halves.
# "h14" / "h14-port": held-out set 14 (heldout14*.py), blind, written in halves.
# "h15" / "h15-port": held-out set 15 (heldout15*.py), blind, written in halves.
# "h16" / "h16-port": held-out set 16 (heldout16*.py), blind, written in halves.
# "h17" / "h17-port": held-out set 17 (heldout17*.py), blind, written in halves.
# "h18" / "h18-port": held-out set 18 (heldout18*.py), blind, written in halves.
# "h19" / "h19-port": held-out set 19 (heldout19*.py), blind, written in halves.
# "h20" / "h20-port": held-out set 20 (heldout20*.py), blind, written in halves.
# "h21" / "h21-port": held-out set 21 (heldout21*.py), blind, written in halves.
# "h22" / "h22-port": held-out set 22 (heldout22*.py), blind, written in halves.
FAMILIES = ("layer", "functional", "loss", "optimizer", "real-port", "third-party", "blind", "blind-port", "h3",
            "h3-port", "h4", "h4-port", "h5", "h5-port", "h6", "h6-port", "h7", "h7-port", "h8", "h8-port", "h9",
            "h9-port", "h10", "h10-port", "h11", "h11-port", "h12",
            "h12-port", "h13", "h13-port", "h14", "h14-port", "h15", "h15-port", "h16", "h16-port", "h17",
            "h17-port", "h18", "h18-port", "h19", "h19-port", "h20", "h20-port", "h21", "h21-port", "h22", "h22-port")


@dataclass(frozen=True)
class Entry:
    name: str
    family: str
    source: str  # the MindSpore API-difference page (or model) the pitfall comes from
    naive: PairedCase
    correct: PairedCase
    layers: Tuple[str, ...]  # one per independent defect
    causes: Tuple[str, ...]  # one per independent defect, same order
    # A regex (re.IGNORECASE) the cause/fix fields alone must match; when set, the scorer uses it instead of
    # `causes` (which then only documents the defect in words).
    cause_pattern: str = ""

    def problems(self) -> List[str]:
        out = []
        if self.family not in FAMILIES:
            out.append(f"family {self.family!r} is not one of {FAMILIES}")
        if not self.layers or len(self.layers) != len(self.causes):
            out.append("layers and causes must be non-empty and of equal length (one per defect)")
        if self.naive.expect != "fail" or self.correct.expect != "pass":
            out.append("the naive port must expect 'fail' and the correct port 'pass'")
        if not self.source:
            out.append("source is empty")
        if self.cause_pattern:
            import re

            try:
                re.compile(self.cause_pattern)
            except re.error as exc:
                out.append(f"cause_pattern does not compile: {exc}")
        return out


def thirdparty_missing() -> str:
    """Why the third-party corpus cannot load here ("" when diffusers and mindone import)."""
    import importlib.util

    missing = [name for name in ("diffusers", "mindone") if importlib.util.find_spec(name) is None]
    return f"{' and '.join(missing)} not installed (see evaluation/README.md)" if missing else ""


def entries(thirdparty: bool = True) -> List[Entry]:
    """Every entry of the corpora, in a stable order (imports MindSpore and torch).

    The third-party family (diffusers vs mindone) is included when both are importable and `thirdparty` is true.
    """
    from evaluation.corpus import (blind, blind_ops, blind_ports, functional, heldout, heldout3, heldout4, heldout5,
                                   heldout6, heldout7, heldout8, heldout9, heldout10, heldout11, heldout12, heldout13,
                                   heldout14, heldout15, heldout16, heldout17, heldout18, heldout19, heldout20,
                                   heldout21, heldout22, layers,
                                   losses, optimizers, real_ports)

    modules = [layers, functional, losses, optimizers, real_ports, heldout, blind, blind_ops, blind_ports, heldout3,
               heldout4, heldout5, heldout6, heldout7, heldout8, heldout9, heldout10, heldout11, heldout12, heldout13,
               heldout14, heldout15, heldout16, heldout17, heldout18, heldout19, heldout20, heldout21, heldout22]
    if thirdparty and not thirdparty_missing():
        from evaluation.corpus import thirdparty as third

        modules.append(third)
    out: List[Entry] = []
    for module in modules:
        out.extend(module.ENTRIES)
    return out
