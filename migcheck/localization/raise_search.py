"""An error blamed downstream, traced to the call that went wrong: when MindSpore raises in a later layer (a
Dense fed a tensor of another shape or dtype), the op-level search (op_search.py) runs in the construct that
made the raising call and then in each construct around it, on torch's recorded inputs. There the first op
whose inputs agree with torch's values and which raised, or returned results of another shape or kind than
torch's paired op (multi-result ops paired result by result, in order), is changed one way at a time: torch's
arguments, another mindspore.ops function named like torch's op, its results in the other order. A change
after which the construct runs and agrees with torch is the confirmed cause; its fix is printed as code.

No framework import: `module` and `cell` are the runners' objects.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_search import SearchOutcome
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


@dataclass(frozen=True)
class RaiseSearch:
    torch_name: str  # the construct searched ("" is the network)
    ms_name: str
    outcome: SearchOutcome


def enclosing(ms_owner: str) -> List[str]:
    """The cell that made the raising call, then each cell around it up to the network ('')."""
    out = [ms_owner]
    while out[-1]:
        out.append(out[-1].rpartition(".")[0])
    return out


def search_raise(module: TorchProbe, cell: MindSporeProbe, t_calls: Sequence[Any], ms_owner: str,
                 torch_owner_of: Callable[[str], Optional[str]], tol: TolFor,
                 torch_names: Mapping[str, str] = {}, library: Callable[[str], bool] = lambda name: False
                 ) -> Optional[RaiseSearch]:
    """The first construct, from the raising call's cell outwards, where an op is located (confirmed or not);
    None when no construct has an op to blame. t_calls: torch's capture with ops (module.capture_with_ops);
    library: whether a cell is the framework's own (mindspore.nn's construct is no call the port wrote)."""
    from migcheck.localization.op_search import search_ops

    located: Optional[RaiseSearch] = None
    for ms_name in enclosing(ms_owner):
        if _library(library, ms_name):
            continue
        torch_name = "" if ms_name == "" else torch_owner_of(ms_name)
        call = next((c for c in t_calls if c.name == torch_name), None)
        if torch_name is None or call is None or not call.inputs:
            continue
        inside = [c for c in t_calls if torch_name == "" or c.name.startswith(torch_name + ".")]
        values = [v for c in inside for v in list(c.inputs) + [c.output] if isinstance(v, np.ndarray)]
        found = search_ops(module, cell, torch_name, ms_name, call.inputs, call.output, values, tol,
                           torch_names=torch_names)
        if found is None:  # this construct runs and agrees on torch's inputs: the fault is further out
            continue
        if found.confirmed:
            return RaiseSearch(torch_name, ms_name, found)
        if found.cause and located is None and "torch made no counterpart call" not in found.cause:
            # an op located beside torch's paired call (an op torch never made is no evidence of a wrong call)
            located = RaiseSearch(torch_name, ms_name, found)
    return located


def _library(library: Callable[[str], bool], ms_name: str) -> bool:
    try:
        return library(ms_name)
    except Exception:  # no constructor to read: searched as the port's own
        return False
