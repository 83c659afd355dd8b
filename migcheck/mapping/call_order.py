"""The order in which layers run in one forward pass: structure that does not depend on values agreeing.

A port may register its shortcut before its body, or its sub-modules in another order than the original,
yet it calls them in the order the computation needs. Each side runs once with a hook on every layer
(the localization's capture); a layer's rank is where its first call completes. The leftover layers are
then aligned in that order instead of registration order, and a run of same-signature layers pairs by
its position in the calls (medium confidence: activations check it, migcheck.mapping.pairing). Weights
need not be loaded and outputs need not agree, so a defective port still maps fully. Framework-free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Sequence

import numpy as np

from migcheck.mapping.structure import Layer


@dataclass(frozen=True)
class CallOrder:
    """Module path -> rank of its first completed call, per side."""

    torch: Mapping[str, int]
    ms: Mapping[str, int]


def ranks(names: Sequence[str]) -> Dict[str, int]:
    """Completion order of the first call of each name."""
    out: Dict[str, int] = {}
    for name in names:
        out.setdefault(name, len(out))
    return out


def observe(torch_side: Any, ms_side: Any, inputs: Sequence[np.ndarray], dtypes: Sequence[str]) -> CallOrder:
    """One forward pass per side with hooks (the values are not looked at)."""
    return CallOrder(ranks([c.name for c in torch_side.capture(inputs, dtypes)]),
                     ranks([c.name for c in ms_side.capture(inputs, dtypes)]))


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
