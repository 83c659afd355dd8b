"""The scalar both sides differentiate: a paired loss, or sum(output * cotangent) over float outputs.

A seeded random cotangent (not a plain sum) makes permutation and sign errors visible in gradients.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from migcheck.runners.base import LazyObjective, Objective  # noqa: F401  (re-exported: the types live with the runners)
from migcheck.util.seeding import rng_for
from migcheck.util.tree import as_array, flatten


def make_cotangents(case_name: str, outputs: Any) -> Tuple[Tuple[Optional[np.ndarray], ...], Tuple[str, ...]]:
    cotangents, notes = [], []
    for name, leaf in flatten(outputs):
        arr = as_array(leaf)
        if not np.issubdtype(arr.dtype, np.floating):
            cotangents.append(None)
            notes.append(f"{name} ({arr.dtype}) is not differentiable and is left out of the objective")
            continue
        rng = rng_for(case_name, "cotangent", name)
        cotangents.append(rng.normal(0.0, 1.0, arr.shape).astype(arr.dtype))
    return tuple(cotangents), tuple(notes)


def output_layout_problem(outputs: Any) -> Optional[str]:
    """The MindSpore objective reaches leaves by index paths (positions and field names), so a dict
    keyed by anything but strings is refused (GRAPH mode indexes dicts by constant strings only)."""
    if isinstance(outputs, dict):
        bad = [k for k in outputs if not isinstance(k, str)]
        if bad:
            return f"the objective reaches output fields by name; this output holds a dict keyed by {bad[0]!r}"
        return next((p for p in map(output_layout_problem, outputs.values()) if p), None)
    if isinstance(outputs, (list, tuple)):
        return next((p for p in map(output_layout_problem, outputs) if p), None)
    return None
