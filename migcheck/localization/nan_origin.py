"""Where a non-finite gradient arises when no op pairs with torch's: torch may compute a region in one fused call
(F.pairwise_distance) that the port writes as several (a subtraction, then ops.norm), so no single MindSpore op
has a torch counterpart fed the same values. Each of the port's recorded ops is re-run alone backward on its own
recorded finite inputs with a finite output gradient; the first whose input gradient comes back NaN or inf is
where the port's backward breaks (ops.norm at a zero vector), and the children whose outputs its inputs were
computed from place it. A measured location, said with the input values it happens at; no fix is made up."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.op_align import computed_from
from migcheck.records.findings import Defect


def nan_origin(records: Sequence[Any], vjp: Any, m_calls: Sequence[Any], t_kinds: dict, ms_kinds: dict,
               torch_ops: Sequence[Any] = ()) -> Optional[Defect]:
    """The Defect at the first op whose backward alone turns finite values into a non-finite gradient, or None."""
    runs: List[str] = []
    for r in records:
        if not r.inputs or not r.outputs or r.outputs[0].dtype.kind != "f":
            continue
        if not all(np.isfinite(x).all() for x in r.inputs) or not np.isfinite(r.outputs[0]).all():
            continue
        runs.append(f"backward of {r.name} alone")
        try:
            _, grads = vjp(r.index, list(r.inputs), np.ones_like(r.outputs[0]))
        except Exception:  # an op that cannot be re-run alone backward
            continue
        for k, g in enumerate(grads):
            if g is None or k >= len(r.inputs):
                continue
            bad = ~np.isfinite(np.asarray(g))
            if np.shape(g) != r.inputs[k].shape or not bad.any():
                continue
            return _defect(r, k, np.asarray(g), bad, records, m_calls, t_kinds, ms_kinds, runs, torch_ops)
    return None


def _defect(r: Any, k: int, g: np.ndarray, bad: np.ndarray, records: Sequence[Any], m_calls: Sequence[Any],
            t_kinds: dict, ms_kinds: dict, runs: List[str], torch_ops: Sequence[Any] = ()) -> Defect:
    x = r.inputs[k]
    kinds = "/".join(sorted({"NaN" if np.isnan(v) else "inf" for v in g[bad].tolist()}))
    where = ""
    if r.outputs[0].shape != x.shape and x.ndim >= 1:  # a reduction: the rows it reduces
        rows = np.unique(np.argwhere(bad)[:, 0]).tolist()
        zero = all(not np.any(x[i]) for i in rows)
        where = f" for input rows {rows[:6]}" + (" (each all zeros: a zero vector)" if zero else "")
    elif np.all(x[bad] == x[bad].flat[0]):
        where = f" where its input is {float(x[bad].flat[0]):.4g}"
    fed = _fed_by(r, records, m_calls)
    takes = ("; it takes values computed from " + " and ".join(f"'{c}' output" for c in fed)) if fed else ""
    short = r.name.rsplit(".", 1)[-1]
    cause = (f"MindSpore's {short} gradient is {kinds}{where}: re-run alone backward on its own finite inputs with a"
             f" finite output gradient, it returns {kinds} for {int(bad.sum())} of {bad.size} elements of its input {k};"
             f" torch's gradient there is finite (torch computes this region in calls no single MindSpore op pairs"
             f" with{_torch_call(r, torch_ops)}){takes}")
    owner = r.owner
    evidence = (f"non-finite gradient origin: the first of the port's recorded ops whose backward alone gives a"
                f" non-finite input gradient ({len(runs)} single-op re-runs){takes}")
    return Defect(0, owner, t_kinds.get(owner, "?"), owner, ms_kinds.get(owner, "?"), evidence, cause, "", "high", True,
                  "nonfinite-gradient", search_tried=tuple(runs))


def _fed_by(r: Any, records: Sequence[Any], m_calls: Sequence[Any]) -> List[str]:
    """The sub-cells whose outputs the op's inputs were computed from, by equal values back through earlier ops."""
    frontier, found = computed_from(r.inputs, [e for e in records if e.index < r.index])[0], []
    for c in m_calls:
        out = c.output if isinstance(c.output, np.ndarray) else None
        if c.name and out is not None and any(out.shape == x.shape and np.array_equal(out, x) for x in frontier):
            found.append(c.name)
    return list(dict.fromkeys(found))


def _torch_call(r: Any, torch_ops: Sequence[Any]) -> str:
    """': F.pairwise_distance(eps=1e-06, ...)': torch's call whose result equals the op's, with its arguments."""
    same = [t for t in torch_ops if getattr(t, "output", None) is not None and np.shape(t.output) == r.outputs[0].shape
            and np.allclose(t.output, r.outputs[0], rtol=1e-4, atol=1e-5)]  # near: torch may add its eps
    return f": {same[-1].text}" if same else ""
