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
from typing import Any, Dict, List, Mapping, Sequence

import numpy as np

from migcheck.mapping.structure import Layer


@dataclass(frozen=True)
class CallOrder:
    """Module path -> rank of its first completed call, per side; and which layers read the same input."""

    torch: Mapping[str, int]
    ms: Mapping[str, int]
    torch_input: Mapping[str, int] = field(default_factory=dict)  # path -> fingerprint of its first input
    ms_input: Mapping[str, int] = field(default_factory=dict)

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


def observe(torch_side: Any, ms_side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str]) -> CallOrder:
    """One forward pass per side with hooks (outputs are not compared, only which layer ran when, on what)."""
    t_calls, m_calls = torch_side.capture(inputs, dtypes), ms_side.capture(inputs, dtypes)
    return CallOrder(ranks([c.name for c in t_calls]), ranks([c.name for c in m_calls]),
                     _fingerprints(t_calls), _fingerprints(m_calls))


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
