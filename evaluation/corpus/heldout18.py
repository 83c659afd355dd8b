"""Held-out set 18 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus.heldout18_a import ENTRIES as _A

ENTRIES: list = []
ENTRIES += _A  # half a
