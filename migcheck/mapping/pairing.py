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

from migcheck.runners.base import Side
from migcheck.util.closeness import close
from migcheck.mapping.transfer import WeightMapping, to_mindspore

Remap = Callable[[Mapping[str, str]], WeightMapping]
MAX_PERMUTED = 4  # groups up to this size try every assignment (4! = 24 runs); larger ones try two orders
MAX_RUNS = 48  # captures per case at most: resolution must stay cheap next to the checks themselves
MAX_SWAPS = 6  # same-signature partners tried per disagreeing pairing
RTOL, ATOL = 1e-2, 1e-3  # loose: a wrong assignment differs by O(1), float32 drift of a deep net does not


def resolve(mapping: WeightMapping, remap: Remap, torch_side: Side, ms_side: Side, inputs: Sequence[np.ndarray],
            dtypes: Sequence[str], weights: Mapping[str, np.ndarray]) -> WeightMapping:
    """The mapping with activation-settled pairings; remaining ambiguities say what was tried.

    Runs when there are ambiguities, or pairings of medium confidence (sequences that aligned only in
    part) to check: the earliest such layer whose output disagrees is swapped with each same-signature
    partner, and a swap is kept only when strictly more layer outputs agree.
    """
    medium = any(i.confidence == "medium" for i in mapping.inferred)
    if not mapping.ambiguities and not medium:
        return mapping
    runner = _Runner(remap, torch_side, ms_side, inputs, dtypes, weights)
    resolved: Dict[str, str] = {}
    notes: Dict[Tuple[str, ...], str] = {}
    try:
        patterns: List[Dict[str, str]] = []  # settled groups, by name suffix: repeated blocks settle in 2 runs
        for amb in mapping.ambiguities:
            candidates = _candidates(amb.torch_layers, amb.ms_layers)
            known = [c for c in (_by_pattern(amb.torch_layers, amb.ms_layers, p) for p in patterns) if c]
            if known and len(candidates) > 2:
                guess, order = known[0], dict(zip(amb.torch_layers, amb.ms_layers))
                tried = [guess] + ([order] if order != guess else [dict(zip(amb.torch_layers, amb.ms_layers[::-1]))])
                scores = [runner.score({**resolved, **cand})[0] for cand in tried]
                if scores[0] > max(scores[1:]):  # the pattern of an earlier settled block, and it agrees better
                    resolved.update(guess)
                    continue
            if runner.runs + len(candidates) > MAX_RUNS:
                notes[amb.torch_layers] = "activations were not tried (too many candidates for one run)"
                continue
            scores = [runner.score({**resolved, **cand})[0] for cand in candidates]
            best = max(scores)
            if scores.count(best) == 1:
                resolved.update(candidates[scores.index(best)])
                patterns.append(_pattern(candidates[scores.index(best)]))
            else:
                notes[amb.torch_layers] = (f"activations could not decide: {scores.count(best)} of {len(candidates)}"
                                           f" candidate assignments agree equally well ({best} layer output(s) match)")
        agreeing: set = set()
        if medium:
            resolved, agreeing = _repair(runner, resolved)
    finally:
        ms_side.load(runner.own)
    final = remap(resolved) if resolved else mapping
    ambiguities = tuple(dataclasses.replace(a, note=notes.get(a.torch_layers, a.note)) for a in final.ambiguities)
    inferred = tuple(dataclasses.replace(i, how=i.how + ", outputs agree", confidence="high")
                     if i.confidence == "medium" and (i.torch_layer, i.ms_layer) in agreeing else i for i in final.inferred)
    return dataclasses.replace(final, ambiguities=ambiguities, inferred=inferred)


