"""Held-out set 11 (blind), written in halves."""
from evaluation.corpus.heldout11_a import ENTRIES as _A
from evaluation.corpus.heldout11_a_ops import ENTRIES as _A_OPS
from evaluation.corpus.heldout11_a_more import ENTRIES as _A_MORE
from evaluation.corpus.heldout11_b import ENTRIES as _B

ENTRIES: list = []
ENTRIES += _A + _A_OPS + _A_MORE + _B
