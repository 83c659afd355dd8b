"""Held-out set 3 (issue 22): a blind set of single-difference ports, families "h3" and "h3-port".

Written without reading migcheck's localization, mapping or judging code, the bundled cases or the other
corpus entries' causes. Each pitfall comes from MindSpore's documented PyTorch API differences or from
probing torch 2.13 / MindSpore 2.10 on CPU; every naive port was checked to give different numbers (or
raise) and every correct twin to agree. Each entry carries a `cause_pattern` that only the finding's
cause/fix fields may match.
"""
from __future__ import annotations

from evaluation.corpus import heldout3_ops

ENTRIES = list(heldout3_ops.ENTRIES)
