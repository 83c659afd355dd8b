"""Held-out set 8 (families h8 / h8-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout8_a, heldout8_a_ops, heldout8_a_ports

ENTRIES: list = []
ENTRIES += heldout8_a.ENTRIES + heldout8_a_ops.ENTRIES + heldout8_a_ports.ENTRIES  # half a
