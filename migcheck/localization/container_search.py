"""The op-level search in the container whose own construct diverges, on torch's recorded inputs: the first
divergence's container, else, where it agrees on torch's inputs (an input its parent built differs: a mask), each
container around it in turn (op_search.py does the search)."""
from __future__ import annotations

from dataclasses import replace

from typing import Any, Callable, Sequence, Tuple

import numpy as np

from migcheck.localization.locate import SubcellRow
from migcheck.runners.probes import MindSporeProbe, TorchProbe


def search_container(module: TorchProbe, cell: MindSporeProbe, first: SubcellRow, t_calls: Sequence[Any],
                     tol: Callable[[str], Tuple[float, float]]) -> Any:
    """The op-level search (op_search.py) in the container whose own construct diverges, on torch's inputs."""
    from migcheck.localization.op_search import search_ops

    torch_name, ms_name, order = first.torch_name, first.ms_name, first.order
    while "+" not in ms_name:
        call = t_calls[order]
        if not call.inputs:
            return None
        inside = [c for c in t_calls if torch_name == "" or c.name.startswith(torch_name + ".")]
        values = [v for c in inside for v in list(c.inputs) + [c.output] if isinstance(v, np.ndarray)]
        found = search_ops(module, cell, torch_name, ms_name, call.inputs, call.output, values, tol)
        if found is not None and not found.confirmed:  # a library child torch writes as a functional call
            from migcheck.localization.child_settings import child_settings

            child = child_settings(cell, ms_name, list(call.inputs), call.output, tol)
            if child is not None:
                return replace(child, tried=found.tried + child.tried)
        if found is not None or torch_name == "" or ms_name == "":
            return found
        # the container agrees on torch's inputs: an input it was given differs (a mask its parent built)
        torch_name, ms_name = torch_name.rpartition(".")[0], ms_name.rpartition(".")[0]
        order = next((i for i, c in enumerate(t_calls) if c.name == torch_name), None)
        if order is None:
            return None
    return None
