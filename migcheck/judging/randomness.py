"""Outputs that are random by design (dropout in train mode): judged by what is deterministic about them.

Two frameworks never draw the same dropout mask, so comparing such outputs element by element is a
false alarm. A tensor is random when torch itself gives a different result on a second identical
run. It is then compared by its distribution: the fraction of zeroed elements (a binomial count,
compared within 4 standard deviations) and the scale of what survives (the mean of |x| over
non-zero elements, which inverted dropout keeps equal to the input's). A port with keep_prob where
p was meant, or without the 1/(1-p) rescale, still fails.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison

SCALE_RTOL = 0.2  # surviving elements' mean |x| may differ this much (different subsets); no rescale is 43% off at p=0.3


def differs(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two runs of the same side, same weights and inputs, disagree: the output is random."""
    a, b = np.asarray(first), np.asarray(second)
    return a.shape == b.shape and not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _zero_fraction(x: np.ndarray) -> float:
    return float(np.count_nonzero(x == 0)) / x.size


def _surviving_scale(x: np.ndarray) -> float:
    kept = np.abs(x[x != 0])
    return float(kept.mean()) if kept.size else 0.0


def _distribution(pt: np.ndarray, ms: np.ndarray) -> Tuple[bool, bool, float, float, float, float, float]:
    """(zeros ok, scale ok, torch's and MindSpore's zeroed fractions, allowed difference, surviving scales)."""
    f_pt, f_ms = _zero_fraction(pt), _zero_fraction(ms)
    p = min(max((f_pt + f_ms) / 2, 1.0 / pt.size), 1 - 1.0 / pt.size)
    # two independent draws: their fractions' difference has variance 2p(1-p)/n; 5 sigma of it keeps a correct
    # port's false alarms below one in a million (4 sigma of one draw failed a correct dropout 1 run in ~10)
    allowed = 5 * math.sqrt(2 * p * (1 - p) / pt.size) + 1.0 / pt.size
    s_pt, s_ms = _surviving_scale(pt), _surviving_scale(ms)
    scale_ok = abs(s_pt - s_ms) <= SCALE_RTOL * max(s_pt, s_ms, 1e-12)
    return abs(f_pt - f_ms) <= allowed, scale_ok, f_pt, f_ms, allowed, s_pt, s_ms


def same_distribution(first: np.ndarray, second: np.ndarray) -> bool:
    """Two random draws (dropout outputs) with the same zeroed fraction and surviving scale."""
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if a.shape != b.shape or a.size == 0:
        return False
    zeros_ok, scale_ok = _distribution(a, b)[:2]
    return zeros_ok and scale_ok


def judge_random(t: TensorComparison, pt: np.ndarray, ms: np.ndarray) -> TensorComparison:
    """A failing tensor that torch itself does not reproduce, re-judged by its distribution."""
    pt, ms = np.asarray(pt, dtype=np.float64), np.asarray(ms, dtype=np.float64)
    if pt.shape != ms.shape or pt.size == 0:
        return t
    zeros_ok, scale_ok, f_pt, f_ms, allowed, s_pt, s_ms = _distribution(pt, ms)
    ok = zeros_ok and scale_ok
    what = (f"zeroed fraction torch {f_pt:.3f} vs mindspore {f_ms:.3f} (allowed +-{allowed:.3f}), mean |x| of the"
            f" surviving elements torch {s_pt:.4g} vs mindspore {s_ms:.4g}")
    note = (f"random in this mode: torch's own second run differs (dropout or sampling), so {t.name} is compared by"
            f" its distribution, not element by element: {what}")
    message = (f"{t.name}: random, same distribution ({what})" if ok else
               f"{t.name} is random in this mode and its distribution differs: {what}"
               + ("; the zeroed fraction points at the drop probability (p vs keep_prob)" if not zeros_ok else
                  "; the surviving elements' scale points at the 1/(1-p) rescale"))
    return dataclasses.replace(t, ok=ok, kind=None if ok else "value", message=message, notes=t.notes + (note,),
                               tolerance_source="random output: compared by distribution",
                               error_sample=t.error_sample if not ok else None)
