"""A segment or scatter reduction that fills empty segments otherwise than torch (pure): MindSpore's
unsorted_segment_prod gives 1 (and segment max/min the extreme values) at a row no index names, where torch's
scatter_reduce leaves its initial value. Measured on the two recorded outputs (op_elements.unselected_rows): where
they differ exactly at the rows no integer index input names, and torch's value there is one number, those rows
set to it is the candidate (OpChange.empty_fill, applied in runners/mindspore_change.py), confirmed only by a
re-run of the construct that then agrees.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_elements import unselected_rows
from migcheck.records.ops import OpChange, OpRecord


def empty_candidates(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    if div.torch is None or not div.ms.outputs or not div.torch.outputs:
        return []
    said = unselected_rows(div.ms.inputs, div.ms.outputs[0], div.torch.outputs[0], 1.3e-6, 1e-5)
    if not said:
        return []
    named = {int(v) for x in div.ms.inputs if x.dtype.kind in "iu" for v in x.reshape(-1)}
    rows = [r for r in range(div.torch.outputs[0].shape[0]) if r not in named]
    values = np.unique(np.asarray(div.torch.outputs[0])[rows])
    if values.size != 1:
        return []
    value = float(values[0])
    return [(OpChange(div.ms.index, empty_fill=value),
             f"its rows for empty segments (no index names them) set to {value:g}, as torch's '{div.torch.name}'"
             f" leaves them")]


def empty_fix(r: OpRecord, change: OpChange) -> str:
    """The confirmed convention as code after the port's call."""
    name = r.name.rsplit(".", 1)[-1]
    return (f"y = {name}(...); y = ops.where(ops.reshape(counts == 0, (-1,) + (1,) * (y.ndim - 1)),"
            f" {change.empty_fill:g}, y) with counts = ops.bincount(ids, minlength=y.shape[0]): the port's {name}"
            f" fills empty segments with another value than torch's {change.empty_fill:g}")
