"""Held-out set 5 (families h5 / h5-port): blind entries written in halves, each registered here."""
ENTRIES = []

from evaluation.corpus import heldout5_c  # noqa: E402
ENTRIES += heldout5_c.ENTRIES
