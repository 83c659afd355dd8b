"""Held-out set 6 (families h6 / h6-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout6_b, heldout6_b_ports

ENTRIES: list = []
ENTRIES += heldout6_b.ENTRIES + heldout6_b_ports.ENTRIES  # half b
