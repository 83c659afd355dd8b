"""Held-out set 8 (families h8 / h8-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Scored once,
at the end of the session that had them written, on that session's final code."""
from evaluation.corpus import heldout8_a, heldout8_a_ops, heldout8_a_ports, heldout8_b, heldout8_b_ports

ENTRIES: list = []
ENTRIES += heldout8_a.ENTRIES + heldout8_a_ops.ENTRIES + heldout8_a_ports.ENTRIES  # half a
ENTRIES += heldout8_b.ENTRIES + heldout8_b_ports.ENTRIES  # half b
