"""A torch module the port computes with ops in a parent's construct, with no cell of its own (nn.Upsample
written as ops.interpolate, nn.Hardsigmoid as an op call): the first divergence is that module, unpaired. The
op-level search (op_search.py) runs in the nearest paired container on torch's recorded inputs, with the
module's own calls counted as the container's, so the port's op meets the module's op by equal inputs and its
arguments are searched against torch's call. No framework import."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from migcheck.records.findings import Defect, SubcellRow
from migcheck.runners.probes import MindSporeProbe, TorchProbe


def paired_container(row: SubcellRow, rows: Sequence[SubcellRow]) -> Optional[SubcellRow]:
    """The nearest enclosing torch module paired with one MindSpore cell, the call of it that contains `row`'s
    (calls are recorded in completion order: a container completes after its children)."""
    name = row.torch_name
    while name:
        name = name.rpartition(".")[0]
        owner = next((r for r in rows if r.torch_name == name and r.order > row.order and r.ms_kind
                      and "+" not in r.ms_name), None)
        if owner is not None:
            return owner
    return None


def search_unpaired(module: TorchProbe, cell: MindSporeProbe, row: SubcellRow, rows: Sequence[SubcellRow],
                    t_calls: Sequence[Any], m_calls: Sequence[Any], tol: Callable[[str], Tuple[float, float]]
                    ) -> Optional[Defect]:
    """A Defect at the unpaired torch module when the search in its container changed an op to agreement
    (high), else when one cell of the port's container, paired with nothing, is fed the module's very inputs
    and is wrong on them (the layer search runs on it), else when the search placed the first diverging op
    (medium); None when it found none of these."""
    from migcheck.localization.op_search import search_ops

    owner = paired_container(row, rows)
    if owner is None:
        return None
    call = t_calls[owner.order]
    if not call.inputs:
        return None
    inside = [c for c in t_calls if owner.torch_name == "" or c.name.startswith(owner.torch_name + ".")]
    values = [v for c in inside for v in list(c.inputs) + [c.output] if isinstance(v, np.ndarray)]
    try:
        module.keep_ops_of((row.torch_name,))  # torch.nn's layers' own calls are not kept by the first capture
    except Exception:  # torch's forward cannot be re-run with them kept: the module's calls stay unknown
        pass
    found = search_ops(module, cell, owner.torch_name, owner.ms_name, call.inputs, call.output, values, tol,
                       inline=(row.torch_name,))
    if found is None or not found.confirmed:
        fed = _fed_the_same(row, t_calls, m_calls, rows, owner, tol)
        if fed is not None:  # a cell of the port's that no weight or name ties to torch's module
            return _layer_defect(module, cell, row, fed, t_calls, tol)
        folded = _folding(row, t_calls, m_calls, rows, tol)
        if folded is not None:  # the port's next layer takes the module's input: it folds the module in
            return _folded_defect(module, cell, row, folded, t_calls, tol)
    if found is None or not (found.confirmed or found.located):
        return None
    container = owner.ms_name or "<root>"
    evidence = (f"torch's '{row.torch_name}' ({row.torch_kind}) has no MindSpore sub-cell: the port computes it in"
                f" '{container}''s construct; op-level search there on torch's recorded inputs, {len(found.tried)}"
                f" candidates in {found.seconds:.2f} s: {found.cause if found.confirmed else found.located}")
    confirmed = found.confirmed and not found.workaround
    return Defect(row.order, row.torch_name, row.torch_kind, owner.ms_name, owner.ms_kind, evidence,
                  found.cause, found.fix if found.confirmed else "", "high" if confirmed else "medium",
                  found.confirmed, found.rule, search_s=found.seconds, search_tried=found.tried)


def _fed_the_same(row: SubcellRow, t_calls: Sequence[Any], m_calls: Sequence[Any], rows: Sequence[SubcellRow],
                  owner: SubcellRow, tol: Callable[[str], Tuple[float, float]]) -> Optional[Any]:
    """The one MindSpore call inside the container, paired with no torch call, whose inputs are the torch
    module's inputs and whose output has its shape; None when there is none or more than one."""
    from migcheck.localization.confirm import agree, first_array

    t_call = t_calls[row.order]
    if first_array(t_call.output) is None:
        return None
    paired = {n for r in rows for n in r.ms_name.split(" + ") if r.ms_kind}
    prefix = f"{owner.ms_name}." if owner.ms_name else ""
    shape = np.shape(first_array(t_call.output))
    found = [c for c in m_calls if c.name.startswith(prefix) and c.name not in paired and c.name != owner.ms_name
             and len(c.inputs) == len(t_call.inputs) and np.shape(first_array(c.output)) == shape
             and all(agree(a, b, tol) for a, b in zip(t_call.inputs, c.inputs))]
    return found[0] if len({c.name for c in found}) == 1 else None


