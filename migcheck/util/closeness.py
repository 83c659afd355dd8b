"""Closeness of two arrays as localization and weight pairing test it (torch.testing semantics)."""
from __future__ import annotations

import numpy as np


def widened(a: np.ndarray) -> np.ndarray:
    """An array in float64, or complex128 where it holds complex numbers (float64 would drop their imaginary parts)."""
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64, copy=False)


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    """torch.testing semantics, NaN equal to NaN and infinities equal only to themselves."""
    if a.shape != b.shape:
        return False
    a64, b64 = widened(a), widened(b)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a64 - b64) <= atol + rtol * np.abs(a64)
    ok |= (np.isnan(a64) & np.isnan(b64)) | (np.isinf(a64) & (a64 == b64))
    return bool(ok.all())
