"""Settle ambiguous layer pairings with activations: the candidate whose layer outputs agree wins.

Same-signature layers (fc1/fc2 of one size, q/k/v projections) can be told apart by nothing static
once a port renames them and changes their registration order. With the case's inputs and weights,
each candidate assignment is loaded into the MindSpore side (everything else as mapped, unset
parameters at the port's own values) and both sides run once with hooks on every layer, as the
localization's dataflow pairing does (same captures, same closeness test). A candidate scores one
point per paired layer whose output equals its torch partner's (plus the network output); a
strictly best candidate wins. A tie (the layers are interchangeable, or nothing agrees) stays an
ambiguity, with what was tried said in its message. Framework-free: sides are migcheck.runners.base.Side.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.dataflow import close
from migcheck.running.mapping import WeightMapping, to_mindspore

Remap = Callable[[Mapping[str, str]], WeightMapping]
MAX_PERMUTED = 4  # groups up to this size try every assignment (4! = 24 runs); larger ones try two orders
MAX_RUNS = 48  # captures per item at most: resolution must stay cheap next to the check itself
RTOL, ATOL = 1e-2, 1e-3  # loose: a wrong assignment differs by O(1), float32 drift of a deep net does not


def resolve(mapping: WeightMapping, remap: Remap, torch_side: Any, ms_side: Any, inputs: Sequence[np.ndarray],
            dtypes: Sequence[str], weights: Mapping[str, np.ndarray]) -> WeightMapping:
    """The mapping with activation-settled pairings; remaining ambiguities say what was tried."""
    if not mapping.ambiguities:
        return mapping
    own = ms_side.state()  # the port's own values, for what no torch parameter sets
    torch_side.load(weights)
    t_out = _outputs(torch_side.capture(inputs, dtypes))
    resolved: Dict[str, str] = {}
    notes: Dict[Tuple[str, ...], str] = {}
    runs = 0
    try:
        for amb in mapping.ambiguities:
            candidates = _candidates(amb.torch_layers, amb.ms_layers)
            if runs + len(candidates) > MAX_RUNS:
                notes[amb.torch_layers] = "activations were not tried (too many candidates for one run)"
                continue
            scores = []
            for cand in candidates:
                trial = remap({**resolved, **cand})
                ms_side.load({**own, **to_mindspore(weights, trial)})
                scores.append(_score(t_out, _outputs(ms_side.capture(inputs, dtypes)), _layer_pairs(trial)))
                runs += 1
            best = max(scores)
            if scores.count(best) == 1:
                resolved.update(candidates[scores.index(best)])
            else:
                notes[amb.torch_layers] = (f"activations could not decide: {scores.count(best)} of {len(candidates)}"
                                           f" candidate assignments agree equally well ({best} layer output(s) match)")
    finally:
        ms_side.load(own)
    final = remap(resolved) if resolved else mapping
    ambiguities = tuple(dataclasses.replace(a, note=notes.get(a.torch_layers, a.note)) for a in final.ambiguities)
    return dataclasses.replace(final, ambiguities=ambiguities)


def _candidates(torch_layers: Sequence[str], ms_layers: Sequence[str]) -> List[Dict[str, str]]:
    if len(ms_layers) <= MAX_PERMUTED:
        orders = itertools.permutations(ms_layers)
    else:  # registration order and its reverse: the common ways a port reorders a run
        orders = iter([tuple(ms_layers), tuple(reversed(ms_layers))])
    return [dict(zip(torch_layers, order)) for order in orders]


def _outputs(calls: Sequence[Any]) -> Dict[str, np.ndarray]:
    """Each layer's first output (its first floating-point leaf), keyed by its path ("" is the network)."""
    out: Dict[str, np.ndarray] = {}
    for call in calls:
        if call.name not in out:
            leaf = _first_float(call.output)
            if leaf is not None:
                out[call.name] = leaf
    return out


def _first_float(tree: Any) -> Optional[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return tree if tree.dtype.kind == "f" else None
    if isinstance(tree, (list, tuple)):
        for v in tree:
            found = _first_float(v)
            if found is not None:
                return found
    if isinstance(tree, dict):
        return _first_float(list(tree.values()))
    return None


def _layer_pairs(mapping: WeightMapping) -> Dict[str, str]:
    out = {"": ""}
    for row in mapping.pairs:
        out.setdefault(row.torch_name.rpartition(".")[0], row.ms_name.rpartition(".")[0])
    return out


def _score(t_out: Mapping[str, np.ndarray], m_out: Mapping[str, np.ndarray], pairs: Mapping[str, str]) -> int:
    return sum(1 for t, m in pairs.items()
               if t in t_out and m in m_out and close(t_out[t], m_out[m], RTOL, ATOL))
