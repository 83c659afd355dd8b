"""Held-out set 12 (blind, written in halves): see evaluation/README.md."""
ENTRIES: list = []

from evaluation.corpus import heldout12_b, heldout12_b_gen, heldout12_b_graph, heldout12_b_vision  # noqa: E402

ENTRIES += heldout12_b_gen.ENTRIES + heldout12_b_vision.ENTRIES + heldout12_b_graph.ENTRIES + heldout12_b.ENTRIES
