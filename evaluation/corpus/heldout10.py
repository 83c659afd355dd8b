"""Held-out set 10 (families h10 / h10-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Its first
run is scored once, on the code of the session that had it written (RESULTS-heldout10-first.md)."""
from evaluation.corpus import heldout10_a, heldout10_a_more, heldout10_b, heldout10_b_ports

ENTRIES: list = []
ENTRIES += heldout10_a.ENTRIES + heldout10_a_more.ENTRIES  # half a
ENTRIES += heldout10_b.ENTRIES + heldout10_b_ports.ENTRIES  # half b
