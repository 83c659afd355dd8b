"""Held-out set 17 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout17_b
from evaluation.corpus.heldout17_a import ENTRIES as _A
from evaluation.corpus.heldout17_a_ports import ENTRIES as _A_PORTS

ENTRIES: list = []
ENTRIES += _A + _A_PORTS  # half a
ENTRIES += heldout17_b.ENTRIES  # half b
