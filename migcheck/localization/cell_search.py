"""The search on one layer wrong on its own: first its constructor's arguments (arg_search.py); then, for a layer
of the port's own class (a hand-written attention or upsampling cell) that no argument explains, the op-level
search inside its construct (op_search.py): its ops traced on torch's recorded inputs, aligned with torch's
values, and the first diverging op's call changed until the layer agrees with torch; last, a parameter copied
by name but read in another layout (layout_search.py).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import SearchOutcome, search
from migcheck.localization.child_settings import child_settings
from migcheck.localization.layout_search import layout_search
from migcheck.localization.loaded import is_library
from migcheck.localization.nan_made import nan_kept, nan_made
from migcheck.localization.op_precision import layer_less_accurate
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


def search_layer(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[np.ndarray],
                 torch_out: Any, ms_out: Any, tol_for: TolFor, train: bool = False) -> SearchOutcome:
    from migcheck.localization.op_search import search_ops

    own = not is_library(cell, ms_name, unreadable=True)  # unreadable: not searched inside
    # a port's own class: its settings, then the ops inside it, and only then other classes in its place (a fix to
    # the port's own code before replacing its class: a LayerNorm primitive's axis, not nn.LayerNorm instead)
    outcome = search(module, cell, torch_name, ms_name, inputs, torch_out, ms_out, tol_for, train=train, classes=not own)
    if outcome.confirmed:
        return outcome
    if own:
        values = [v for v in list(inputs) + [torch_out] if isinstance(v, np.ndarray)]
        try:  # torch's layer may be torch.nn's own (nn.LayerNorm): its calls are kept on demand, as counterparts
            module.keep_ops_of((torch_name,))
        except Exception:  # no re-run possible: the port's ops are searched without torch's calls
            pass
        found = search_ops(module, cell, torch_name, ms_name, inputs, torch_out, values, tol_for)
        if found is not None and found.confirmed:
            return replace(found, tried=outcome.tried + found.tried, seconds=round(outcome.seconds + found.seconds, 3))
        child = child_settings(cell, ms_name, inputs, torch_out, tol_for)  # a library child torch writes out
        if child is not None:
            return replace(child, tried=outcome.tried + child.tried)
        classed = search(module, cell, torch_name, ms_name, inputs, torch_out, ms_out, tol_for, train=train,
                         only_classes=True)
        # a wrapper of the port's own that holds a layer of the very class found is not replaced by it: that
        # inner layer's own settings are the fix, diagnosed where it is paired (a label-casting loss wrapper)
        if classed.confirmed and not _holds(cell, ms_name, classed.replacement):
            return replace(classed, tried=outcome.tried + classed.tried, seconds=round(outcome.seconds + classed.seconds, 3))
        # an op located but not confirmed: the replay of torch's calls (capture.py) may still confirm a cause;
        # else the located op is said, at medium
        outcome = replace(outcome, located=found.located if found is not None else "",
                          tried=outcome.tried + (found.tried if found is not None else ()) + classed.tried)
    if train:  # the layout is tried on the layer as it runs in eval mode
        return outcome
    laid = layout_search(module, cell, torch_name, ms_name, inputs, torch_out, tol_for, outcome)
    if laid is not None:
        return laid
    try:
        kind = cell.subcell_kind(ms_name)
    except KeyError:
        return outcome
    precision = layer_less_accurate(module, torch_name, kind, list(inputs), torch_out, ms_out)
    if precision:  # measured against torch's layer re-run in float64: the cause, with no fix to show
        return replace(outcome, cause=precision, fix="", confirmed=True, rule="kernel-precision")
    made = nan_made(cell, torch_name, ms_name, kind, list(inputs), torch_out, ms_out, tol_for) or \
        nan_kept(cell, torch_name, ms_name, kind, list(inputs), torch_out, tol_for)
    if made is not None:  # NaN from finite inputs, kept finite by an epsilon at the op that makes it
        return replace(made, tried=outcome.tried + made.tried, seconds=round(outcome.seconds + made.seconds, 3))
    return outcome




def _holds(cell: MindSporeProbe, ms_name: str, kind: str) -> bool:
    """Whether the cell at ms_name has a sub-cell of class `kind` inside it."""
    if not kind:
        return False
    prefix = f"{ms_name}." if ms_name else ""
    try:
        kinds = cell.subcell_kinds()
    except Exception:  # a side that cannot list its cells: nothing is known to be inside
        return False
    return any(k == kind and name.startswith(prefix) and name != ms_name for name, k in kinds.items())
