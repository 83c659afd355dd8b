"""The order in which layers run in one forward pass: structure that does not depend on values agreeing.

A port may register its shortcut before its body, or its sub-modules in another order than the original,
yet it calls them in the order the computation needs. Each side runs once with a hook on every layer
(the localization's capture); a layer's rank is where its first call completes. The leftover layers are
then aligned in that order instead of registration order, and a run of same-signature layers that read
different inputs (one after the other, or on splits of a tensor) pairs by its position in the calls (medium
confidence: activations check it, migcheck.mapping.pairing). Layers that read one input stay an ambiguity
for activations to settle. Weights
need not be loaded and outputs need not agree, so a defective port still maps fully. Framework-free.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from migcheck.runners.base import Side
from migcheck.mapping.structure import Inference, Layer, LayerPair


@dataclass(frozen=True)
class CallOrder:
    """Module path -> rank of its first completed call, per side; and which layers read the same input."""

    torch: Mapping[str, int]
    ms: Mapping[str, int]
    torch_input: Mapping[str, int] = field(default_factory=dict)  # path -> fingerprint of its first input
    ms_input: Mapping[str, int] = field(default_factory=dict)
    torch_feeder: Mapping[str, str] = field(default_factory=dict)  # path -> the layer whose output is its input
    ms_feeder: Mapping[str, str] = field(default_factory=dict)

    def parallel(self, torch_paths: Sequence[str], ms_paths: Sequence[str]) -> bool:
        """Same-signature layers of which two read one input (q/k/v, left(x) + right(x)): the order they are
        called in is the port's choice, not structure, so it cannot pair them."""
        return _shared(self.torch_input, torch_paths) or _shared(self.ms_input, ms_paths)


def _shared(inputs: Mapping[str, int], paths: Sequence[str]) -> bool:
    """Two of them read one input (or one was never called with a tensor): call order is no evidence."""
    seen = [inputs.get(p) for p in paths]
    return None in seen or len(set(seen)) < len(seen)


def ranks(names: Sequence[str]) -> Dict[str, int]:
    """Completion order of the first call of each name."""
    out: Dict[str, int] = {}
    for name in names:
        out.setdefault(name, len(out))
    return out


def _fingerprints(calls: Sequence[Any]) -> Dict[str, int]:
    """Path -> a hash of its first call's first tensor input (within one side, one tensor hashes alike)."""
    out: Dict[str, int] = {}
    for c in calls:
        if c.name not in out and c.inputs:
            first = np.ascontiguousarray(c.inputs[0])
            out[c.name] = hash((first.shape, str(first.dtype), first.tobytes()))
    return out


def _hash(array: Any) -> Optional[int]:
    if not isinstance(array, np.ndarray):
        return None
    array = np.ascontiguousarray(array)
    return hash((array.shape, str(array.dtype), array.tobytes()))


def _feeders(calls: Sequence[Any]) -> Dict[str, str]:
    """Path -> the innermost earlier call whose output is exactly this call's first input (a conv feeding its norm)."""
    made: Dict[int, str] = {}
    out: Dict[str, str] = {}
    for c in calls:  # completion order: a feeder completes before its consumer starts
        fed = _hash(c.inputs[0]) if c.inputs else None
        if c.name not in out and fed in made and made[fed] != c.name:
            out[c.name] = made[fed]
        produced = _hash(c.output)
        if produced is not None:  # the innermost producer: a container returning its last child's output is not one
            made.setdefault(produced, c.name)
    return out


def observe(torch_side: Side, ms_side: Side, inputs: Sequence[np.ndarray], dtypes: Sequence[str]) -> CallOrder:
    """One forward pass per side with hooks (outputs are not compared, only which layer ran when, on what)."""
    t_calls, m_calls = torch_side.capture(inputs, dtypes), ms_side.capture(inputs, dtypes)
    return CallOrder(ranks([c.name for c in t_calls]), ranks([c.name for c in m_calls]),
                     _fingerprints(t_calls), _fingerprints(m_calls), _feeders(t_calls), _feeders(m_calls))


