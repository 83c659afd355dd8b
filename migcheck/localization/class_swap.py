"""A layer ported as another class (ReLU6 as ReLU, Sigmoid as HSigmoid), found and confirmed by re-runs.

When the two classes do not correspond, no setting can explain the difference. The correspondence table
says which MindSpore class *is* torch's, and which torch class the port's class computes. Both are
re-run on torch's recorded input: the torch class that the port's class corresponds to, built with its
defaults, must reproduce MindSpore's output (the cause, confirmed), and MindSpore's counterpart of
torch's class, built with torch's settings, must reproduce torch's output (the fix, checked). Classes
with parameters (on either side) are left alone: a fresh layer would not carry the port's weights.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from migcheck.knowledge.lookup import CLASS_SWAP_ID, counterparts, corresponds, ported_from
from migcheck.knowledge.table import CONVERT, Correspondence
from migcheck.localization.correspondence import Difference
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
Agree = Callable[[Any, Any, TolFor], bool]


def class_swap(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[np.ndarray],
               torch_out: Any, ms_out: Any, tol_for: TolFor, agree: Agree) -> Optional[Tuple[Difference, bool, str, str]]:
    """(difference, confirmed, checked fix or "", "torch" when confirmed) or None when the classes correspond."""
    t_kind, t_cfg = module.config(torch_name)
    m_kind, _ = cell.config(ms_name)
    if t_kind == m_kind or corresponds(t_kind, m_kind) or module.has_parameters(torch_name):
        return None
    # A port's layer with weights is no swap for a parameterless one: dataflow pairs timm's BatchNormAct2d.drop
    # (an Identity right after the norm) with the port's BatchNorm2d, which is the norm itself.
    if getattr(cell, "has_parameters", None) and cell.has_parameters(ms_name):
        return None
    counterpart = next(iter(counterparts(t_kind)), None)
    if counterpart is None or not ported_from(m_kind):  # a port's own class is not a swap
        return None
    computes = ""
    for entry in (c for c in ported_from(m_kind) if c.torch != t_kind):
        try:
            got = module.run_class(entry.torch, {}, inputs)
        except Exception:  # not a torch.nn class, or one that needs arguments
            continue
        if agree(got, ms_out, tol_for):
            computes = entry.torch
            break
    kwargs = _arguments(counterpart, t_cfg)
    fix = ""
    try:
        if agree(cell.run_class(counterpart.ms, kwargs, inputs), torch_out, tol_for):
            shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            fix = f"use mindspore.nn.{counterpart.ms}({shown})"
    except Exception:  # not a mindspore.nn class: the fix stays unchecked
        pass
    cause = (f"torch's {t_kind} was ported as MindSpore's {m_kind}"
             + (f", which computes torch's {computes} (re-run on the recorded input)" if computes else "")
             + f"; MindSpore's counterpart of {t_kind} is nn.{counterpart.ms}")
    diff = Difference(CLASS_SWAP_ID, "class", "class", t_kind, m_kind, computes or m_kind, counterpart.ms, cause)
    return diff, bool(computes), fix, "torch" if computes else ""


def _arguments(entry: Correspondence, t_cfg: Any) -> dict:
    """torch's settings as the MindSpore counterpart's constructor arguments (its own conventions)."""
    out = {}
    for attr in entry.attrs:
        if attr.torch in t_cfg:
            to_ms = CONVERT[attr.fix][1] if attr.fix else CONVERT[attr.convert][1]
            out[attr.ms] = to_ms(t_cfg[attr.torch])
    return out
