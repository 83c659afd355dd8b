"""Held-out set 21 (blind, written in halves): every half's entries; see evaluation/README.md."""
from evaluation.corpus import heldout21_a, heldout21_a_ops, heldout21_a_ports, heldout21_b, heldout21_b_ports

ENTRIES: list = []
ENTRIES += heldout21_a.ENTRIES + heldout21_a_ops.ENTRIES + heldout21_a_ports.ENTRIES
ENTRIES += heldout21_b.ENTRIES + heldout21_b_ports.ENTRIES
