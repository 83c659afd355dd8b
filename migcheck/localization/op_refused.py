"""A raising call's own arguments in another form or order (pure: op_search.py re-runs each). Only the port's own
values: nothing is made up."""
from __future__ import annotations

from typing import Any, List, Tuple

from migcheck.localization.op_align import OpDivergence
from migcheck.records.ops import OpChange


def refused_forms(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """For a call that raised: its own plain arguments in another form (an int where a tuple of one is wanted,
    and back) or at another place among its positional arguments (torch's index_add(dim, index, source) ported
    to a function that takes the axis last). Only the port's own values: nothing is made up."""
    if not div.ms.raised:
        return []
    out = _other_case(div) + _other_number_type(div) + _counted_from_the_end(div)
    positional = div.ms.positional
    for k, v in enumerate(positional):
        if isinstance(v, bool) or v == "<tensor>":
            continue
        name = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        if isinstance(v, int):
            out.append((OpChange(div.ms.index, positions=((k, (v,)),)), f"its {name} {v!r} given as the tuple ({v},)"))
        elif isinstance(v, tuple) and len(v) == 1 and isinstance(v[0], int):
            out.append((OpChange(div.ms.index, positions=((k, v[0]),)), f"its {name} {v!r} given as the int {v[0]}"))
    rank = div.ms.inputs[0].ndim if div.ms.inputs else 0
    for k, v in enumerate(positional):  # a pair of axes where the function takes a whole permutation
        if isinstance(v, tuple) and len(v) == 2 and rank > 2 and all(
                isinstance(a, int) and not isinstance(a, bool) and -rank <= a < rank for a in v):
            perm = list(range(rank))
            a, b = v[0] % rank, v[1] % rank
            perm[a], perm[b] = perm[b], perm[a]
            name = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
            out.append((OpChange(div.ms.index, positions=((k, tuple(perm)),)),
                        f"its {name} {v!r} given as the permutation that swaps those axes, {tuple(perm)!r}"))
    for k, v in list(enumerate(positional)) + list(div.ms.keywords):  # a number the function takes as a Tensor
        if _numbers(v):
            name = (div.ms.names[k] if k < len(div.ms.names) else f"argument {k}") if isinstance(k, int) else k
            out.append((OpChange(div.ms.index, as_tensor=(k,)), f"its {name} {v!r} given as a Tensor"))
    for k, v in enumerate(positional):
        if v == "<tensor>" or not isinstance(v, (int, float)) or isinstance(v, bool):
            continue
        for to in sorted({len(positional) - 1, 1} - {k}):  # last (an axis many functions take last), or second
            order = [i for i in range(len(positional)) if i != k]
            order.insert(to, k)
            out.append((OpChange(div.ms.index, order=tuple(order)),
                        f"its {v!r} moved to argument position {to} (the arguments in another order)"))
    return out[:10]


def _other_case(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """A string argument in the other letter case (pad_mode='constant' where the kernel takes 'CONSTANT')."""
    out = []
    named = [(div.ms.names[k] if k < len(div.ms.names) else None, k, v) for k, v in enumerate(div.ms.positional)]
    for name, k, v in named + [(key, None, v) for key, v in div.ms.keywords]:
        if not isinstance(v, str) or v == "<tensor>":
            continue
        for other in [o for o in dict.fromkeys((v.upper(), v.lower())) if o != v]:
            change = OpChange(div.ms.index, arguments=((name, other),)) if k is None else OpChange(
                div.ms.index, positions=((k, other),))
            out.append((change, f"its {name or f'argument {k}'} {v!r} written as {other!r} (the other letter case)"))
    return out


def _counted_from_the_end(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """A negative position (narrow's start=-3) where the function wants one counted from the front: plus the size
    of the call's axis (its dim/axis argument), or of each axis of its first tensor where it names none."""
    if not div.ms.inputs:
        return []
    shape = div.ms.inputs[0].shape
    named = dict(zip(div.ms.names, div.ms.positional))
    named.update(dict(div.ms.keywords))
    axis = next((v for k, v in named.items() if k in ("axis", "dim") and isinstance(v, int)), None)
    axes = [axis % len(shape)] if axis is not None and shape else list(range(len(shape)))
    out = []
    for k, v in enumerate(div.ms.positional):
        name = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        if isinstance(v, bool) or not isinstance(v, int) or v >= 0 or name in ("axis", "dim"):
            continue
        for a in axes:
            if v + shape[a] >= 0:
                out.append((OpChange(div.ms.index, positions=((k, v + shape[a]),)),
                            f"its {name} {v} counted from the front of axis {a} (size {shape[a]}): {v + shape[a]}"))
    return out


def _other_number_type(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """Each number argument in the other type of number: an integral float as an int (ops.logspace's base
    wants an int), an int as a float."""
    out = []
    named = [(k, div.ms.names[k] if k < len(div.ms.names) else f"argument {k}", v)
             for k, v in enumerate(div.ms.positional)] + [(k, k, v) for k, v in div.ms.keywords]
    for k, name, v in named:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        if isinstance(v, float) and not v.is_integer():
            continue
        other = int(v) if isinstance(v, float) else float(v)
        change = OpChange(div.ms.index, arguments=((k, other),)) if isinstance(k, str) else OpChange(
            div.ms.index, positions=((k, other),))
        out.append((change, f"its {name} {v!r} given as the {type(other).__name__} {other!r}"))
    return out


def _numbers(v: Any) -> bool:
    """A plain number, or a flat tuple of them: what a function may want as a Tensor instead."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    return isinstance(v, (tuple, list)) and bool(v) and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                           for x in v)
