"""A sequence argument's tensors in another order: an op that joins several tensors (ops.concat, ops.stack) given
them in an order torch's call did not use (a sinusoidal embedding concatenated as (cos, sin) where torch's is
(sin, cos)). Candidates come from the recorded call itself: each other order of its tuple of tensors, for tuples
of two or three; only a re-run that then agrees with torch confirms one (op_search.py).
"""
from __future__ import annotations

import itertools
from typing import List, Sequence, Tuple

import numpy as np

from migcheck.records.ops import OpChange, OpRecord

TENSOR = "<tensor>"
MAX_JOINED = 3  # 3! orders at most


def reordered_sequences(ms_op: OpRecord) -> List[Tuple[OpChange, str]]:
    """Each other order of a positional tuple of 2 or 3 tensors the op was called with."""
    out = []
    for k, value in enumerate(ms_op.positional):
        if not isinstance(value, tuple) or not 2 <= len(value) <= MAX_JOINED or any(v != TENSOR for v in value):
            continue
        for perm in itertools.permutations(range(len(value))):
            if list(perm) != sorted(perm):
                out.append((OpChange(ms_op.index, reorder=((k, perm),)),
                            f"its {_name(ms_op, k)} in the order {list(perm)} (the joined pieces in another order)"))
    return out


def reorder_fix(ms_op: OpRecord, change: OpChange, earlier: Sequence[OpRecord] = ()) -> str:
    """'concat((sin(...), cos(...)), ...) in place of concat((cos(...), sin(...)), ...)': each piece named by the
    op whose result it is (the latest earlier op that returned an equal value), else by its place (t0, t1)."""
    k, order = change.reorder[0]
    name = ms_op.name.rsplit(".", 1)[-1]
    first = sum(1 for v in ms_op.positional[:k] if v == TENSOR)  # the tuple's tensors among the op's inputs
    pieces = [_made_by(ms_op.inputs[first + i], earlier, ms_op.index) if first + i < len(ms_op.inputs) else ""
              for i in range(len(order))]
    pieces = [p or f"t{i}" for i, p in enumerate(pieces)]
    return (f"{name}(({', '.join(pieces[i] for i in order)}), ...) in place of {name}(({', '.join(pieces)}), ...):"
            f" hand {name} its {_name(ms_op, k)} in the order torch joins them")


def _made_by(x: np.ndarray, earlier: Sequence[OpRecord], before: int) -> str:
    for r in sorted((r for r in earlier if r.index < before), key=lambda r: -r.index):
        if any(y.shape == x.shape and np.array_equal(y, x, equal_nan=True) for y in r.outputs):
            return f"{r.name.rsplit('.', 1)[-1]}(...)"
    return ""


def _name(ms_op: OpRecord, k: int) -> str:
    return f"{ms_op.names[k]} (argument {k})" if k < len(ms_op.names) else f"argument {k}"
