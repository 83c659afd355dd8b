"""Stable seeds: the same case name gives the same numbers on every run, machine and xdist worker."""
from __future__ import annotations

import hashlib

import numpy as np


def stable_seed(*parts: object) -> int:
    """A 63-bit seed derived from the parts' text, independent of PYTHONHASHSEED."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def rng_for(*parts: object) -> np.random.Generator:
    return np.random.default_rng(stable_seed(*parts))
