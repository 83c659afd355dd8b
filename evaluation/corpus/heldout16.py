"""Held-out set 16 (blind), written in halves."""
ENTRIES: list = []

from evaluation.corpus import heldout16_b  # noqa: E402
ENTRIES += heldout16_b.ENTRIES
