"""Backward-only differences inside construct, located at op level.

When every sub-cell's forward agrees and no sub-cell's isolated backward differs, the difference sits in an op
the port's own construct calls (a clamp at its bound, atan2 at the origin, a kink of a piecewise activation).
Each side records its ops: torch the ops of its port-authored forwards with the gradient that reached each
output and the input gradients it passed on; MindSpore the public calls of one PYNATIVE forward. Ops are paired
by equal float inputs and outputs (as sub-cells are paired); each MindSpore op is then run backward alone
(mindspore.vjp) on torch's recorded inputs and output gradient, and its input gradients compared with torch's.
The first op that still differs is the location; the elements where it differs are shown with both gradients.
A fix is offered only when the MindSpore function named like torch's op, called with the port's arguments,
re-runs to torch's output and gradients.
"""
from __future__ import annotations

import dataclasses

import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.dataflow import close
from migcheck.util.closeness import widened
from migcheck.localization.locate import Defect
from migcheck.records.ops import OpGradient, OpRecord
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


@dataclass(frozen=True)
class OpDifference:
    torch_op: OpGradient
    ms_op: OpRecord
    argument: int  # which float input's gradient differs
    where: str  # the differing elements, with input values and both gradients
    cause: str
    fix: str


def pair_ops(torch_ops: Sequence[OpGradient], ms_ops: Sequence[OpRecord], tol: TolFor
             ) -> List[Tuple[OpGradient, OpRecord]]:
    """Each torch op with the first unused MindSpore call fed the same float inputs that gave the same output."""
    used: set = set()
    out = []
    for t in torch_ops:
        rtol, atol = tol(str(t.output.dtype))
        for m in ms_ops:
            if m.index in used:
                continue
            lifted = t if len(m.inputs) == len(t.inputs) else _lifted(t, m.inputs)
            if lifted is None or len(m.inputs) != len(lifted.inputs):
                continue
            if all(close(a, b, rtol, atol) for a, b in zip(lifted.inputs, m.inputs)) and close(
                    t.output, m.output, rtol, atol):
                used.add(m.index)
                out.append((lifted, m))
                break
    return out


def _lifted(t: OpGradient, ms_inputs: Sequence[np.ndarray]) -> Optional[OpGradient]:
    """torch's op with the number arguments the port passes as one-element tensors (clip_by_value's bounds)
    put among its tensor inputs in the port's order (no gradient of torch's there); None where the port's extra
    tensors are not torch's numbers."""
    if len(ms_inputs) <= len(t.inputs):
        return None
    inputs, grads, names, k = [], [], [], 0
    for x in ms_inputs:
        if k < len(t.inputs) and np.shape(x) == np.shape(t.inputs[k]):
            inputs.append(t.inputs[k])
            grads.append(t.grad_inputs[k] if k < len(t.grad_inputs) else None)
            names.append(t.input_names[k] if k < len(t.input_names) else "")
            k += 1
        elif np.size(x) == 1 and any(np.float32(s) == np.float32(np.asarray(x).reshape(-1)[0]) for s in t.scalars):
            inputs.append(np.asarray(x))
            grads.append(None)
            names.append("")
        else:
            return None
    if k != len(t.inputs):
        return None
    return dataclasses.replace(t, inputs=tuple(inputs), grad_inputs=tuple(grads), input_names=tuple(names))


