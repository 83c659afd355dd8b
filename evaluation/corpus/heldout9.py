"""Held-out set 9 (families h9 / h9-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here. Its first
run is scored once, on the code of the session that had it written (RESULTS-heldout9-first.md)."""
from evaluation.corpus import heldout9_a, heldout9_a_ops, heldout9_a_ports, heldout9_a_train
from evaluation.corpus.heldout9_b import ENTRIES as _B

ENTRIES: list = []
ENTRIES += heldout9_a.ENTRIES + heldout9_a_ops.ENTRIES + heldout9_a_train.ENTRIES + heldout9_a_ports.ENTRIES  # half a
ENTRIES += _B  # half b