class _Runner:
    """Both sides on the case's inputs: torch once, MindSpore once per candidate mapping."""

    def __init__(self, remap: Remap, torch_side: Side, ms_side: Side, inputs: Sequence[np.ndarray],
                 dtypes: Sequence[str], weights: Mapping[str, np.ndarray]):
        self.remap, self.ms_side, self.inputs, self.dtypes, self.weights = remap, ms_side, inputs, dtypes, weights
        self.own = ms_side.state()  # the port's own values, for what no torch parameter sets
        torch_side.load(weights)
        self.t_out = _outputs(torch_side.capture(inputs, dtypes))
        self.runs = 0

    def score(self, resolved: Mapping[str, str]) -> Tuple[int, WeightMapping, Dict[str, np.ndarray]]:
        trial = self.remap(resolved)
        self.ms_side.load({**self.own, **to_mindspore(self.weights, trial)})
        m_out = _outputs(self.ms_side.capture(self.inputs, self.dtypes))
        self.runs += 1
        return _score(self.t_out, m_out, _layer_pairs(trial)), trial, m_out


def _repair(runner: _Runner, resolved: Dict[str, str]) -> Tuple[Dict[str, str], set]:
    """Swap the earliest disagreeing medium-confidence pairing with a same-signature one while that helps.

    Returns the settled pairings and the (torch, MindSpore) layer pairs whose outputs agree in the end.
    """
    best, trial, m_out = runner.score(resolved)
    order = {name: k for k, name in enumerate(runner.t_out)}  # torch completion order

    def agreeing() -> set:
        return {(i.torch_layer, i.ms_layer) for i in trial.inferred if i.torch_layer in runner.t_out
                and i.ms_layer in m_out and close(runner.t_out[i.torch_layer], m_out[i.ms_layer], RTOL, ATOL)}

    while runner.runs < MAX_RUNS:
        agree = agreeing()
        suspects = sorted((i for i in trial.inferred if i.confidence == "medium" and i.torch_layer in runner.t_out
                           and i.ms_layer in m_out and (i.torch_layer, i.ms_layer) not in agree),
                          key=lambda i: order[i.torch_layer])
        if not suspects:
            return resolved, agree
        first = suspects[0]
        sig = _signature(trial, first.torch_layer)
        partners = [i for i in trial.inferred if i is not first and i.how != "activations"
                    and _signature(trial, i.torch_layer) == sig]
        # Moved blocks displace layers by a few places: try the nearest same-signature layers first.
        partners.sort(key=lambda i: abs(order.get(i.torch_layer, 1 << 30) - order[first.torch_layer]))
        improved = None
        for other in partners[:min(MAX_SWAPS, MAX_RUNS - runner.runs)]:
            swap = {**resolved, first.torch_layer: other.ms_layer, other.torch_layer: first.ms_layer}
            got = runner.score(swap)
            if got[0] > best:
                best, improved = got[0], (swap, got[1], got[2])
        if improved is None:
            return resolved, agreeing()
        resolved, trial, m_out = improved
    return resolved, agreeing()


def _signature(mapping: WeightMapping, torch_layer: str) -> tuple:
    return tuple(sorted((r.ms_name.rpartition(".")[2], r.ms_shape) for r in mapping.pairs
                        if r.torch_name.rpartition(".")[0] == torch_layer))


def _suffixes(paths: Sequence[str]) -> Tuple[str, List[str]]:
    """The common dotted prefix of some layer paths, and each path's rest."""
    parts = [p.split(".") for p in paths]
    n = 0
    while all(len(p) > n + 1 for p in parts) and len({p[n] for p in parts}) == 1:
        n += 1
    return ".".join(parts[0][:n]), [".".join(p[n:]) for p in parts]


def _pattern(assignment: Mapping[str, str]) -> Dict[str, str]:
    _, t_rest = _suffixes(list(assignment))
    _, m_rest = _suffixes(list(assignment.values()))
    return dict(zip(t_rest, m_rest))


def _by_pattern(torch_layers: Sequence[str], ms_layers: Sequence[str], pattern: Mapping[str, str]
                ) -> Optional[Dict[str, str]]:
    """The assignment an earlier settled group's name pattern gives this group, if its names fit it."""
    _, t_rest = _suffixes(torch_layers)
    m_prefix, m_rest = _suffixes(ms_layers)
    if sorted(t_rest) != sorted(pattern) or sorted(m_rest) != sorted(pattern.values()):
        return None
    by_rest = dict(zip(m_rest, ms_layers))
    return {t: by_rest[pattern[r]] for t, r in zip(torch_layers, t_rest)}


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
