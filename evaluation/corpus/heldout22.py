"""Held-out set 22 (blind, written in halves): every half's entries; see evaluation/README.md."""
from evaluation.corpus import heldout22_b, heldout22_b_ports

ENTRIES: list = []
ENTRIES += heldout22_b.ENTRIES + heldout22_b_ports.ENTRIES
