"""Held-out set 12 (families h12 / h12-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout12_a, heldout12_a_ports

ENTRIES: list = []
ENTRIES += heldout12_a.ENTRIES + heldout12_a_ports.ENTRIES  # half a
