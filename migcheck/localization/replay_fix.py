"""A setting the torch-side replay confirmed (op_replay.py), tried on the port's layer that computes that op.

The replay shows torch's own call with MindSpore's value reproduces MindSpore's output; it re-runs nothing on
the MindSpore side, so it checks no fix. A port often computes torch's functional call with a mindspore.nn
cell (F.smooth_l1_loss(beta=0.5) as nn.SmoothL1Loss()): the container's direct child whose class is named like
the op and takes an argument named like the setting is rebuilt with torch's value and the container re-run on
torch's recorded inputs; agreement with torch is the checked fix.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_candidates import similarity
from migcheck.localization.confirm import agree
from migcheck.localization.op_replay import TENSOR, ReplayMatch
from migcheck.runners.base import TensorValue
from migcheck.runners.probes import MindSporeProbe

TolFor = Callable[[str], Tuple[float, float]]


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def replay_fix(cell: MindSporeProbe, ms_name: str, inputs: Sequence[Any], torch_out: Any, match: ReplayMatch,
               tol: TolFor) -> str:
    """The checked fix as code, or '' when no child of the port's container re-runs to torch's output."""
    if match.dropped:  # a call the port lacks: no setting of the port's to give it
        return ""
    value = match.torch_value
    if value == TENSOR and match.torch_array is not None and np.size(match.torch_array) <= 1024:
        array = np.asarray(match.torch_array)  # a loss's class weight, handed over as such (float32 as written)
        value = TensorValue((np.vectorize(lambda v: float(f"{v:.7g}"))(array) if array.dtype.kind == "f"
                             else array).tolist())
    elif value == TENSOR or isinstance(value, (list, tuple, dict)):
        return ""
    try:
        children = cell.child_constructors(ms_name)
    except Exception:  # a container whose children cannot be read: no fix
        return ""
    for attr, c in children:
        if similarity(_norm(c.kind), _norm(match.site.name)) < 0.8:
            continue
        arg = next((a.name for a in c.arguments if similarity(a.name, match.keyword) >= 0.8), None)
        if arg is None:
            continue
        try:
            got = cell.run_with_child(ms_name, attr, {arg: value}, list(inputs))
        except Exception:  # the layer refuses torch's value: no fix this way
            continue
        if agree(torch_out, got, tol):
            return (f"nn.{c.kind}(..., {arg}={value!r}) for '{attr}' (re-run: the port's '{ms_name or '<root>'}' with it"
                    f" agrees with torch)")
    return ""
