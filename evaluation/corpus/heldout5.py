"""Held-out set 5 (families h5 / h5-port): blind entries written in halves, each registered here."""
from evaluation.corpus import heldout5_b, heldout5_c

ENTRIES = []
ENTRIES += heldout5_b.ENTRIES
ENTRIES += heldout5_c.ENTRIES
