"""A gradient-only difference from a path the port's gradient takes and torch's does not: a missing stop_gradient
(a straight-through estimator ported without torch's `.detach()`), or an op fed NaN that returns a number where
torch's returns NaN (a later nan_to_num hides it from the output, not from the gradient). Every forward value
agrees, each op's own backward agrees, and yet a container's input gradient differs.

For each container whose backward differs (torch's recorded output gradient in, torch's input gradient out), the
port's construct is traced and each float tensor argument of each of its calls is handed over through
ops.stop_gradient in turn; the container's gradients are re-run (mindspore.vjp) with that one change. The first
change with which the output still agrees and every input gradient agrees with torch's is the confirmed cause,
and the fix is that call with the argument wrapped. Budgeted; what was tried is kept on the defect.
"""
from __future__ import annotations

import time
from typing import Any, List, Sequence, Tuple

import numpy as np

from migcheck.localization.dataflow import close, descendants
from migcheck.localization.loaded import is_library
from migcheck.localization.locate import Defect
from migcheck.records.ops import OpChange
from migcheck.runners.probes import MindSporeProbe, TorchProbe

CHILD = "cell:"  # the op tracer's marker of a child cell called by the construct (runners/mindspore_ops.py)

MAX_CANDIDATES = 32
MAX_SECONDS = 20.0
RULE = "missing-stop-gradient"
NAN_RULE = "nan-gradient-path"
EPS_RULE = "eps-gradient-path"


def _grads_agree(torch_grads: Sequence[Any], ms_grads: Sequence[Any], tol: Any) -> bool:
    pairs = [(t, np.asarray(m)) for t, m in zip(torch_grads, ms_grads) if t is not None and t.dtype.kind in "fc"]
    return bool(pairs) and all(t.shape == m.shape and close(t, m, *tol(str(t.dtype))) for t, m in pairs)


def detach_defects(module: TorchProbe, cell: MindSporeProbe, ref: Any, loss: Any, t_calls: Sequence[Any],
                   m_calls: Sequence[Any], flow: Any, tol: Any) -> List[Defect]:
    """Defects for containers whose gradients agree once one argument is detached; [] when none does."""
    try:
        records = module.capture_backward(ref.inputs, ref.input_dtypes, ref.objective, loss)
    except Exception:  # hooks autograd refuses: no container gradients to compare with
        return []
    names = [c.name for c in t_calls]
    started = time.monotonic()
    for i, call in enumerate(t_calls):
        if call.name not in records or not call.inputs:
            continue
        pair = flow.pair_of(i)
        ms_name = "" if call.name == "" else (
            m_calls[pair.ms_indices[0]].name if pair is not None and len(pair.ms_indices) == 1 else None)
        grad_out, grad_in = records[call.name]
        if ms_name is None or len(grad_out) != 1 or grad_out[0] is None:
            continue
        if call.name and not descendants(names, call.name) and (ms_name is None or is_library(cell, ms_name, unreadable=True)):
            continue  # a torch leaf searched only where the port computes it in a construct of its own
        found = _search(cell, ms_name, call, grad_out[0], grad_in, tol, started, _small_settings(module, call.name))
        if found is not None:
            cause, fix, tried, rule = found
            seconds = round(time.monotonic() - started, 3)
            return [Defect(i, call.name, call.kind, ms_name, cell.subcell_kind(ms_name) if ms_name else call.kind,
                           f"forward values agree; inside '{call.name or '<root>'}', {cause}", cause, fix, "high",
                           True, rule, search_s=seconds, search_tried=tuple(tried))]
    return []


def _agrees_with(cell: MindSporeProbe, ms_name: str, call: Any, grad_out: np.ndarray, grad_in: Sequence[Any],
                 tol: Any, change: OpChange) -> bool:
    """The container re-run backward with one change: its output still agrees and so does every input gradient."""
    try:
        out, grads = cell.vjp_changed(ms_name, list(call.inputs), grad_out, change)
    except Exception:  # the change breaks the construct: not this one
        return False
    return close(call.output, np.asarray(out), *tol(str(call.output.dtype))) and _grads_agree(grad_in, grads, tol)


