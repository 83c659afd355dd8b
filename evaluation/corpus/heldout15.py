"""Held-out set 15 (families h15 / h15-port): blind single-difference ports, written in halves by helpers who did not
read migcheck's localization, mapping, judging or running code. Each half registers its modules here."""
from evaluation.corpus import heldout15_a, heldout15_a_ports
from evaluation.corpus.heldout15_b import ENTRIES as _B
from evaluation.corpus.heldout15_b_more import ENTRIES as _BM
from evaluation.corpus.heldout15_b_ports import ENTRIES as _BP

ENTRIES: list = []
ENTRIES += heldout15_a.ENTRIES + heldout15_a_ports.ENTRIES  # half a
ENTRIES += _B + _BP + _BM  # half b
