"""Held-out set 10 (families h10 / h10-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout10_b, heldout10_b_ports

ENTRIES: list = []
ENTRIES += heldout10_b.ENTRIES + heldout10_b_ports.ENTRIES  # half b