def _small_settings(module: TorchProbe, name: str) -> List[Tuple[str, float]]:
    """torch's module's small positive float settings (an eps it adds): candidates for an op of the port's."""
    try:
        _, config = module.config(name)
    except Exception:  # no readable settings
        return []
    return [(k, float(v)) for k, v in config.items() if isinstance(v, float) and 0.0 < v <= 1e-2]


def _search(cell: MindSporeProbe, ms_name: str, call: Any, grad_out: np.ndarray, grad_in: Sequence[Any], tol: Any,
            started: float, small: Sequence[Tuple[str, float]] = ()) -> Any:
    try:
        traced, _ = cell.trace_ops(ms_name, list(call.inputs))
        _, base = cell.vjp_changed(ms_name, list(call.inputs), grad_out, OpChange(-1))
    except Exception:  # a construct that cannot be traced or differentiated alone
        return None
    if _grads_agree(grad_in, base, tol):
        return None  # this container's backward agrees: the difference is elsewhere
    tried: List[str] = []
    for r in reversed([r for r in traced if r.index >= 0 and not r.raised]):
        found = _nan_path(cell, ms_name, call, grad_out, grad_in, tol, r, tried, traced) or _eps_path(
            cell, ms_name, call, grad_out, grad_in, tol, r, tried, traced, small)
        if found is not None:
            return found
        tensors = [k for k, v in enumerate(r.positional) if v == "<tensor>"]
        for j, k in enumerate(tensors[:len(r.inputs)]):
            if r.inputs[j].dtype.kind != "f":
                continue
            if len(tried) >= MAX_CANDIDATES or time.monotonic() - started > MAX_SECONDS:
                return None
            name = r.names[k] if k < len(r.names) else f"argument {k}"
            tried.append(f"op {r.index} '{r.name}': {name} through ops.stop_gradient")
            if _agrees_with(cell, ms_name, call, grad_out, grad_in, tol, OpChange(r.index, stop=(k,))):
                what = _operand(r, k)
                children = [c.name[len(CHILD):] for c in traced[:traced.index(r)] if c.name.startswith(CHILD)]
                place = f"; the op sits after '{children[-1]}' output" if children else ""
                cast = _through_cast(traced[:traced.index(r)], r.inputs[j])
                cause = (f"the port's '{r.name}' takes {what} with its gradient, where torch's graph cuts it"
                         f" ({cast or 'a detach, e.g. a straight-through estimator'}): with {what} handed over through"
                         f" ops.stop_gradient, the forward still agrees and every input gradient of"
                         f" '{call.name or '<root>'}' agrees with torch's (re-run with mindspore.vjp on torch's"
                         f" recorded inputs and output gradient; {len(tried)} candidates tried){place}")
                return cause, f"wrap {what} of '{r.name}' in ops.stop_gradient(...) in construct", tried, RULE
    return None


def _nan_path(cell: MindSporeProbe, ms_name: str, call: Any, grad_out: np.ndarray, grad_in: Sequence[Any], tol: Any,
              r: Any, tried: List[str], traced: Sequence[Any]) -> Any:
    """An op fed NaN that returns a number where torch's returns NaN (ops.maximum(nan, y) is y): a later op can hide
    it from the output (nan_to_num), while the gradient takes the other operand's path. Each NaN convention
    (op_nan.py) re-run through the container's backward; the first with which output and gradients agree."""
    from migcheck.localization.op_align import OpDivergence
    from migcheck.localization.op_nan import nan_candidates, nan_fix

    for change, words in nan_candidates(OpDivergence(r, None, ())):
        tried.append(f"op {r.index} '{r.name}': {words}")
        if _agrees_with(cell, ms_name, call, grad_out, grad_in, tol, change):
            children = [c.name[len(CHILD):] for c in traced[:traced.index(r)] if c.name.startswith(CHILD)]
            place = f"; the op sits after '{children[-1]}' output" if children else ""
            cause = (f"the port's '{r.name}' is fed NaN and sends the gradient along another path than torch's: with"
                     f" {words.split(' (', 1)[0]}, the forward still agrees and every input gradient of"
                     f" '{call.name or '<root>'}' agrees with torch's (re-run with mindspore.vjp on torch's recorded"
                     f" inputs and output gradient; {len(tried)} candidates tried){place}")
            return cause, nan_fix(r, change), tried, NAN_RULE
    return None


