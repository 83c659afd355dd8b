"""A parameter read in another layout than the one it was copied in, tried as the cause of a wrong layer.

Weights are copied by name; a square matrix copied as is into a layer that reads it transposed (GPT-2's Conv1D
keeps (in, out) and computes x @ W, MindSpore's Dense keeps (out, in) and computes x @ W.T) loads without a
shape error and gives wrong numbers. For the diverging layer, each parameter's axes of equal length are
swapped, one pair at a time, and the layer re-run on torch's recorded input with that parameter so laid out;
a swap that makes it agree with torch is the confirmed cause, with the transform that loads it right.
"""
from __future__ import annotations

import time
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import SearchOutcome, torch_bench
from migcheck.runners.probes import MindSporeProbe, TorchProbe

MAX_SWAPS = 8
TolFor = Callable[[str], Tuple[float, float]]


def swaps(shapes: Mapping[str, Tuple[int, ...]], limit: int = MAX_SWAPS) -> List[Tuple[str, Tuple[int, ...]]]:
    """(parameter, axes permutation) for each pair of its axes of equal length > 1: the layouts a copy by name
    cannot tell apart from its own. Matrices' last two axes first."""
    out: List[Tuple[str, Tuple[int, ...]]] = []
    for leaf, shape in shapes.items():
        n = len(shape)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if shape[i] == shape[j] and shape[i] > 1]
        pairs.sort(key=lambda p: -(p[0] + p[1]))  # the trailing (matrix) axes first
        for i, j in pairs:
            perm = list(range(n))
            perm[i], perm[j] = j, i
            out.append((leaf, tuple(perm)))
    return out[:limit]


def layout_search(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str,
                  inputs: Sequence[np.ndarray], torch_out: Any, tol_for: TolFor, before: SearchOutcome
                  ) -> Optional[SearchOutcome]:
    """The outcome when a swapped layout makes the layer agree (its candidates added to what `before` tried);
    None when none does."""
    started = time.monotonic()
    try:
        torch_kind, ms_kind = module.constructor(torch_name).kind, cell.constructor(ms_name).kind
    except (AttributeError, KeyError):
        return None
    matches_torch, second = torch_bench(module, torch_name, inputs, torch_out, tol_for)
    tried = list(before.tried)
    found = layout_cause(cell, ms_name, ms_kind, torch_name, torch_kind, inputs, matches_torch, tried, second.check_run)
    if found is None:
        return None
    seconds = round(before.seconds + time.monotonic() - started, 3)
    return SearchOutcome(found[0], found[1], True, tuple(tried), seconds)


def layout_cause(cell: MindSporeProbe, ms_name: str, ms_kind: str, torch_name: str, torch_kind: str,
                 inputs: Sequence[np.ndarray], matches_torch: Callable[[Any], bool], tried: List[str],
                 beyond: Callable[[Callable[[List[Any]], Any]], Any]) -> Optional[Tuple[str, str]]:
    """(cause, fix) when the layer agrees with torch with one parameter's axes swapped; None otherwise."""
    try:
        shapes = cell.parameter_shapes(ms_name)
        state = cell.state()
    except Exception:  # a cell whose parameters cannot be read: no layout to try
        return None
    prefix = f"{ms_name}." if ms_name else ""
    for leaf, perm in swaps(shapes):  # at most MAX_SWAPS
        value = state.get(prefix + leaf)
        if value is None:
            continue
        changed = {leaf: np.transpose(value, perm)}
        tried.append(f"'{prefix}{leaf}' with axes {_axes(perm)} swapped")
        try:
            got = cell.run_with_parameters(ms_name, changed, inputs)
        except Exception:  # the layer cannot run so: not the cause
            continue
        if not matches_torch(got):
            continue
        second = beyond(lambda arrays, c=changed: cell.run_with_parameters(ms_name, c, arrays))
        if not second.ok:
            tried[-1] += f" (rejected: {second.words})"
            continue
        source = f"{torch_name}.{leaf}" if torch_name else leaf
        cause = (f"'{prefix}{leaf}' is read by MindSpore's {ms_kind} in another layout than torch's {torch_kind} "
                 f"keeps it in: copied as is, its axes {_axes(perm)} are swapped (re-run on torch's recorded input "
                 f"with the parameter transposed {perm}, the layer agrees with torch; {second.words}; "
                 f"{len(tried)} candidates tried)")
        fix = (f"transpose '{source}' when copying it into '{prefix}{leaf}' (in a migcheck case: "
               f"weight_transforms={{'{source}': transpose{perm}}}), or compute as torch's {torch_kind} does")
        return cause, fix
    return None


def _axes(perm: Tuple[int, ...]) -> str:
    moved = [i for i, p in enumerate(perm) if p != i]
    return " and ".join(str(i) for i in moved)
