"""Held-out set 16 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout16_b
from evaluation.corpus.heldout16_a import ENTRIES as _A

ENTRIES: list = []
ENTRIES += _A  # half a
ENTRIES += heldout16_b.ENTRIES  # half b