def by_feeders(pairs: List[LayerPair], order: CallOrder) -> List[LayerPair]:
    """Medium pairings made consistent with the dataflow: a torch layer fed by layer A (or feeding layer B) pairs
    with the MindSpore layer of its signature fed by A's partner (or feeding B's partner). A body's norm and a
    shortcut's norm share a signature, and a body's 1x1 conv may share one with the shortcut's; what feeds
    them, or what they feed, does not. Repeated while it changes something; a swap needs both sides to fit."""
    pairs = list(pairs)
    for _ in range(len(pairs)):
        partner = {t.path: m.path for t, m, _ in pairs}
        sure = {t.path for t, _, i in pairs if i.confidence == "high"}
        moved = False
        for k, (t, m, inference) in enumerate(pairs):
            if inference.confidence != "medium" or _fits(t.path, m.path, partner, sure, order)[0] is not False:
                continue
            rivals = [j for j, (t2, m2, _) in enumerate(pairs) if j != k
                      and m2.signature(True) == m.signature(True) and t2.signature(True) == t.signature(True)
                      and _fits(t.path, m2.path, partner, sure, order)[0]
                      and _fits(t2.path, m.path, partner, sure, order)[0] is not False]
            if len(rivals) != 1:
                continue
            j = rivals[0]
            t2, m2, other = pairs[j]
            how = "dataflow: its neighbours' partners"
            first, second = _fits(t.path, m2.path, partner, sure, order), _fits(t2.path, m.path, partner, sure, order)
            pairs[k] = (t, m2, Inference(t.path, m2.path, how, "high" if first[1] else "medium"))
            pairs[j] = (t2, m, Inference(t2.path, m.path, how if second[0] else other.how,
                                         "high" if second[0] and second[1] else "medium"))
            moved = True
            break  # partners changed: recompute before the next swap
        if not moved:
            break
    return pairs


def _fits(t_path: str, m_path: str, partner: Mapping[str, str], sure: set, order: CallOrder) -> tuple:
    """(None: no dataflow evidence, True: the feeder and consumers pair up, False: they do not; whether every
    neighbouring pairing used is of high confidence). Parameterless layers between (an activation) are skipped."""
    paired_ms = set(partner.values())
    checks, used = [], []
    feeder = _upstream(order.torch_feeder, t_path, partner)
    if feeder is not None:
        checks.append(_upstream(order.ms_feeder, m_path, paired_ms) == partner[feeder])
        used.append(feeder)
    consumers = [c for c in partner if _upstream(order.torch_feeder, c, partner) == t_path]
    if consumers:
        checks.append(any(_upstream(order.ms_feeder, partner[c], paired_ms) == m_path for c in consumers))
        used += consumers
    if not checks:
        return None, False
    return all(checks), all(u in sure for u in used)


def _upstream(feeders: Mapping[str, str], path: str, paired: Any) -> Optional[str]:
    """The nearest paired layer upstream of path, through parameterless ones; None when the chain leaves them."""
    seen = {path}
    current = feeders.get(path)
    while current is not None and current not in seen:
        owner = next((a for a in _ancestors(current) if a in paired), None)  # timm's BatchNormAct2d.act -> the norm
        if owner is not None:
            return owner
        seen.add(current)
        current = feeders.get(current)
    return None


def _ancestors(path: str) -> List[str]:
    parts = path.split(".")
    return [".".join(parts[:k]) for k in range(len(parts), 0, -1)]


def ordered(layers: Sequence[Layer], rank: Mapping[str, int]) -> List[Layer]:
    """The layers in call order; one never called stays right after its registration predecessor."""
    keys = []
    last = -1.0
    for k, layer in enumerate(layers):
        if layer.path in rank:
            last = float(rank[layer.path])
            keys.append((last, 0, k))
        else:
            keys.append((last, 1, k))
    return [layers[k] for _, _, k in sorted(keys)]
