"""Held-out set 5 (families h5 / h5-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code; each half scored once (RESULTS-heldout5*-before.md)
before anyone worked on its misses. Each half registers its modules here."""
from evaluation.corpus import heldout5_a, heldout5_a_ports, heldout5_a_train, heldout5_b, heldout5_c

ENTRIES: list = []
ENTRIES += heldout5_a.ENTRIES + heldout5_a_train.ENTRIES + heldout5_a_ports.ENTRIES  # half a
ENTRIES += heldout5_b.ENTRIES  # half b
ENTRIES += heldout5_c.ENTRIES  # half c
