"""A torch layer's settings as its own constructor names them: the parameters of type(layer).__init__ whose
value the layer keeps under the same attribute name (plain values only)."""
from __future__ import annotations

import inspect
from typing import Any, Dict

from migcheck.localization.rules import plain_config


def constructor_settings(side: Any, name: str) -> Dict[str, Any]:
    layer = side.module.get_submodule(name) if name else side.module
    try:
        names = [p for p in inspect.signature(type(layer).__init__).parameters if p not in ("self", "args", "kwargs")]
    except (TypeError, ValueError):  # a constructor without a readable signature: no settings to try
        return {}
    kept = plain_config(layer)
    return {n: kept[n] for n in names if n in kept}
