"""Held-out set 14 (families h14 / h14-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout14_a, heldout14_a_ports, heldout14_b, heldout14_b_ports

ENTRIES: list = []
ENTRIES += heldout14_a.ENTRIES + heldout14_a_ports.ENTRIES  # half a
ENTRIES += heldout14_b.ENTRIES + heldout14_b_ports.ENTRIES  # half b
