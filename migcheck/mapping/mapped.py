"""The weight mapping of one item: built, settled by activations where needed, and said in the verdict.

A structure problem does not stop the comparison: whatever maps is transferred, the rest keeps the
port's own values, and the verdict says both what is structurally wrong and what the comparison of
everything else found.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.runners.base import Side
from migcheck.mapping.call_order import observe
from migcheck.mapping.families import subclass_note
from migcheck.mapping.transfer import WeightMapping, map_weights

SHOWN = 8  # inferred pairings listed in a verdict note; `migcheck map` lists them all


def build_mapping(case: Any, torch_params: Sequence[Any], cell: Side, torch_side: Optional[Callable[[], Side]] = None,
                  inputs: Sequence[np.ndarray] = (), dtypes: Sequence[str] = (),
                  weights: Optional[dict] = None) -> WeightMapping:
    """Map the case's weights; with a torch side and inputs, settle ambiguous pairings (and check those of
    medium confidence) by activations."""
    ms_params = cell.params()
    order: List[Any] = [None]  # the call order, once observed

    def remap(resolved: Any) -> WeightMapping:
        return map_weights(torch_params, ms_params, case.weight_map, case.weight_transforms or {},
                           constant=tuple(getattr(case, "constant_params", ()) or ()), resolved=resolved,
                           order=order[0])

    mapping = remap({})
    own = cell.state()
    key = (id(case), tuple(p.name for p in torch_params), tuple(p.name for p in ms_params))  # the case, not its name
    if torch_side is None or weights is None:  # no forward pass asked for: the static mapping
        return mapping.with_port_values(own)
    unsure = bool(mapping.ambiguities) or any(i.confidence == "medium" for i in mapping.inferred)
    if unsure and key in _SETTLED:  # settled once per process for every check and mode
        mapping = _SETTLED[key]
    elif unsure:
        from migcheck.mapping.pairing import resolve

        try:
            order[0] = observe(torch_side(), cell, inputs, dtypes)
            mapping = remap({})
        except Exception:  # a forward that fails here fails in the check itself, said there; keep registration order
            order[0] = None
        try:
            mapping = resolve(mapping, remap, torch_side(), cell, inputs, dtypes, weights)
        except Exception as exc:  # activations only settle ambiguities; failing to run them leaves them reported
            note = f"activations could not be compared ({type(exc).__name__}: {exc})"
            mapping = _with_notes(mapping, {a.torch_layers: note for a in mapping.ambiguities})
            cell.load(own)
        else:
            _SETTLED[key] = mapping
            _KEPT.append(case)  # alive, so that its id is never reused for another case
    return mapping.with_port_values(own)


_SETTLED: Dict[tuple, WeightMapping] = {}
_KEPT: list = []


def _with_notes(mapping: WeightMapping, notes: Dict[tuple, str]) -> WeightMapping:
    return dataclasses.replace(mapping, ambiguities=tuple(dataclasses.replace(a, note=notes.get(a.torch_layers, a.note))
                                                          for a in mapping.ambiguities))


def mapping_notes(mapping: WeightMapping, failing: bool) -> Tuple[str, ...]:
    """Warnings always; which pairings were inferred, and which parameters kept the port's values, when it matters."""
    notes: List[str] = list(mapping.warnings)
    notes += [n for n in (subclass_note(mapping.torch_params, "torch"), subclass_note(mapping.ms_params, "MindSpore")) if n]
    constant = [m.name for m in mapping.constant]
    left = [n for n in mapping.left_at_port_values() if n not in constant]
    if left:
        notes.append(f"compared with MindSpore {_names(left)} left at the port's own values (no torch parameter"
                     f" sets them)")
    if constant:
        notes.append(f"MindSpore {_names(constant)} constant by design (constant_params): the port's own values")
    if failing and mapping.inferred:
        shown = "; ".join(i.describe() for i in mapping.inferred[:SHOWN])
        more = (f" (+{len(mapping.inferred) - SHOWN} more; `migcheck map CASE` lists them)"
                if len(mapping.inferred) > SHOWN else "")
        notes.append(f"weight pairings inferred without a name or rule ({len(mapping.inferred)} layer(s)): {shown}{more}")
    return tuple(notes)


def _names(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" (+{len(names) - limit} more)" if len(names) > limit else "")
