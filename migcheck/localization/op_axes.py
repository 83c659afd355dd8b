"""Every other axis for an op's axis argument: a primitive built with its default axis (ops.Softmax() normalizes
the last axis, ops.L2Normalize() the first) where torch's call names another, or where torch computes the same
thing in several calls and no argument of its own lines up. Candidates come from the call's own arguments and its
input's rank; only a re-run that then agrees with torch confirms one (op_search.py).
"""
from __future__ import annotations

import re
from itertools import combinations
from typing import Any, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.records.ops import OpChange, OpRecord, placed

_AXIS = re.compile(r"^(axis|axes|dim|dims)$")


def other_axes(ms_op: OpRecord, args: Mapping[str, Any], where: Mapping[str, Tuple[str, Any]]
               ) -> List[Tuple[OpChange, str]]:
    """For each argument named axis/dim holding one axis (a number, or a list of one), each other axis of the
    op's first input, counted from the front (torch's dim=1, not -4 of a rank-5 input), in the same form."""
    if not ms_op.inputs:
        return []
    rank = ms_op.inputs[0].ndim
    out = []
    for name, value in args.items():
        if not _AXIS.match(name) or name not in where:
            continue
        if isinstance(value, (tuple, list)) and len(value) > 1:  # several axes: each other set of as many
            out += _other_sets(ms_op.index, name, value, rank, where)
            continue
        one = value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value
        if not isinstance(one, int) or isinstance(one, bool) or rank < 2 or not -rank <= one < rank:
            continue
        for axis in range(rank):
            if axis == one % rank:
                continue
            new = type(value)((axis,)) if isinstance(value, (tuple, list)) else axis  # counted from the front
            out.append((placed(ms_op.index, where, ((name, new),)),
                        f"{name}={new!r} (another axis of its rank-{rank} input)"))
    return out


def _other_sets(index: int, name: str, value: Sequence[Any], rank: int, where: Mapping[str, Tuple[str, Any]]
                ) -> List[Tuple[OpChange, str]]:
    """(1, 2) of a rank-3 input -> (0, 1), (0, 2): the axes a norm or sum keeps per channel, counted otherwise."""
    if not all(isinstance(a, int) and not isinstance(a, bool) and -rank <= a < rank for a in value):
        return []
    mine = sorted({a % rank for a in value})
    if len(mine) != len(value) or len(value) >= rank:
        return []
    return [(placed(index, where, ((name, type(value)(axes)),)),
             f"{name}={type(value)(axes)!r} (other axes of its rank-{rank} input)")
            for axes in combinations(range(rank), len(value)) if list(axes) != mine]


def one_step_further(ms_op: OpRecord, args: Mapping[str, Any], where: Mapping[str, Tuple[str, Any]],
                     torch_op: Optional[OpRecord] = None, torch_values: Sequence[np.ndarray] = ()
                     ) -> List[Tuple[OpChange, str]]:
    """For an op that makes a tensor from numbers alone (ops.range, ops.arange, ops.linspace): each number moved by
    one and by each other number of the call (an end torch includes where the port's excludes it: end + step)."""
    if ms_op.inputs or not ms_op.outputs:
        return []
    numbers = {n: v for n, v in args.items() if n in where and isinstance(v, (int, float)) and not isinstance(v, bool)}
    out = []
    for name, value in numbers.items():
        steps = [1] + [v for n, v in numbers.items() if n != name and v not in (0, 1)]
        for step in dict.fromkeys(steps):
            for new in (value + step, value - step):
                new = new if isinstance(new, int) else float(f"{new:.12g}")  # 2.3, not 2.3000000000000003
                why = _end_kept(ms_op, torch_op, name, value, torch_values) or ("one value more or fewer, as an end included on one"
                                                                  " side only or a length computed another way makes")
                out.append((placed(ms_op.index, where, ((name, new),)), f"{name}={new!r} ({name} moved by {step!r}: {why})"))
    return out


def _end_kept(ms_op: OpRecord, torch_op: Optional[OpRecord], name: str, value: Any,
              torch_values: Sequence[np.ndarray] = ()) -> str:
    """Read off both results: torch's ends on the value both calls give and MindSpore's stops short of it
    (torch.range includes its end, ops.range excludes it), or the other way round; '' otherwise. With no torch
    call recorded (a factory torch's function mode does not show), torch's result is the value it fed on that
    is the port's result with one value more or fewer at the end."""
    mine = np.asarray(ms_op.outputs[0]).reshape(-1)
    theirs = torch_op.outputs[0] if torch_op is not None and torch_op.outputs else next(
        (v for v in torch_values if np.ndim(v) == 1 and abs(np.size(v) - mine.size) == 1
         and np.allclose(np.asarray(v, np.float64)[:min(np.size(v), mine.size)], mine[:min(np.size(v), mine.size)])),
        np.zeros(0))
    last = [np.asarray(o).reshape(-1)[-1] if np.size(o) else None for o in (theirs, mine)]
    if any(v is None for v in last):
        return ""
    t_has, m_has = (bool(np.isclose(float(v), float(value))) for v in last)
    given = torch_op is not None and any(isinstance(a, (int, float)) and not isinstance(a, bool) and np.isclose(
        a, value) for a in list(torch_op.positional) + [v for _, v in torch_op.keywords])
    if t_has and not m_has:  # torch's own end only where its call gave that value
        return (f"torch's {torch_op.name} includes its end {value!r} as its last value, MindSpore's {ms_op.name}"
                f" excludes it" if given else
                f"torch's result ends on {value!r}, the port's {name}; MindSpore's {ms_op.name} excludes its {name}")
    if m_has and not t_has:
        return (f"MindSpore's {ms_op.name} includes its {name} {value!r} as its last value, torch's result does not"
                f" reach it")
    return ""
