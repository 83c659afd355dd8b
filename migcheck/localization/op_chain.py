"""torch's one call for several of the port's (torch.logsumexp for the port's exp, sum, log): a function put in
the first call's place computes the later ones too, so they hand on their input (pure: op_search.py re-runs)."""
from __future__ import annotations

import dataclasses
from typing import List, Sequence, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.records.ops import OpChange, OpRecord

MAX_CHAIN = 4


def chains_after(div: OpDivergence, ms_ops: Sequence[OpRecord]) -> List[Tuple[int, ...]]:
    """The later calls fed, one by one, the result of the one before (at most MAX_CHAIN): each run of them that
    ends on a result of the shape of torch's counterpart's result, shortest first."""
    t = div.torch
    if t is None or not t.outputs or not div.ms.outputs:
        return []
    want, current, chain, out = t.outputs[0].shape, div.ms.outputs[0], [], []
    for r in ms_ops:
        if r.index <= div.ms.index or not r.outputs:
            continue
        if not any(x.shape == current.shape and np.array_equal(x, current, equal_nan=True) for x in r.inputs):
            continue
        chain.append(r.index)
        current = r.outputs[0]
        if current.shape == want:
            out.append(tuple(chain))
        if len(chain) >= MAX_CHAIN:
            break
    return out


def through_chain(div: OpDivergence, ms_ops: Sequence[OpRecord], alternatives: Sequence[Tuple[OpChange, str]]
                  ) -> List[Tuple[OpChange, str]]:
    """Each alternative function for the op again, with each chain after it handed on."""
    out = []
    for chain in chains_after(div, ms_ops):
        names = [r.name for r in ms_ops if r.index in chain]
        out += [(dataclasses.replace(change, drops=chain),
                 f"{words}, with the port's {', '.join(names)} after it handed on (torch's {div.torch.name}"
                 f" computes them in its one call)")
                for change, words in alternatives if change.replace and change.index == div.ms.index]
    return out
