"""The frameworks' process-wide state one case can change for every case after it (torch's default dtype, grad
mode and thread count, its random state; MindSpore's context mode): read before an item, compared after it and
put back. Only a framework already imported is read; none is imported for it."""
from __future__ import annotations

import sys
from typing import Any, Dict, List

# What a fresh process has: the baseline for a framework first imported during the item.
_FRESH = {"torch default dtype": "torch.float32", "torch grad mode": True}
_RANDOM = "torch random state"  # any model build draws from it: put back without a warning


def read() -> Dict[str, Any]:
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "get_default_dtype"):  # absent, or still importing
        return {}
    return {"torch default dtype": str(torch.get_default_dtype()), "torch grad mode": torch.is_grad_enabled(),
            "torch threads": torch.get_num_threads(), _RANDOM: torch.get_rng_state()}


def restore(before: Dict[str, Any]) -> List[str]:
    """Put back what changed since before; each warning-worthy change as 'what: was -> now'."""
    changes = []
    torch = sys.modules.get("torch")
    for key, now in read().items():
        was = before.get(key, _FRESH.get(key))
        if key == _RANDOM:
            if was is not None:
                torch.set_rng_state(was)
            continue
        if was is None or now == was:
            continue
        changes.append(f"{key} {was} -> {now}")
        if key == "torch default dtype":
            torch.set_default_dtype(getattr(torch, was.split(".", 1)[1]))
        elif key == "torch grad mode":
            torch.set_grad_enabled(was)
        elif key == "torch threads":
            torch.set_num_threads(was)
    context = sys.modules.get("migcheck.runners.mindspore_context")
    if context is not None:
        changes += context.context_changes()
    return changes
