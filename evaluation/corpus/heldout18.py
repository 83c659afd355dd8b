"""Held-out set 18 (blind, written in halves): see evaluation/README.md."""
from evaluation.corpus import heldout18_b

ENTRIES: list = []
ENTRIES += heldout18_b.ENTRIES  # half b
