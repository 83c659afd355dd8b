"""Held-out set 12 (families h12 / h12-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout12_a, heldout12_a_ports
from evaluation.corpus import heldout12_b, heldout12_b_gen, heldout12_b_graph, heldout12_b_vision

ENTRIES: list = []
ENTRIES += heldout12_a.ENTRIES + heldout12_a_ports.ENTRIES  # half a
ENTRIES += heldout12_b_gen.ENTRIES + heldout12_b_vision.ENTRIES + heldout12_b_graph.ENTRIES + heldout12_b.ENTRIES  # half b
