"""One torch tensor as a numpy copy, however torch holds it: on any device, bfloat16 (numpy has none: float32), or
a lazy conjugate or negation view (torch.conj's result cannot go to numpy until it is resolved)."""
from __future__ import annotations

import numpy as np
import torch


def as_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu()
    if t.is_conj() or t.is_neg():  # only then: a recording mode sees these calls too
        t = t.resolve_conj().resolve_neg()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()
