"""Tolerance that knows conditioning: a failure within the reference's own float32 error is no failure. Pure.

An ill-conditioned input (LayerNorm of a nearly constant row) amplifies float32 rounding: torch's own
float32 result then sits far from the exact one, and a correct port lands elsewhere in that noise.
Each failing value tensor is re-judged with the allowance widened element by element by
FACTOR x |torch float32 - torch float64|; it passes only if that noise covers the whole difference.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, Mapping, Sequence, Tuple

import numpy as np

from migcheck.compare import TensorComparison
from migcheck.tree import flatten

FACTOR = 4.0


def rejudge(tensors: Sequence[TensorComparison], expected: Any, results: Any, oracle: Any
            ) -> Tuple[Tuple[TensorComparison, ...], Tuple[str, ...]]:
    """Failing value tensors that the reference's own float32 error explains pass, with a note saying so."""
    want: Dict[str, Any] = dict(flatten(expected, ""))
    got: Dict[str, Any] = dict(flatten(results, ""))
    exact: Dict[str, Any] = dict(flatten(oracle, ""))
    out, notes = [], []
    for t in tensors:
        if t.ok or t.kind != "value" or t.name not in want or t.name not in got or t.name not in exact:
            out.append(t)
            continue
        pt, ms, pt64 = (np.asarray(v, np.float64) for v in (want[t.name], got[t.name], exact[t.name]))
        if pt.shape != ms.shape or pt.shape != pt64.shape:
            out.append(t)
            continue
        noise = np.abs(pt - pt64)
        if np.all(np.abs(ms - pt) <= t.atol + t.rtol * np.abs(pt) + FACTOR * noise):
            note = (f"{t.name}: within what float32 can resolve here: torch's own float32 error (vs float64) reaches"
                    f" {float(noise.max()):.3g}, the port's difference {t.max_abs_err:.3g} (ill-conditioned input)")
            out.append(dataclasses.replace(t, ok=True, kind=None, message=note))
            notes.append(note)
        else:
            out.append(t)
    return tuple(out), tuple(notes)
