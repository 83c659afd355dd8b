"""Held-out set 11 (blind), written in halves."""
ENTRIES: list = []
from evaluation.corpus.heldout11_a import ENTRIES as _A
ENTRIES += _A
