"""Held-out set 19 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout19_b
from evaluation.corpus.heldout19_a import ENTRIES as _A
from evaluation.corpus.heldout19_a_ports import ENTRIES as _A_PORTS

ENTRIES: list = []
ENTRIES += _A + _A_PORTS  # half a
ENTRIES += heldout19_b.ENTRIES  # half b
