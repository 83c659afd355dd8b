"""Held-out set 9 (families h9 / h9-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Scored once,
at the end of the session that had them written, on that session's final code."""
from evaluation.corpus import heldout9_a, heldout9_a_ops, heldout9_a_ports, heldout9_a_train

ENTRIES: list = []
ENTRIES += heldout9_a.ENTRIES + heldout9_a_ops.ENTRIES + heldout9_a_train.ENTRIES + heldout9_a_ports.ENTRIES  # half a
