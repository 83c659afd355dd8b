"""Replaying the functional calls a torch module's own forward made, with one argument changed.

The op recorder of the localization re-run keeps, for container modules only (their own calls, not
their children's), each call's function, arguments and result. Replaying them in order, with every
argument that was an earlier call's result replaced by that call's replayed result and the children's
outputs held fixed, recomputes a region of a forward; changing one keyword of one call is the
counterfactual `migcheck.localization.op_replay` judges.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from migcheck.localization.op_replay import TENSOR, Change, OpSite


@dataclass(frozen=True)
class RawOp:
    seq: int
    owner: str
    func: Any
    args: tuple
    kwargs: Dict[str, Any]
    result: Any
    shown: bool  # False for metadata reads and conversions (kept: a later call may use their result)


def _shown(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return TENSOR
    if isinstance(v, (tuple, list)):
        return type(v)(_shown(x) for x in v)
    return v


def _first_rank(args: Sequence[Any]) -> int:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.dim()
        if isinstance(a, (tuple, list)) and a and isinstance(a[0], torch.Tensor):
            return a[0].dim()
    return 0


def sites(raw: Sequence[RawOp], texts: Dict[int, str], owner: str, after: int, before: int) -> List[OpSite]:
    return [OpSite(r.seq, getattr(r.func, "__name__", ""), tuple(_shown(a) for a in r.args),
                   tuple((k, _shown(v)) for k, v in r.kwargs.items()), _first_rank(r.args), texts.get(r.seq, ""))
            for r in raw if r.shown and r.owner == owner and after < r.seq < before]


def replay(raw: Sequence[RawOp], owner: str, after: int, before: int, change: Optional[Change],
           to_numpy: Callable[[Any], Any]) -> Dict[int, Any]:
    """seq -> the replayed result (numpy) of each tensor-valued call in the region."""
    new: Dict[int, Any] = {}  # id(original result) -> replayed result

    def swap(v: Any) -> Any:
        if isinstance(v, torch.Tensor):  # a child's output is held fixed, copied: an in-place call must not change it
            return new[id(v)] if id(v) in new else v.clone()
        if isinstance(v, (tuple, list)):
            return type(v)(swap(x) for x in v)
        return v

    out = {}
    for r in raw:
        if r.owner != owner or not after < r.seq < before:
            continue
        args, kwargs = [swap(a) for a in r.args], {k: swap(v) for k, v in r.kwargs.items()}
        if change is not None and change.seq == r.seq and r.shown:
            if change.position is not None and len(args) > change.position and change.keyword not in kwargs:
                args[change.position] = change.value
            else:
                kwargs[change.keyword] = change.value
        with torch.no_grad():
            value = r.func(*args, **kwargs)
        originals = r.result if isinstance(r.result, (tuple, list)) else (r.result,)
        values = value if isinstance(value, (tuple, list)) else (value,)
        for o, v in zip(originals, values):
            if isinstance(o, torch.Tensor) and isinstance(v, torch.Tensor):
                new[id(o)] = v
        if isinstance(value, torch.Tensor) and r.shown:
            out[r.seq] = to_numpy(value)
    return out
