"""An op that treats NaN otherwise than torch's, measured where its recorded inputs hold NaN (pure).

torch's clamp, relu, maximum, amax and max propagate NaN, and its argmax and topk rank NaN above every number;
MindSpore's kernels often return a number there (the bound, 0, the other operand, the largest real value). Where
a diverging op's float inputs hold NaN, three changes are tried, each re-run through the construct like any other
candidate (OpChange.nan_rule, applied in runners/mindspore_change.py): NaN kept in the result wherever an input
it is computed from is NaN ("propagate"), and NaN ranked as the largest or the smallest value ("largest",
"smallest": handed over as +-inf, and such results handed back as NaN).
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.records.ops import OpChange, OpRecord

_WORDS = {
    "propagate": "NaN kept in its result wherever an input it is computed from is NaN",
    "largest": "NaN ranked above every number (handed over as +inf, and such results handed back as NaN)",
    "smallest": "NaN ranked below every number (handed over as -inf, and such results handed back as NaN)",
}


def nan_candidates(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """The NaN conventions to try at an op whose float inputs hold NaN (none where they hold none)."""
    if not any(x.dtype.kind == "f" and np.isnan(x).any() for x in div.ms.inputs):
        return []
    torch_side = f"torch's '{div.torch.name}'" if div.torch is not None else "torch"
    return [(OpChange(div.ms.index, nan_rule=rule),
             f"{_WORDS[rule]} (the port's '{div.ms.name}' is fed NaN, and {torch_side} treats NaN so)")
            for rule in ("propagate", "largest", "smallest")]


def nan_fix(r: OpRecord, change: OpChange) -> str:
    """The confirmed convention as code around the port's call."""
    name = r.name.rsplit(".", 1)[-1]
    if change.nan_rule == "propagate":
        return (f"keep NaN as torch's {name} does: y = {name}(x, ...); y = ops.where(ops.isnan(x), x, y) (for a"
                f" reduction: ops.where(ops.isnan(x).any(axis), float('nan'), y)): the port's {name} returns a"
                f" number where its input is NaN")
    sign = "" if change.nan_rule == "largest" else "-"
    return (f"rank NaN as torch's {name} does: {name}(ops.where(ops.isnan(x), float('{sign}inf'), x), ...), values"
            f" that come back as {sign or '+'}inf handed back as NaN: the port's {name} ranks NaN otherwise")
