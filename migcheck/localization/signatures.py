"""What the numbers alone say when no setting explains a difference. Pure functions on two arrays.

Each check looks for one pattern between torch's output `t` and MindSpore's `m` (same layer, same
inputs): error only on the borders, a constant ratio, the same values in another order, transposed
axes, zero-filled rows or columns, a one-element shift, a sign flip, NaN/Inf/0 conventions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np


@dataclass(frozen=True)
class Signature:
    rule: str
    cause: str


def _arr(tree: Any) -> Optional[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return tree
    if isinstance(tree, (list, tuple)):
        return next((x for x in (_arr(v) for v in tree) if x is not None), None)
    return None


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def nonfinite_convention(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    tn, mn = ~np.isfinite(t), ~np.isfinite(m)
    if (tn != mn).any():
        where = tn != mn
        tv, mv = t[where].ravel()[:1], m[where].ravel()[:1]
        return Signature("nonfinite-convention", f"non-finite values differ where the other side is finite"
                         f" (e.g. torch {tv[0]!r}, MindSpore {mv[0]!r}): a NaN/Inf/0 convention (empty input, norm at 0,"
                         " log of 0) differs")
    return None


def sign_flip(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    if _close(t, -m) and np.abs(t).max() > 0:
        return Signature("sign-flip", "MindSpore's output is torch's with the sign flipped")
    return None


def constant_ratio(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    big = np.abs(t) > 1e-6 * max(float(np.abs(t).max()), 1e-30)
    if big.sum() < 1:
        return None
    ratio = m[big] / t[big]
    r = float(np.median(ratio))
    if abs(r - 1) > 1e-3 and np.allclose(ratio, r, rtol=1e-3, atol=1e-6):
        return Signature("constant-ratio", f"MindSpore's output is torch's times {r:.6g} everywhere: a scale"
                         " (mean vs sum reduction, keep probability, a missing 1/sqrt(d), a count) differs")
    return None


def permuted(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    if t.size > 1 and _close(np.sort(t.ravel()), np.sort(m.ravel())):
        return Signature("same-values-reordered", "the same values in another order: an index order, tie-breaking,"
                         " sort stability or a reshape/permute of axes differs")
    return None


def transposed(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    if t.ndim >= 2:
        for a in range(t.ndim):
            for b in range(a + 1, t.ndim):
                if t.shape[a] == t.shape[b] and _close(np.swapaxes(t, a, b), m):
                    return Signature("transposed-axes", f"MindSpore's output is torch's with axes {a} and {b} swapped")
    return None


def shifted(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    for axis in range(t.ndim):
        if t.shape[axis] < 3:
            continue
        for step in (1, -1):
            sl_t = [slice(None)] * t.ndim
            sl_m = [slice(None)] * t.ndim
            sl_t[axis] = slice(0, -1) if step == 1 else slice(1, None)
            sl_m[axis] = slice(1, None) if step == 1 else slice(0, -1)
            if _close(t[tuple(sl_t)], m[tuple(sl_m)]):
                return Signature("one-element-shift", f"MindSpore's output is torch's shifted by one along axis {axis}")
    return None


def zero_filled(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    bad = ~np.isclose(t, m, rtol=1e-4, atol=1e-5)
    if bad.any() and np.all(m[bad] == 0) and t.ndim >= 2:
        return Signature("zero-filled", f"{int(bad.sum())} values are 0 on MindSpore's side only: rows or columns"
                         " left unfilled (a mask, padding_idx, or an in-place write that did nothing)")
    return None


def border_only(t: np.ndarray, m: np.ndarray) -> Optional[Signature]:
    if t.ndim < 3 or min(t.shape[-2:]) < 3:
        return None
    inner = (Ellipsis, slice(1, -1), slice(1, -1))
    bad = ~np.isclose(t, m, rtol=1e-4, atol=1e-5)
    if bad.any() and not bad[inner].any():
        return Signature("border-only", "only the outermost rows/columns differ: the padding (amount, side or"
                         " fill value) differs")
    return None


CHECKS: Tuple[Callable[[np.ndarray, np.ndarray], Optional[Signature]], ...] = (
    nonfinite_convention, sign_flip, constant_ratio, transposed, shifted, permuted, zero_filled, border_only)


def describe(torch_out: Any, ms_out: Any, checks: Sequence[Callable] = CHECKS) -> Optional[Signature]:
    t, m = _arr(torch_out), _arr(ms_out)
    if t is None or m is None or t.shape != m.shape or t.dtype.kind not in "fc":
        return None
    t, m = t.astype(np.float64), m.astype(np.float64)
    if _close(t, m):
        return None
    for check in checks:
        if check is not nonfinite_convention and not (np.isfinite(t).all() and np.isfinite(m).all()):
            continue
        found = check(t, m)
        if found:
            return found
    return None


def is_random(first: Any, second: Any) -> bool:
    """The same side, same inputs, two runs, different results: randomness (dropout, sampling)."""
    a, b = _arr(first), _arr(second)
    return a is not None and b is not None and a.shape == b.shape and not np.array_equal(a, b, equal_nan=True)
