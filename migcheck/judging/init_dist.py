"""The `init` check's judgement: do two default initializations draw from the same distribution?

Pure numpy. Each parameter's values, pooled over several seeded builds per side, are compared by a
two-sample Kolmogorov-Smirnov test; the family of parameters shares one false-alarm budget ALPHA
(Bonferroni: each parameter is tested at ALPHA / count), so a port whose initializers equal torch's
fails a case with probability at most ALPHA. Mean, std and bounds are reported to say how they differ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from migcheck.judging.compare import TensorComparison

ALPHA = 1e-3  # the chance that identical initializers fail one case (family-wise, Bonferroni)
SEEDS = 4  # seeded builds per side; values pooled per parameter
MAX_VALUES = 20000  # per side and parameter: a seeded subsample beyond this (the test's power is already ample)


@dataclass(frozen=True)
class Summary:
    """How one side initializes one parameter, in numbers and in words."""

    mean: float
    std: float
    low: float
    high: float
    count: int
    looks_like: str

    def text(self) -> str:
        return f"{self.looks_like} (mean {self.mean:.3g}, std {self.std:.3g}, in [{self.low:.3g}, {self.high:.3g}])"


def summarize(values: np.ndarray) -> Summary:
    v = np.asarray(values, dtype=np.float64).ravel()
    mean, std = float(v.mean()), float(v.std())
    low, high = float(v.min()), float(v.max())
    return Summary(mean, std, low, high, int(v.size), _looks_like(v, mean, std, low, high))


def _looks_like(v: np.ndarray, mean: float, std: float, low: float, high: float) -> str:
    """A name for the initializer, read off the values: what a reader would have written in the port."""
    if std == 0.0:
        return f"constant {mean:g}"
    if v.size < 30:
        return "random"
    kurtosis = float(np.mean(((v - mean) / std) ** 4))
    bound = max(abs(low), abs(high))
    if kurtosis < 2.0 and abs(mean) < 0.1 * bound:  # uniform: 1.8
        return f"uniform(-{bound:.3g}, {bound:.3g})"
    if 2.6 < kurtosis < 3.5:  # normal: 3
        return f"normal({0 if abs(mean) < 0.1 * std else mean:.2g}, std {std:.3g})"
    if 2.0 <= kurtosis <= 2.6 and (high - low) < 4.5 * std:  # truncated at about 2 std
        return f"truncated normal(std {std:.3g})"
    return "random"


def ks_2samp(a: np.ndarray, b: np.ndarray) -> Tuple[float, float]:
    """(D, p): the two-sample Kolmogorov-Smirnov statistic and its asymptotic p-value.

    p uses Stephens' small-sample correction of the Kolmogorov distribution; with ties (constant or
    discrete values) the test is conservative, so the stated false-alarm rate still bounds it.
    """
    a, b = np.sort(np.asarray(a, np.float64).ravel()), np.sort(np.asarray(b, np.float64).ravel())
    both = np.concatenate([a, b])
    d = float(np.max(np.abs(np.searchsorted(a, both, side="right") / a.size
                            - np.searchsorted(b, both, side="right") / b.size)))
    en = math.sqrt(a.size * b.size / (a.size + b.size))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 0.2:
        return d, 1.0
    terms = [2.0 * (-1) ** (k - 1) * math.exp(-2.0 * k * k * lam * lam) for k in range(1, 101)]
    return d, float(min(1.0, max(0.0, sum(terms))))


def _pool(draws: Sequence[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    values = np.concatenate([np.asarray(d, np.float64).ravel() for d in draws])
    return rng.choice(values, MAX_VALUES, replace=False) if values.size > MAX_VALUES else values


def compare_inits(torch_draws: Mapping[str, Sequence[np.ndarray]], ms_draws: Mapping[str, Sequence[np.ndarray]],
                  labels: Mapping[str, str], alpha: float = ALPHA, seed: int = 0) -> List[TensorComparison]:
    """One comparison per float parameter (torch name -> its draws over seeds, MindSpore's under torch
    names); labels name each parameter on both sides for the message (default: the torch name)."""
    names = [n for n in torch_draws if n in ms_draws]
    each = alpha / max(1, len(names))
    rng = np.random.default_rng(seed)
    out = []
    for name in names:
        pt, ms = _pool(torch_draws[name], rng), _pool(ms_draws[name], rng)
        d, p = ks_2samp(pt, ms)
        ok = p >= each
        left, right = summarize(pt), summarize(ms)
        label = labels.get(name, name)
        test = f"KS D={d:.3g}, p={p:.2g} {'>=' if ok else '<'} {each:.2g} (alpha {alpha:g} over {len(names)} parameter(s))"
        message = (f"init of {label}: default initializations {'agree' if ok else 'differ'}: torch draws {left.text()};"
                   f" MindSpore draws {right.text()}; {test}")
        shape = tuple(np.shape(torch_draws[name][0]))
        out.append(TensorComparison(
            name=f"init.{name}", ok=ok, kind=None if ok else "value", message=message,
            torch_shape=shape, ms_shape=tuple(np.shape(ms_draws[name][0])), torch_dtype="float32", ms_dtype="float32",
            total=left.count, max_abs_err=abs(left.std - right.std), mean_abs_err=abs(left.mean - right.mean),
            tolerance_source=f"init: two-sample KS, alpha {alpha:g} Bonferroni over {len(names)} parameter(s)"))
    return out


def draws_by_name(states: Sequence[Mapping[str, np.ndarray]]) -> Dict[str, List[np.ndarray]]:
    """Per-seed states -> name -> that parameter's value in each seed (float parameters only)."""
    out: Dict[str, List[np.ndarray]] = {}
    for state in states:
        for name, value in state.items():
            if np.issubdtype(np.asarray(value).dtype, np.floating) and np.asarray(value).size:
                out.setdefault(name, []).append(np.asarray(value))
    return out
