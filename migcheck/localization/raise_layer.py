"""A library layer that raises on torch's recorded input, where torch's layer ran: changes that make it run and
agree with torch, each re-run on that input: first its inputs with the class/channel axis moved, torch's axis 1
to MindSpore's last or back (a loss that wants the classes last: the port's own layer kept); then its inputs in
the dtypes MindSpore's kernels take (int64 labels as int32); then the layer's own arguments and other
mindspore.nn classes in its place, as for a layer that computes wrong numbers (cell_search.py).
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import SearchOutcome
from migcheck.localization.confirm import agree
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


def axis_moves(inputs: Sequence[np.ndarray]) -> List[Tuple[int, int, int]]:
    """(input, from, to): each input of 3 or more axes with torch's axis 1 moved last, or its last moved to 1."""
    out = []
    for k, x in enumerate(inputs):
        if isinstance(x, np.ndarray) and x.ndim >= 3:
            out += [(k, 1, -1), (k, -1, 1)]
    return out


def raising_layer_fix(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, call: Any,
                      tol: TolFor) -> Optional[SearchOutcome]:
    """The first change after which the raising layer runs on torch's recorded input and agrees with torch's
    output; None when none does."""
    from migcheck.localization.cell_search import search_layer

    inputs = list(call.inputs)
    try:
        cell.run_subcell(ms_name, inputs)
        return None  # it runs on torch's input: what it was fed upstream is wrong, not the layer
    except Exception as exc:  # it raises on torch's recorded input too: its own call is wrong
        missing = re.search(r"missing \d+ required positional arguments?: '(\w+)'", str(exc))
    if missing is not None:  # an input torch's layer defaults (a recurrent cell's hidden state: zeros)
        found = _zeros_for(cell, ms_name, inputs, call, missing.group(1), tol)
        if found is not None:
            return found
    # the port's own layer handed its input in another layout before any other class in its place: the smaller
    # change (SoftmaxCrossEntropyWithLogits takes the classes last where torch's CrossEntropyLoss reads axis 1)
    tried: List[str] = []
    kind = _kind(cell, ms_name)
    for k, a, b in axis_moves(inputs):
        moved = list(inputs)
        moved[k] = np.moveaxis(inputs[k], a, b)
        tried.append(f"input {k} with axis {a} moved to {b}")
        try:
            got = cell.run_subcell(ms_name, moved)
        except Exception:  # still raises: not this layout
            continue
        if agree(call.output, got, tol):
            where = "last" if b == -1 else f"at axis {b}"
            cause = (f"MindSpore's {kind} takes input {k} with torch's axis {a} {where}: torch's '{torch_name}' "
                     f"({call.kind}) reads it at axis {a}; with that axis moved, the layer runs on torch's recorded "
                     f"input and agrees with torch ({len(tried)} candidates tried)")
            fix = (f"hand '{ms_name}' its input {k} as ops.moveaxis(x, {a}, {b}) (and move the result's axis back "
                   f"where it keeps one)")
            return SearchOutcome(cause, fix, True, tuple(tried), 0.0)
    for k, to in dtype_casts(inputs):  # MindSpore's int32 labels and indices, float32 values
        cast = list(inputs)
        cast[k] = inputs[k].astype(to)
        tried.append(f"input {k} as {to}")
        try:
            got = cell.run_subcell(ms_name, cast)
        except Exception:  # still raises: not this dtype
            continue
        if agree(call.output, got, tol):
            name = _input_name(module, torch_name, k)
            cause = (f"MindSpore's {kind} refuses its {name} as {inputs[k].dtype.name}, which torch's '{torch_name}' "
                     f"({call.kind}) takes: with that input as {to}, the layer runs on torch's recorded input and "
                     f"agrees with torch ({len(tried)} candidates tried)")
            return SearchOutcome(cause, f"hand '{ms_name}' its {name} as x.astype(mindspore.{to})", True,
                                 tuple(tried), 0.0)
    found = search_layer(module, cell, torch_name, ms_name, inputs, call.output, None, tol)
    if found.confirmed:
        return dataclasses.replace(found, tried=tuple(tried) + found.tried)
    return None


def _zeros_for(cell: MindSporeProbe, ms_name: str, inputs: Sequence[Any], call: Any, name: str, tol: TolFor
               ) -> Optional[SearchOutcome]:
    """The layer re-run with the argument it misses as zeros shaped like torch's output (where torch's layer
    starts from a zero state it was not handed), or None when that does not agree."""
    out = call.output[0] if isinstance(call.output, (tuple, list)) and call.output else call.output
    if not isinstance(out, np.ndarray) or out.dtype.kind != "f":
        return None
    try:
        got = cell.run_subcell(ms_name, list(inputs) + [np.zeros_like(out)])
    except Exception:  # zeros of that shape are not what it misses
        return None
    if not agree(call.output, got, tol):
        return None
    kind, shape = _kind(cell, ms_name), tuple(out.shape)
    cause = (f"MindSpore's {kind} requires its '{name}' argument, which torch's {call.kind} defaults to zeros when"
             f" it is not given: with '{name}' as zeros of shape {shape}, the layer runs on torch's recorded input and"
             f" agrees with torch")
    return SearchOutcome(cause, f"pass '{ms_name}' {name}=ops.zeros({shape}, mindspore.float32) where the port"
                                f" leaves it out (torch's default)", True, (f"'{name}' as zeros of shape {shape}",), 0.0)


_NARROWER = {"int64": ("int32",), "float64": ("float32",), "bool": ("int32", "float32"), "int32": ("float32",)}


def dtype_casts(inputs: Sequence[Any]) -> List[Tuple[int, str]]:
    """(input, dtype): each array input in the dtype MindSpore's kernels take where torch's differs (int64 labels
    as int32, float64 as float32, a bool mask as int32 or float32, int32 as float32)."""
    return [(k, to) for k, x in enumerate(inputs) if isinstance(x, np.ndarray)
            for to in _NARROWER.get(x.dtype.name, ())]


def _input_name(module: TorchProbe, torch_name: str, k: int) -> str:
    try:
        names = module.input_names(torch_name)
    except Exception:  # a forward without a readable signature
        names = ()
    return f"{names[k]} (input {k})" if k < len(names) else f"input {k}"


def _kind(cell: MindSporeProbe, ms_name: str) -> str:
    try:
        return cell.subcell_kind(ms_name)
    except KeyError:
        return "layer"
