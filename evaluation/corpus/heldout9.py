"""Held-out set 9 (family "h9" single API, "h9-port" blocks), written blind in halves."""
ENTRIES: list = []
from evaluation.corpus.heldout9_b import ENTRIES as _B  # noqa: E402

ENTRIES += _B
