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
    """The MindSpore objective reaches leaves by index paths, so dicts are refused."""
    if isinstance(outputs, dict) or (isinstance(outputs, (list, tuple)) and
                                     any(output_layout_problem(o) for o in outputs)):
        return "the objective supports tensors in (nested) tuples; this output holds a dict"
    return None
