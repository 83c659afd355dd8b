"""Held-out set 11 (blind, written in halves): the entries of heldout11_*.py."""
ENTRIES: list = []

from evaluation.corpus.heldout11_b import ENTRIES as _B  # noqa: E402

ENTRIES += _B
