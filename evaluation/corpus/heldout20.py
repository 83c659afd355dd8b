"""Held-out set 20 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout20_b

ENTRIES: list = []
ENTRIES += heldout20_b.ENTRIES  # half b
