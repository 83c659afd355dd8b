"""Where a dtype failure starts: the first paired sub-cell, else the first op of the network's own construct,
whose inputs have torch's dtypes and whose result has another dtype than torch's counterpart's (ops.hann_window
returns float64 where torch.hann_window returns float32; integer widths alone are a note, not a failure). For an
op, the call given torch's dtype (`dtype=`, where its function takes one), then its result cast to it, is re-run
through the construct; a change after which the output has torch's dtype and agrees is the confirmed cause and
its fix. No framework import: `module` and `cell` are the runners' objects."""
from __future__ import annotations

import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.op_align import OpDivergence, counterpart, same_value
from migcheck.localization.op_candidates import dtype_changes
from migcheck.localization.op_search import between_children
from migcheck.records.findings import Defect
from migcheck.runners.probes import MindSporeProbe, TorchProbe

RULE = "dtype-origin"


def _dtype(tree: Any) -> str:
    while isinstance(tree, (list, tuple)) and tree:
        tree = tree[0]
    return str(tree.dtype) if isinstance(tree, np.ndarray) else ""


def _dtypes(values: Sequence[Any]) -> Tuple[str, ...]:
    return tuple(_dtype(v) for v in values)


def dtype_origin(module: TorchProbe, cell: MindSporeProbe, t_calls: Sequence[Any], m_calls: Sequence[Any], flow: Any,
                 tol: Callable[[str], Tuple[float, float]]) -> Optional[Defect]:
    for i, call in enumerate(t_calls):  # a layer: said as measured, no fix searched
        pair = flow.pair_of(i)
        if not call.name or pair is None or len(pair.ms_indices) != 1:
            continue
        m = m_calls[pair.ms_indices[0]]
        t_out, m_out = _dtype(call.output), _dtype(m.output)
        if t_out and m_out and t_out != m_out and _dtypes(call.inputs) == _dtypes(m.inputs):
            cause = (f"MindSpore '{m.name}' ({m.kind}) returns {m_out} where torch's '{call.name}' ({call.kind}) returns"
                     f" {t_out}, from inputs of the same dtypes ({', '.join(_dtypes(call.inputs)) or 'none'})")
            return Defect(i, call.name, call.kind, m.name, m.kind, f"dtype origin: {cause}", cause, "", "medium",
                          False, RULE)  # measured at the layer; no re-run shows it is the whole story
    root = next((c for c in t_calls if c.name == ""), None)
    return _op_origin(module, cell, root, tol) if root is not None and root.inputs else None


def _op_origin(module: TorchProbe, cell: MindSporeProbe, root: Any, tol: Callable[[str], Tuple[float, float]]
               ) -> Optional[Defect]:
    started = time.monotonic()
    try:
        torch_ops = module.op_records("")
        traced, base = cell.trace_ops("", list(root.inputs))
    except Exception:  # nothing recorded: no op to name
        return None
    same = same_value(*tol("float32"))
    for r in [r for r in traced if r.index >= 0 and r.outputs]:
        t = counterpart(r, torch_ops, same)
        if t is None or not t.outputs or _dtype(t.outputs[0]) == _dtype(r.outputs[0]) or all(
                np.dtype(d).kind in "iu" for d in (_dtype(t.outputs[0]), _dtype(r.outputs[0]))):
            continue  # the same dtype, or integer widths only (a note, never the failure)
        if len(t.inputs) == len(r.inputs) and _dtypes(t.inputs) != _dtypes(r.inputs):
            continue  # its inputs already differ in dtype: it inherits the difference
        want, got_dtype = _dtype(t.outputs[0]), _dtype(r.outputs[0])
        short = r.name.rsplit(".", 1)[-1].rsplit(" ", 1)[-1]
        tried, fix = [], ""
        for change, shown in dtype_changes(r, want, short):
            tried.append(shown)
            try:
                _, out = cell.trace_ops("", list(root.inputs), change)
            except Exception:  # the function refuses that dtype
                continue
            if _dtype(out) == _dtype(root.output) and _agrees(out, root.output, same):
                fix = f"{shown} in place of {short}(...) (re-run: the network's output then has torch's dtype and agrees)"
                break
        cause = (f"op '{r.name}' returns {got_dtype} where torch's '{t.name}' returns {want}"
                 + (" from inputs of the same dtypes" if r.inputs else " (it makes a tensor from numbers alone)")
                 + f"; the calls: MindSpore {r.name}({', '.join(_shown(v) for v in r.positional)}), torch {t.name}"
                 + between_children(traced, OpDivergence(r, t, ()), "", {}))
        evidence = (f"dtype origin: the first op of the construct whose result's dtype differs from torch's"
                    f" counterpart's ({len(tried)} re-runs, {time.monotonic() - started:.2f}s)"
                    + between_children(traced, OpDivergence(r, t, ()), "", {}))
        return Defect(0, "", root.kind, "", root.kind, evidence, cause, fix, "high" if fix else "medium", bool(fix), RULE,
                      search_s=round(time.monotonic() - started, 3), search_tried=tuple(tried))
    return None


def _agrees(a: Any, b: Any, same: Any) -> bool:
    a, b = [np.asarray(x[0] if isinstance(x, (list, tuple)) else x) for x in (a, b)]
    return a.shape == b.shape and same(a.astype(np.float64), b.astype(np.float64))


def _shown(v: Any) -> str:
    return "x" if v == "<tensor>" else repr(v)


