"""Held-out set 5: blind single-difference ports, families "h5" and "h5-port".

Written by helpers who did not read migcheck's localization, mapping, judging or running code; scored once
(RESULTS-heldout5*-before.md) before anyone worked on its misses. Each half appends its modules' entries below.
"""
from __future__ import annotations

ENTRIES: list = []

from evaluation.corpus import heldout5_a, heldout5_a_ports, heldout5_a_train  # noqa: E402  (half a)

ENTRIES += heldout5_a.ENTRIES + heldout5_a_train.ENTRIES + heldout5_a_ports.ENTRIES
