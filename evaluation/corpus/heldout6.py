"""Held-out set 6 (families h6 / h6-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Scored once,
at the end of the session that had them written, on that session's final code."""
from evaluation.corpus import heldout6_a, heldout6_a_ops, heldout6_a_ports, heldout6_a_train, heldout6_b, heldout6_b_ports

ENTRIES: list = []
ENTRIES += heldout6_a.ENTRIES + heldout6_a_ops.ENTRIES + heldout6_a_train.ENTRIES + heldout6_a_ports.ENTRIES  # half a
ENTRIES += heldout6_b.ENTRIES + heldout6_b_ports.ENTRIES  # half b
