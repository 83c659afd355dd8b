"""Held-out set 20 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout20_b
from evaluation.corpus.heldout20_a import ENTRIES as _A
from evaluation.corpus.heldout20_a_ports import ENTRIES as _A_PORTS

ENTRIES: list = []
ENTRIES += _A + _A_PORTS  # half a
ENTRIES += heldout20_b.ENTRIES  # half b
