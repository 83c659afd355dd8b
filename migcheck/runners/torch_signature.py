"""A torch layer's settings as its own constructor names them: the parameters of type(layer).__init__ whose
value the layer keeps under the same attribute name (plain values only)."""
from __future__ import annotations

import inspect
from typing import Any, Dict, Tuple

from migcheck.runners.hooks import plain_config


def constructor_settings(side: Any, name: str) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(setting -> the layer's value, setting -> the constructor's default where it has one)."""
    layer = side.module.get_submodule(name) if name else side.module
    try:
        params = inspect.signature(type(layer).__init__).parameters
    except (TypeError, ValueError):  # a constructor without a readable signature: no settings to try
        return {}, {}
    kept = plain_config(layer)
    names = [p for p in params if p not in ("self", "args", "kwargs") and p in kept]
    return ({n: kept[n] for n in names},
            {n: params[n].default for n in names if params[n].default is not inspect.Parameter.empty})
