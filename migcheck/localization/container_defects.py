"""Independent defects in containers' own construct: every container whose output differs, run alone on
torch's recorded inputs, is searched at op level (op_search.py) when none of its children is wrong on its
own. Only a confirmed change makes a defect (a second attention block scaled by another constant).

The first divergence is explained by capture.py; this finds the defects after it, which the isolated pass
of leaf sub-cells cannot see (their inputs already differ, and the fault is in the container's own ops).
"""
from __future__ import annotations

from typing import Any, Callable, Collection, List, Sequence, Tuple

import numpy as np

from migcheck.localization.dataflow import descendants
from migcheck.localization.locate import Defect, SubcellRow
from migcheck.runners.probes import MindSporeProbe, TorchProbe

MAX_CONTAINERS = 8  # containers searched per item (each costs one traced forward, more if it diverges)


def container_defects(module: TorchProbe, cell: MindSporeProbe, rows: Sequence[SubcellRow], t_calls: Sequence[Any],
                      tol: Callable[[str], Tuple[float, float]], searched: Collection[str]) -> List[Defect]:
    from migcheck.localization.op_search import search_ops

    names = [c.name for c in t_calls]
    by_name = {r.torch_name: r for r in rows}
    out: List[Defect] = []
    tried = 0
    for row in rows:
        call = t_calls[row.order]
        inner = descendants(names, call.name)
        if (row.outputs_ok is not False or row.torch_name in searched or not row.ms_name or "+" in row.ms_name
                or not inner or not call.inputs or tried >= MAX_CONTAINERS):
            continue
        if any(by_name.get(names[i]) is not None and by_name[names[i]].isolated_ok is False for i in inner):
            continue  # a child wrong on its own explains it
        tried += 1
        values = [v for i in inner for v in list(t_calls[i].inputs) + [t_calls[i].output] if isinstance(v, np.ndarray)]
        found = search_ops(module, cell, call.name, row.ms_name, call.inputs, call.output, values, tol,
                           torch_names={r.ms_name: r.torch_name for r in rows if r.ms_name})
        if found is None or not found.confirmed:
            continue
        evidence = (f"fed torch's recorded inputs, MindSpore '{row.ms_name}' still differs (its own construct, every "
                    f"sub-cell agreeing); {found.cause}")
        out.append(Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, evidence, found.cause,
                          found.fix, "high", True, found.rule, found.seconds, found.tried))
    return out
