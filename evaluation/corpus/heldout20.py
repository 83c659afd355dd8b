"""Held-out set 20 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus.heldout20_a import ENTRIES as _A

ENTRIES: list = []
ENTRIES += _A  # half a