def _eps_path(cell: MindSporeProbe, ms_name: str, call: Any, grad_out: np.ndarray, grad_in: Sequence[Any], tol: Any,
              r: Any, tried: List[str], traced: Sequence[Any], small: Sequence[Tuple[str, float]]) -> Any:
    """torch's own small setting (PairwiseDistance's eps) added to a float input of one of the port's calls: a
    norm at a zero vector has a NaN gradient that torch's eps keeps finite, while the forward barely moves."""
    tensors = [k for k, v in enumerate(r.positional) if v == "<tensor>"][:len(r.inputs)]
    for setting, eps in small:
        for j, k in enumerate(tensors):
            if r.inputs[j].dtype.kind != "f" or len(tried) >= MAX_CANDIDATES:
                continue
            tried.append(f"op {r.index} '{r.name}': torch's {setting}={eps:g} added to its input {k}")
            if _agrees_with(cell, ms_name, call, grad_out, grad_in, tol, OpChange(r.index, offset_input=((k, eps),))):
                name = r.names[k] if k < len(r.names) else f"input {k}"
                cause = (f"the port's '{r.name}' is computed without torch's {setting}={eps:g} ('{call.name}'"
                         f" {call.kind}'s {setting}): with {eps:g} added to its {name}, the forward still agrees and"
                         f" every input gradient of '{call.name or '<root>'}' agrees with torch's (re-run with"
                         f" mindspore.vjp on torch's recorded inputs and output gradient; {len(tried)} candidates"
                         f" tried)")
                return cause, f"{r.name}(..., {name} + {eps:g}, ...): add torch's {setting} as torch does", tried, \
                    EPS_RULE
    return None


def _through_cast(earlier: Sequence[Any], value: np.ndarray, steps: int = 3) -> str:
    """'it is computed through an integer cast (Tensor.astype of an int64 tensor) ...' where the value comes, a few
    calls back, from a call that takes or returns integers or booleans; '' otherwise."""
    frontier = value
    for p in reversed([p for p in earlier if p.index >= 0]):
        if not any(o.shape == frontier.shape and np.array_equal(o, frontier) for o in p.outputs):
            continue
        kinds = [x.dtype for x in list(p.inputs) + list(p.outputs) if x.dtype.kind in "iub"]
        if kinds:
            article = "an" if kinds[0].name[0] in "aeiou" else "a"
            return (f"it is computed through an integer cast ('{p.name}' of {article} {kinds[0].name} tensor): MindSpore passes"
                    f" gradient through the cast, where torch's cast to an integer type passes none")
        steps -= 1
        if steps == 0 or not p.inputs:
            return ""
        frontier = p.inputs[0]
    return ""


def _operand(r: Any, k: int) -> str:
    if r.name in ("Tensor.__add__", "Tensor.__radd__", "Tensor.__sub__", "Tensor.__mul__", "Tensor.__rsub__",
                  "Tensor.__rmul__", "Tensor.__truediv__"):
        return "its right operand" if k == 1 else "its left operand"
    name = r.names[k] if k < len(r.names) else ""
    return f"its argument '{name}'" if name else f"its argument {k}"
