"""Closeness of two arrays as localization and weight pairing test it (torch.testing semantics)."""
from __future__ import annotations

import numpy as np


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    """torch.testing semantics, NaN equal to NaN and infinities equal only to themselves."""
    if a.shape != b.shape:
        return False
    a64, b64 = a.astype(np.float64, copy=False), b.astype(np.float64, copy=False)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a64 - b64) <= atol + rtol * np.abs(a64)
    ok |= (np.isnan(a64) & np.isnan(b64)) | (np.isinf(a64) & (a64 == b64))
    return bool(ok.all())
