"""How wide must rtol (or atol) be before a different activation passes? (issue 24: refuse such tolerances)

For each ordered pair of common activations (torch side, port side) on seeded N(0, s) inputs, the
comparator's own smallest passing rtol (with atol 0 and with the default atol 1e-5) and atol (rtol 0).
Prints the smallest of each over all pairs: a tolerance at or above it lets some wrong activation pass.
numpy only; ~1 s.  .venv/bin/python benchmarks/wide_tolerance.py
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from migcheck.judging.compare import compare_arrays
from migcheck.tolerance import Tolerance

ERF = np.vectorize(math.erf)
ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "gelu": lambda x: 0.5 * x * (1 + ERF(x / math.sqrt(2))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "identity": lambda x: x,
}


def main() -> None:
    rows = []
    for scale, seed in itertools.product((0.1, 1.0, 10.0), range(3)):
        x = np.random.default_rng(seed).normal(0, scale, 4096).astype(np.float32)
        for a, b in itertools.permutations(ACTIVATIONS, 2):
            pt, ms = ACTIVATIONS[a](x).astype(np.float32), ACTIVATIONS[b](x).astype(np.float32)
            zero_atol = compare_arrays("out", pt, ms, Tolerance(0.0, 0.0))
            default_atol = compare_arrays("out", pt, ms, Tolerance(0.0, 1e-5))
            rows.append((a, b, scale, seed, zero_atol.min_rtol, default_atol.min_rtol, zero_atol.min_atol))
    print(f"{len(rows)} (pair, input scale, seed) comparisons, 4096 N(0, scale) inputs each")
    for label, col in (("rtol (atol 0)", 4), ("rtol (atol 1e-5)", 5), ("atol (rtol 0)", 6)):
        best = min(rows, key=lambda r: r[col])
        print(f"smallest {label} that lets a different activation pass: {best[col]:.3g}"
              f" ({best[0]} ported as {best[1]}, inputs N(0, {best[2]:g}))")
    relu_sig = [r for r in rows if (r[0], r[1]) == ("sigmoid", "relu")]
    print("sigmoid ported as relu passes from rtol", ", ".join(f"{r[4]:.3g} (N(0,{r[2]:g}))" for r in relu_sig[::3]))
    sig_relu = [r for r in rows if (r[0], r[1]) == ("relu", "sigmoid")]
    print("relu ported as sigmoid passes from rtol", ", ".join(f"{r[5]:.3g}" for r in sig_relu[::3]),
          "(atol 1e-5; inf: torch's zeros need an atol)")


if __name__ == "__main__":
    main()
