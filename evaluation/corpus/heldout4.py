"""Held-out set 4 (issue 22): a second blind set of single-difference ports, families "h4" and "h4-port".

Written by engineers who did not read migcheck's localization, mapping or judging code; scored once on the
methods as they had landed (RESULTS-heldout4-before.md) before anyone worked on its misses. Half a
(heldout4_a*.py): layers, recurrent layers, losses, small model blocks; half b (heldout4_b*.py): functional ops
in construct, optimizers and schedules, errors, gradient-only differences, small model blocks.
"""
from __future__ import annotations

ENTRIES: list = []  # each half appends its modules' entries below

from evaluation.corpus import heldout4_a  # noqa: E402  (half a: layers, recurrent, losses, model blocks)

ENTRIES += heldout4_a.ENTRIES

# Half c (heldout4_c.py): small model blocks, family "h4-port", names h4c_*.
from evaluation.corpus import heldout4_c  # noqa: E402

ENTRIES += heldout4_c.ENTRIES

from evaluation.corpus import heldout4_b, heldout4_b_ports, heldout4_b_train  # noqa: E402  (half b)

ENTRIES += heldout4_b.ENTRIES + heldout4_b_train.ENTRIES + heldout4_b_ports.ENTRIES
