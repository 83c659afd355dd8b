"""Held-out set 7 (families h7 / h7-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Scored once,
at the end of the session that had them written, on that session's final code."""
from evaluation.corpus import (heldout7_a, heldout7_a_ops, heldout7_a_ports, heldout7_a_train, heldout7_b,
                               heldout7_b_ports)

ENTRIES: list = []
ENTRIES += heldout7_a.ENTRIES + heldout7_a_ops.ENTRIES + heldout7_a_train.ENTRIES + heldout7_a_ports.ENTRIES  # half a
ENTRIES += heldout7_b.ENTRIES + heldout7_b_ports.ENTRIES  # half b
