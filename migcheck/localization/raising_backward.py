"""A port whose forward runs and whose backward raises (a gradient with no kernel on this device): each op the
port's constructs called is differentiated alone on its recorded inputs, in order; the first whose backward
raises is the place, named after the torch op it pairs with (equal inputs and output). No framework import."""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.backward_ops import pair_ops
from migcheck.localization.loaded import loaded_torch
from migcheck.localization.defect_findings import findings_of
from migcheck.records.findings import Defect, Localization
from migcheck.runners.probes import MindSporeProbe

TolFor = Callable[[str], Tuple[float, float]]


def locate_backward_raise(case: Any, ref: Any, cell: MindSporeProbe, tolerance_for: Any, why: str = ""
                          ) -> Optional[Localization]:
    """The Localization naming the first op whose backward raises alone; None when every op differentiates
    (the error lies elsewhere: a loss, the optimizer) or the forward cannot be recorded. `why`: what the
    error verdict already said of the error (a missing kernel)."""
    from migcheck.localization.capture import _tol
    from migcheck.runners.torch_backward_ops import op_gradients

    tol = _tol(tolerance_for)
    n_net = len(ref.input_names) - len(case.targets)
    try:
        tape = cell.record_ops(ref.inputs[:n_net], ref.input_dtypes[:n_net])
    except Exception:  # a forward the recorder cannot follow
        return None
    try:
        module, _ = loaded_torch(case, ref)
        torch_ops = op_gradients(module, ref.inputs, ref.input_dtypes, ref.objective,
                                 case.loss.torch if case.loss else None)
    except Exception:  # torch's side is only for naming the place
        torch_ops = []
    counterpart = {m.index: t for t, m in pair_ops(torch_ops, tape.records, tol)}
    tried = []
    for r in tape.records:
        if not r.outputs or not any(x.dtype.kind == "f" for x in r.inputs):
            continue
        tried.append(r.text or r.name)
        try:
            tape.vjp(r.index, [x for x in r.inputs if x.dtype.kind == "f"], np.ones_like(r.outputs[0]))
        except Exception as exc:  # the place: its backward raises on its own
            return _localization(r, counterpart.get(r.index), exc, why, tuple(tried))
    return None


def _localization(r: Any, t: Any, exc: BaseException, why: str, tried: Sequence[str]) -> Localization:
    place = f"after '{t.after}' output in '{t.owner or '<root>'}'" if t is not None and t.after else \
        f"in '{r.owner or '<root>'}'"
    lines = [ln.strip() for ln in str(exc).splitlines() if any(c.isalnum() for c in ln)]  # not a rule of dashes
    message = lines[0][:200] if lines else "(no message)"
    torch_side = f"; torch's {t.text} differentiates on the same inputs" if t is not None else ""
    cause = (f"the op {place}: MindSpore's {r.text or r.name} raises in its backward when differentiated alone on its"
             f" recorded inputs ({type(exc).__name__}: {message}){torch_side}" + (f"; {why}" if why else ""))
    evidence = (f"the forward runs; each of the port's {len(tried)} op calls differentiated alone, in order: the"
                f" first whose backward raises is {r.text or r.name}")
    torch_name = t.owner if t is not None else r.owner
    defect = Defect(0, torch_name, "", r.owner, "", evidence, cause, "", "high", True, "backward-raise",
                    search_tried=tuple(tried))
    summary = f"raised in backward: {cause}"
    return Localization((), torch_name, r.owner, tuple(findings_of([defect])), summary, (defect,), "")
