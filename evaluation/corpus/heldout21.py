"""Held-out set 21 (blind, written in halves): every half's entries."""
from evaluation.corpus import heldout21_b, heldout21_b_ports

ENTRIES: list = []
ENTRIES += heldout21_b.ENTRIES + heldout21_b_ports.ENTRIES
