"""The scalar both sides differentiate: a paired loss, or sum(output * cotangent) over float outputs.

A seeded random cotangent (not a plain sum) makes permutation and sign errors visible in gradients.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np

from migcheck.util.seeding import rng_for
from migcheck.util.tree import as_array, flatten


@dataclass(frozen=True)
class Objective:
    """What the runners need to build the same scalar on both sides."""

    n_net_inputs: int  # the first n inputs feed the network; the rest feed the loss
    # One entry per flattened output leaf; None where the leaf is excluded (integer/bool).
    cotangents: Tuple[Optional[np.ndarray], ...]
    notes: Tuple[str, ...] = ()
    # The index path to each leaf, e.g. (1, 0) for h in an LSTM's (out, (h, c)); () for a bare tensor.
    paths: Tuple[Tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class LazyObjective:
    """An objective whose cotangents are shaped by the very forward pass that is differentiated.

    The runner calls ``build(outputs)`` with a numpy tree shaped like the network's outputs (only
    shapes and dtypes count), so the backward check needs no extra forward pass just to learn them.
    """

    n_net_inputs: int
    build: Callable[[Any], Objective]


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
