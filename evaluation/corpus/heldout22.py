"""Held-out set 22 (blind, written in halves): every half's entries; see evaluation/README.md."""
from evaluation.corpus import heldout22_a, heldout22_a_more, heldout22_a_ports, heldout22_b, heldout22_b_ports

ENTRIES: list = []
ENTRIES += heldout22_a.ENTRIES + heldout22_a_more.ENTRIES + heldout22_a_ports.ENTRIES
ENTRIES += heldout22_b.ENTRIES + heldout22_b_ports.ENTRIES
