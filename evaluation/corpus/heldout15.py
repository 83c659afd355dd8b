"""Held-out set 15 (families h15 / h15-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout15_a, heldout15_a_ports

ENTRIES: list = []
ENTRIES += heldout15_a.ENTRIES + heldout15_a_ports.ENTRIES  # half a
