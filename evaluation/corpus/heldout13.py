"""Held-out set 13 (families h13 / h13-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout13_a, heldout13_a_ports, heldout13_b, heldout13_b_ports

ENTRIES: list = []
ENTRIES += heldout13_a.ENTRIES + heldout13_a_ports.ENTRIES  # half a
ENTRIES += heldout13_b.ENTRIES + heldout13_b_ports.ENTRIES  # half b
