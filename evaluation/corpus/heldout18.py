"""Held-out set 18 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout18_b
from evaluation.corpus.heldout18_a import ENTRIES as _A
from evaluation.corpus.heldout18_a_ports import ENTRIES as _A_PORTS

ENTRIES: list = []
ENTRIES += _A + _A_PORTS  # half a
ENTRIES += heldout18_b.ENTRIES  # half b
