"""Held-out set 5 (families h5, h5-port): each half appends its entries here."""
from evaluation.corpus import heldout5_b

ENTRIES = []
ENTRIES += heldout5_b.ENTRIES