def differing(t: np.ndarray, m: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Boolean mask of the elements where two gradients disagree (NaN only matches NaN)."""
    a, b = widened(t), widened(m)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a - b) <= atol + rtol * np.abs(a)
    ok |= (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
    return ~ok


def describe_elements(x: np.ndarray, t: np.ndarray, m: np.ndarray, wrong: np.ndarray, limit: int = 4) -> str:
    """'at input = 0.5 (2 elements): torch gradient 1, MindSpore 0.5' grouped by input value."""
    xs, ts, ms_ = x[wrong], t[wrong], m[wrong]
    groups: dict = {}
    for xv, tv, mv in zip(xs.tolist(), ts.tolist(), ms_.tolist()):
        groups.setdefault((number_text(xv), number_text(tv), number_text(mv)), 0)
        groups[(number_text(xv), number_text(tv), number_text(mv))] += 1
    parts = [f"at input {xv} ({n} element{'s' if n > 1 else ''}): torch gradient {tv}, MindSpore {mv}"
             for (xv, tv, mv), n in list(groups.items())[:limit]]
    more = len(groups) - limit
    return "; ".join(parts) + (f"; ... {more} more" if more > 0 else "")


def kink(x: np.ndarray, wrong: np.ndarray, scalars: Sequence[float], names: Sequence[str] = (),
         input_name: str = "", output: Optional[np.ndarray] = None, op: str = "op", own_points: bool = False) -> str:
    """The special point every differing element sits on (one of the op's own number arguments, or 0), the
    side of it they all lie on while every agreeing element lies on the other, or ties of a reduction's result:
    measured on the recorded input. own_points (an elementwise function with nothing inside it to search): a
    round input value that only the differing elements have counts as a point of the function itself."""
    values, rest = x[wrong], x[~wrong]
    points = [(float(s), names[i] if i < len(names) else "") for i, s in enumerate(scalars)
              if not _axis(names[i] if i < len(names) else "", s)]
    named = {s: n for s, n in points}
    who = input_name or "x"
    tied = _ties(x, wrong, output, op)
    if tied:
        return tied.replace("x", who, 1)
    for s in [s for s, _ in points] + [0.0]:
        if values.size and np.all(values == np.float32(s)):
            return f"{who} == {number_text(s)}" + (f" (its {named[s]} argument)" if named.get(s) else
                                             " (its bound/argument)" if s in named else "")
    if values.size and len(np.unique(values)) <= 2 and np.all(np.isin(values, [np.float32(s) for s, _ in points])):
        return f"{who} at its bounds " + ", ".join(number_text(v) for v in np.unique(values))
    own = np.unique(values)  # a point of the function itself (hardswish's -3 and 3): read off the data, where
    if own_points and values.size and own.size <= 2 and all(_round(v) for v in own) \
            and not np.isin(rest, own).any():  # only
        where = f"{who} == {number_text(own[0])}" if own.size == 1 else f"{who} at " + ", ".join(  # elements at
            number_text(v) for v in own)                                                           # it differ
        return where + " (every differing element has this input value and no agreeing one does: a point of the function itself)"
    if values.size and rest.size:
        for s in [s for s, _ in points] + [0.0]:
            label = f"{named[s]}={number_text(s)}" if named.get(s) else number_text(s)
            if np.all(values < s) and np.all(rest >= s):
                return f"{who} < {label} (every differing element below it, every agreeing one at or above it)"
            if np.all(values > s) and np.all(rest <= s):
                return f"{who} > {label} (every differing element above it, every agreeing one at or below it)"
    return ""


def _round(v: float) -> bool:
    """A value a function puts a kink at (a multiple of 1/4, not too large): an input drawn at random that
    happens to differ alone is not taken for one."""
    return bool(np.isfinite(v)) and abs(v) <= 1e3 and float(v) * 4 == round(float(v) * 4)


def _axis(name: str, value: float) -> bool:
    """An integer argument that picks an axis (dim, axis, start_dim), no point on the input's values."""
    return float(value).is_integer() and ("dim" in name.lower() or "axis" in name.lower())


def _ties(x: np.ndarray, wrong: np.ndarray, output: Optional[np.ndarray], op: str = "op") -> str:
    """'x at ties ...' when every differing element equals (in value or magnitude) the reduction's result it
    belongs to, and at least one result is shared by several elements; '' otherwise."""
    if output is None or output.shape == x.shape or not wrong.any():
        return ""
    if output.size == 1:  # a reduction over all elements (a global median): its one result, everywhere
        output = np.reshape(output, (1,) * x.ndim)
    if output.ndim == x.ndim - 1:  # a reduction that drops its axis (ReduceMax(x, 3)): put it back
        axis = next((a for a in range(x.ndim) if x.shape[:a] + x.shape[a + 1:] == output.shape and x.shape[a] > 1),
                    None)
        output = np.expand_dims(output, axis) if axis is not None else output
    if output.ndim != x.ndim:
        return ""
    try:
        out = np.broadcast_to(output, x.shape)
    except ValueError:  # not a keepdim reduction of x
        return ""
    for hit, how in ((x == out, "its value"), (np.abs(x) == out, "its magnitude")):
        if not np.all(hit[wrong]):
            continue
        axes = tuple(i for i in range(x.ndim) if output.shape[i] == 1 and x.shape[i] > 1)
        shared = hit.sum(axis=axes, keepdims=True) > 1
        if np.any(np.broadcast_to(shared, x.shape)[wrong]):
            return (f"x at ties of the {op} result: every differing element equals, in {how}, the result it is"
                    f" reduced to, and several elements share that result")
    return ""


def compare(pairs: Sequence[Tuple[OpGradient, OpRecord]], vjp: Callable[..., Tuple[np.ndarray, Tuple[np.ndarray, ...]]],
            alternative: Callable[[str], Any], tol: TolFor,
            relatives: Callable[[str, str], Sequence[Tuple[str, Any, bool]]] = lambda name, skip: ()
            ) -> Tuple[List[OpDifference], List[str]]:
    """Every paired op whose MindSpore backward, fed torch's inputs and output gradient, differs; and the
    single-op re-runs that took."""
    out: List[OpDifference] = []
    runs: List[str] = []
    for t, m in pairs:
        rtol, atol = tol(str(t.output.dtype))
        try:
            _, grads = vjp(m.index, t.inputs, t.grad_output)
        except Exception:  # an op MindSpore cannot differentiate alone: no verdict on it
            continue
        runs.append(f"backward of {m.text}")
        for k, (tg, mg) in enumerate(zip(t.grad_inputs, grads)):
            if tg is None or np.shape(tg) != np.shape(mg):
                continue
            wrong = differing(tg, np.asarray(mg), rtol, atol)
            if not wrong.any():
                continue
            x, mg = t.inputs[k], np.asarray(mg)
            if t.grad_output.shape == tg.shape and np.all(t.grad_output[wrong] != 0):
                # elementwise: the factor each side multiplies the incoming gradient by
                go = np.where(t.grad_output == 0, 1, t.grad_output)
                where = describe_elements(x, tg / go, mg / go, wrong).replace("gradient", "passes gradient times")
            else:
                where = describe_elements(x if x.shape == tg.shape else np.broadcast_to(np.nan, tg.shape), tg, mg,
                                          wrong)
            name = t.input_names[k] if k < len(t.input_names) else ""
            at = (kink(x, wrong, t.scalars, t.scalar_names, name, t.output, m.name.rsplit(".", 1)[-1],
                       own_points=np.shape(t.output) == x.shape)
                  if x.shape == tg.shape else "")
            which = (f" with respect to its {name or 'input ' + str(k)} (input {k})"
                     if sum(g is not None for g in t.grad_inputs) > 1 else "")
            none = ("; MindSpore's gradient there is 0: it passes no gradient to that input"
                    if np.all(mg[wrong] == 0) and np.any(tg[wrong] != 0) else "")
            if np.all(np.isnan(mg[wrong])) and np.all(np.isfinite(tg[wrong])):  # said in the op's own short name
                none = f"; MindSpore's {m.name.rsplit('.', 1)[-1]} gradient is NaN there, where torch's is finite"
            cause = (f"MindSpore's {m.name} gradient{which} differs from torch's {t.text.split('(', 1)[0]}"
                     f"{' where ' + at if at else ''}: {where} ({int(wrong.sum())} of {wrong.size} elements){none};"
                     f" the calls: MindSpore {m.text}, torch {t.text}")
            fix, tried = _fix(t, m, vjp, alternative, rtol, atol, relatives)
            runs += tried
            out.append(OpDifference(t, m, k, where, cause, fix))
            break
    return out, runs


def _fix(t: OpGradient, m: OpRecord, vjp: Callable, alternative: Callable[[str], Any], rtol: float, atol: float,
         relatives: Callable[[str, str], Sequence[Tuple[str, Any, bool]]] = lambda name, skip: ()) -> Tuple[str, List[str]]:
    """The MindSpore function named like torch's op, then the functions of its family (its last word), called
    with the port's own arguments (numbers also as one-element tensors): a fix only when one re-runs to torch's
    output and every input gradient."""
    short = m.name.rsplit(".", 1)[-1]
    args = m.text.split("(", 1)[1] if "(" in m.text else ")"
    args = f"x, {args}" if m.name.startswith("Tensor.") and args != ")" else "x)" if args == ")" else args
    space = m.name.rsplit(".", 1)[0] if "." in m.name else "ops"
    space = "ops" if space == "Tensor" else space
    fn = alternative(t.name) if t.name != short else None
    options = [(f"{space}.{t.name}", fn, args)] if fn is not None else []
    options += [(label, relative, _numbers_as_tensors(args) if as_tensors else args)
                for label, relative, as_tensors in relatives(t.name, short)]
    tried = []
    for name, function, shown in options:
        tried.append(f"{name}({shown} in place of {m.name}")
        several: List[bool] = []  # a multi-result function (ops.max for ReduceMax): its first result is the value
        try:
            out, grads = vjp(m.index, t.inputs, t.grad_output, _first_result(function, several))
        except Exception:  # the alternative does not take the port's arguments: no fix
            continue
        if close(t.output, np.asarray(out), rtol, atol) and all(
                g is None or (np.shape(g) == np.shape(h) and not differing(g, np.asarray(h), rtol, atol).any())
                for g, h in zip(t.grad_inputs, grads)):
            first = "[0]" if any(several) else ""
            return f"{name}({shown}{first} instead of {m.text} (re-run: it gives torch's output and gradients)", tried
    return "", tried


def _first_result(function: Callable, several: List[bool]) -> Callable:
    """`function` giving its first result where it returns several, noting in `several` whether it did."""
    def call(*args: Any, **kwargs: Any) -> Any:
        out = function(*args, **kwargs)
        several.append(isinstance(out, (tuple, list)))
        return out[0] if isinstance(out, (tuple, list)) else out
    return call


def _numbers_as_tensors(args: str) -> str:
    """'x, 0.1)' -> 'x, Tensor([0.1]))': the call's number arguments shown as the one-element tensors handed."""
    parts = args[:-1].split(", ") if args.endswith(")") else args.split(", ")
    shown = []
    for p in parts:
        try:
            float(p)
            shown.append(f"Tensor([{p}])")
        except ValueError:
            shown.append(p)
    return ", ".join(shown) + ")"


def op_backward_defects(module: TorchProbe, cell: MindSporeProbe, ref: Any, loss: Any, n_net: int, t_calls: Sequence[Any],
                        m_calls: Sequence[Any], tol: TolFor) -> List[Defect]:
    """Defects for the ops inside construct whose backward alone differs; [] when none does."""
    started = time.perf_counter()
    from migcheck.runners.torch_backward_ops import op_gradients

    try:
        torch_ops = op_gradients(module, ref.inputs, ref.input_dtypes, ref.objective, loss)
        tape = cell.record_ops(ref.inputs[:n_net], ref.input_dtypes[:n_net])
    except Exception:  # a forward the recorders cannot follow: no op-level location
        return []
    pairs = pair_ops(torch_ops, tape.records, tol)
    found, runs = compare(pairs, tape.vjp, tape.alternative, tol, tape.relatives)
    seconds = time.perf_counter() - started
    order = {c.name: i for i, c in enumerate(t_calls)}
    kinds = {c.name: c.kind for c in t_calls}
    ms_kinds = {c.name: c.kind for c in m_calls}
    if not found and all(np.isfinite(np.asarray(v)).all() for k, v in ref.results.items()
                         if k.startswith("grad.") and np.asarray(v).dtype.kind == "f"):
        from migcheck.localization.nan_origin import nan_origin

        origin = nan_origin(tape.records, tape.vjp, m_calls, kinds, ms_kinds, torch_ops)  # torch's grads are finite
        return [dataclasses.replace(origin, order=order.get(origin.torch_name, len(t_calls)),
                                    search_s=time.perf_counter() - started)] if origin is not None else []
    out = []
    for d in found:
        place = f"after '{d.torch_op.after}' output in '{d.torch_op.owner or '<root>'}'" if d.torch_op.after else ""
        evidence = (f"op-level backward{': the op ' + place if place else ''}: {len(torch_ops)} torch ops and {len(tape.records)} MindSpore calls recorded,"
                    f" {len(pairs)} paired by equal inputs and outputs; MindSpore's {d.ms_op.text} fed torch's"
                    f" recorded inputs and output gradient returns another gradient for input {d.argument}"
                    f" ({len(runs)} single-op re-runs, {seconds:.2f}s)")
        if d.fix:
            evidence += "; the fix re-ran to torch's gradients"
        out.append(Defect(order.get(d.torch_op.owner, len(t_calls)), d.torch_op.owner,
                          kinds.get(d.torch_op.owner, "?"), d.ms_op.owner, ms_kinds.get(d.ms_op.owner, "?"),
                          evidence, f"the op {place}: {d.cause}" if place else d.cause, d.fix, "high", True, "op-backward",
                          search_s=seconds, search_tried=tuple(runs)))
    return out


def op_backward_summary(defects: Sequence[Defect]) -> str:
    first = defects[0]
    text = (f"first divergence in backward: an op inside torch '{first.torch_name or '<root>'}' / MindSpore"
            f" '{first.ms_name or '<root>'}': forward values agree, that op's backward alone differs"
            f" (single-op re-run on torch's recorded inputs and output gradient); {first.cause}")
    if len(defects) > 1:
        text += f"; {len(defects)} ops wrong in backward"
    return text


def number_text(v: float) -> str:
    """A number as the reports show it: 4 significant digits, no \"-0\" (nan, inf and -inf as such)."""
    return f"{v + 0.0:.4g}"
