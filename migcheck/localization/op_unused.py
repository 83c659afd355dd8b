"""A Tensor method whose result the port never reads (pure): torch's in-place `x.fill_diagonal_(v)` ported as
MindSpore's out-of-place `x.fill_diagonal(v)` with its result dropped, so the port goes on with `x` unchanged.
Where the method's result has its tensor's shape, differs from it, and no later op of the construct is fed it, the
candidate writes the result back into the tensor (OpChange.write_back); only a re-run of the construct that then
agrees with torch confirms it (op_search.py)."""
from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence
from migcheck.records.ops import OpChange, OpRecord


def _fed(out: np.ndarray, later: Sequence[OpRecord]) -> bool:
    return any(x.shape == out.shape and np.array_equal(x, out, equal_nan=True) for r in later for x in r.inputs)


def unused_results(div: OpDivergence, ms_ops: Sequence[OpRecord]) -> List[Tuple[OpChange, str]]:
    r = div.ms
    if not r.name.startswith("Tensor.") or r.name.endswith("_") or r.name.startswith("Tensor.__") \
            or not r.inputs or not r.outputs or r.outputs[0].shape != r.inputs[0].shape:
        return []
    if np.array_equal(r.outputs[0], r.inputs[0], equal_nan=True) or _fed(r.outputs[0], [o for o in ms_ops
                                                                                       if o.index > r.index]):
        return []
    method = r.name[len("Tensor."):]
    return [(OpChange(r.index, write_back=True),
             f"'{r.name}' result written back into its tensor (the port drops the result of x.{method}(...), which"
             f" returns a new tensor, and goes on with x unchanged; torch's {method}_ works in place)")]