def _layer_defect(module: TorchProbe, cell: MindSporeProbe, row: SubcellRow, m_call: Any, t_calls: Sequence[Any],
                  tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    """The layer search (cell_search.py) on the port's cell fed torch's module's inputs; a Defect only when a
    change made it agree with torch (the pairing is by equal inputs alone, so nothing less is said)."""
    from migcheck.localization.cell_search import search_layer

    t_call = t_calls[row.order]
    try:
        ms_out = cell.run_subcell(m_call.name, list(t_call.inputs))
    except Exception:  # the port's cell refuses torch's inputs: not this pairing
        return None
    found = search_layer(module, cell, row.torch_name, m_call.name, list(t_call.inputs), t_call.output, ms_out, tol)
    if not found.confirmed or found.workaround:
        return None
    evidence = (f"torch's '{row.torch_name}' ({row.torch_kind}) is paired with MindSpore '{m_call.name}' ({m_call.kind})"
                f" by equal inputs alone (no weight or name ties them); fed torch's recorded inputs it differs;"
                f" argument search: {len(found.tried)} candidates in {found.seconds:.2f} s")
    return Defect(row.order, row.torch_name, row.torch_kind, m_call.name, m_call.kind, evidence, found.cause,
                  found.fix, "high", True, found.rule, search_s=found.seconds, search_tried=found.tried)



def _folding(row: SubcellRow, t_calls: Sequence[Any], m_calls: Sequence[Any], rows: Sequence[SubcellRow],
             tol: Callable[[str, str], Tuple[float, float]]) -> Optional[SubcellRow]:
    """The paired torch layer right after the unpaired module, fed its output, whose MindSpore counterpart is
    fed the module's *input* (a convolution that folds torch's ZeroPad2d into its own padding); None otherwise."""
    from migcheck.localization.confirm import agree, first_array

    t_call = t_calls[row.order]
    out = first_array(t_call.output)
    for r in rows:
        if r.order <= row.order or not r.ms_kind or not r.ms_name or "+" in r.ms_name:
            continue
        nxt = t_calls[r.order]
        if not nxt.inputs or not agree(nxt.inputs[0], out, tol):
            continue
        m_call = next((c for c in m_calls if c.name == r.ms_name), None)
        if m_call is not None and len(m_call.inputs) == len(t_call.inputs) and all(
                agree(a, b, tol) for a, b in zip(t_call.inputs, m_call.inputs)):
            return r
        return None
    return None


def _folded_defect(module: TorchProbe, cell: MindSporeProbe, row: SubcellRow, layer: SubcellRow, t_calls: Sequence[Any],
                   tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    """The layer search on the port's layer, fed the unpaired module's input, against the torch layer's output
    (the composite of the two): a Defect at the torch layer only when a change made it agree."""
    from migcheck.localization.cell_search import search_layer

    inputs = list(t_calls[row.order].inputs)
    target = t_calls[layer.order].output
    try:
        ms_out = cell.run_subcell(layer.ms_name, inputs)
    except Exception:  # the port's layer refuses torch's module's input
        return None
    found = search_layer(module, cell, layer.torch_name, layer.ms_name, inputs, target, ms_out, tol)
    if not found.confirmed or found.workaround:
        return None
    evidence = (f"torch's '{row.torch_name}' ({row.torch_kind}) has no MindSpore sub-cell: the port's '{layer.ms_name}'"
                f" ({layer.ms_kind}) is fed its input, folding it into its own call; searched on that input against"
                f" torch's '{layer.torch_name}' output (the two together): {len(found.tried)} candidates in"
                f" {found.seconds:.2f} s")
    return Defect(layer.order, layer.torch_name, layer.torch_kind, layer.ms_name, layer.ms_kind, evidence,
                  f"the port's '{layer.ms_name}' folds torch's {row.torch_kind} '{row.torch_name}' in: {found.cause}",
                  found.fix, "high", True, found.rule, search_s=found.seconds, search_tried=found.tried)
