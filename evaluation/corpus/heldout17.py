"""Held-out set 17 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus.heldout17_a import ENTRIES as _A
from evaluation.corpus.heldout17_a_ports import ENTRIES as _A_PORTS

ENTRIES: list = []
ENTRIES += _A + _A_PORTS  # half a
