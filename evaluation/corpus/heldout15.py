"""Held-out set 15 (blind), written in halves."""
ENTRIES: list = []

from evaluation.corpus.heldout15_b import ENTRIES as _B  # noqa: E402
from evaluation.corpus.heldout15_b_more import ENTRIES as _BM  # noqa: E402
from evaluation.corpus.heldout15_b_ports import ENTRIES as _BP  # noqa: E402

ENTRIES += _B + _BP + _BM
