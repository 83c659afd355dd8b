"""Held-out set 19 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout19_b

ENTRIES: list = []
ENTRIES += heldout19_b.ENTRIES  # half b
