"""torch's functional pad before a layer, folded by the port into that layer's own padding: torch's layer is fed
`F.pad(x, (0, 2))` while the port's counterpart is fed x and pads it itself (pad_mode='same': centred). Measured
where the dataflow shows it: a pad call of torch's container returns what torch's layer is fed, and its input is
what the port's layer is fed. The port's layer is rebuilt with torch's pad amounts as its padding (in MindSpore's
order: the first spatial axis first, before and after) and run on its own input, or, where the layer refuses that
(a Conv1d takes one int for both sides), left unpadded and fed the input padded as torch pads it; agreement with
torch's layer output confirms the cause and the fix.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

from migcheck.localization.confirm import agree, agree_all
from migcheck.localization.op_candidates import base_name
from migcheck.records.findings import Defect, SubcellRow
from migcheck.runners.probes import MindSporeProbe, TorchProbe

RULE = "pad-folded"


def ms_padding(torch_pad: Sequence[int], spatial: int) -> Tuple[int, ...]:
    """torch's pad tuple (last axis first: left, right, top, bottom) as MindSpore's layer padding (first spatial
    axis first: top, bottom, left, right), for `spatial` axes; () where the tuple covers other axes."""
    if len(torch_pad) != 2 * spatial:
        return ()
    pairs = [tuple(torch_pad[i:i + 2]) for i in range(0, len(torch_pad), 2)]
    return tuple(v for pair in reversed(pairs) for v in pair)


def _amounts(r: Any) -> Tuple[int, ...]:
    if dict(r.keywords).get("mode", "constant") != "constant" or dict(r.keywords).get("value") not in (None, 0, 0.0):
        return ()
    given = [v for v in list(r.positional) + [v for k, v in r.keywords if k == "pad"] if isinstance(v, (tuple, list))]
    pad = given[0] if given else ()
    return tuple(pad) if all(isinstance(v, int) and not isinstance(v, bool) for v in pad) else ()


def pad_folded(module: TorchProbe, cell: MindSporeProbe, first: SubcellRow, rows: Sequence[SubcellRow],
               t_calls: Sequence[Any], m_calls: Sequence[Any], tol: Callable[[str], Tuple[float, float]]
               ) -> Optional[Defect]:
    """The Defect at torch's layer whose pad the port's layer folds in, where torch's amounts as its padding agree."""
    try:
        pads = [r for r in module.op_records(first.torch_name) if base_name(r.name) == "pad" and r.inputs and r.outputs]
    except Exception:  # no torch calls recorded for the container
        return None
    for p in pads:
        amounts = _amounts(p)
        for row in rows:
            t_call = t_calls[row.order]
            m_call = next((c for c in m_calls if c.name == row.ms_name), None) if row.ms_kind else None
            if m_call is None or not t_call.inputs or not m_call.inputs or not amounts:
                continue
            if not agree(t_call.inputs[0], p.outputs[0], tol) or not agree(m_call.inputs[0], p.inputs[0], tol):
                continue
            found = _rerun(cell, row, t_call, m_call, amounts, tol)
            if found is not None:
                return found
    return None


def _rerun(cell: MindSporeProbe, row: SubcellRow, t_call: Any, m_call: Any, amounts: Tuple[int, ...],
           tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    try:
        c = cell.constructor(row.ms_name)
    except (AttributeError, KeyError):
        return None
    names = {a.name for a in c.arguments}
    padding = ms_padding(amounts, m_call.inputs[0].ndim - 2)
    if "padding" not in names or not padding:
        return None
    held = {a.name: a.value for a in c.arguments if a.found}
    pad_mode = {"pad_mode": "pad"} if "pad_mode" in names else {}
    unpadded = {"padding": 0, **({"pad_mode": "valid"} if pad_mode else {})}
    # torch's amounts as the layer's own padding; else (a Conv1d takes one int for both sides) the layer left
    # unpadded and fed the input padded as torch pads it
    for change, fed, how in (({"padding": padding, **pad_mode}, m_call.inputs[0], "run on its own input"),
                             (unpadded, t_call.inputs[0], f"fed its input padded by ops.pad(x, {tuple(amounts)!r})")):
        try:
            got = cell.rerun_arguments(row.ms_name, {**held, **change}, [fed])
        except Exception:  # the layer refuses that padding: the next form
            continue
        if agree_all(t_call.output, got, tol):
            return _defect(row, change, held, how, amounts)
    return None


def _defect(row: SubcellRow, change: dict, held: dict, how: str, amounts: Tuple[int, ...]) -> Defect:
    shown = ", ".join(f"{k}={v!r}" for k, v in change.items())
    was = ", ".join(f"{k}={held[k]!r}" for k in change if k in held) or "its own padding"
    torch_call = f"F.pad(x, {tuple(amounts)!r})"
    cause = (f"torch pads the input of its {row.torch_kind} '{row.torch_name}' with {torch_call} first; the port's"
             f" {row.ms_kind} '{row.ms_name}' is fed the unpadded input and pads it itself ({was}): rebuilt with"
             f" {shown} and {how}, it agrees with torch's {row.torch_kind}")
    fix = (f"{row.ms_kind}(..., {shown})" if "ops.pad" not in how else
           f"{row.ms_kind}(..., {shown}) fed ops.pad(x, {tuple(amounts)!r}): pad as torch does, then convolve")
    evidence = (f"torch's {torch_call} returns what torch's '{row.torch_name}' is fed, and its input is what the"
                f" port's '{row.ms_name}' is fed")
    return Defect(row.order, row.torch_name, row.torch_kind, row.ms_name, row.ms_kind, evidence, cause, fix, "high",
                  True, RULE, search_tried=(shown,))
