"""Held-out set 21 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout21_a

ENTRIES: list = []
ENTRIES += heldout21_a.ENTRIES
