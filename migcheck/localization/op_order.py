"""An op that returns torch's values in another order, measured on the two recorded results (pure).

`ops.unique` returns its values in order of first appearance where `torch.unique` sorts them; a gather of the
unique values by the inverse indices then agrees while every per-class result comes out permuted. Where the
port's first result holds the very values of torch's, in another order, and torch's are sorted, the change is the
port's results sorted the same way at run time, its index results mapped through that order (OpChange.sort_out;
re-run through the construct like every other candidate).
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.records.ops import OpChange, OpRecord


def _direction(b: np.ndarray) -> str:
    d = np.diff(b.astype(np.float64))
    return "ascending" if np.all(d >= 0) else "descending" if np.all(d <= 0) else ""


def _appearance(r: OpRecord, values: np.ndarray) -> bool:
    """The values are the op's first input's distinct values in order of first appearance."""
    if not r.inputs:
        return False
    flat = np.asarray(r.inputs[0]).reshape(-1)
    _, first = np.unique(flat, return_index=True)
    return np.array_equal(flat[np.sort(first)], values)


def order_candidates(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """The port's results in torch's sorted order, where its first result is torch's values permuted."""
    t = div.torch
    if t is None or not div.ms.outputs or not t.outputs:
        return []
    a, b = div.ms.outputs[0], t.outputs[0]
    if a.ndim != 1 or a.shape != b.shape or a.size < 2 or np.array_equal(a, b):
        return []
    if a.dtype.kind not in "fiub" or not np.array_equal(np.sort(a), np.sort(b)):
        return []
    direction = _direction(b)
    if not direction or _direction(a) == direction:
        return []
    order = "in order of first appearance in its input" if _appearance(div.ms, a) else "in another order"
    return [(OpChange(div.ms.index, sort_out=direction),
             f"'{div.ms.name}' results sorted {direction}, its index results mapped to that order (torch's"
             f" '{t.name}' returns the same {a.size} values sorted {direction}; the port's come {order})")]


def sort_fix(r: OpRecord, change: OpChange) -> str:
    """The confirmed reordering as code."""
    flag = ", descending=True" if change.sort_out == "descending" else ""
    more = len(r.outputs) > 1
    return (f"sort the values '{r.name}' returns{' and map its index results through the order' if more else ''}:"
            f" values, order = ops.sort(values{flag})" + ("; inverse = ops.gather(ops.argsort(order), inverse, 0)"
                                                           if more else "")
            + f" ({change.sort_out}, as torch returns them)")
