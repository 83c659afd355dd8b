"""Held-out set 17 (blind), written in halves."""
from evaluation.corpus import heldout17_b

ENTRIES: list = []
ENTRIES += heldout17_b.ENTRIES
