"""The isolated backward pass: where gradients go wrong when every forward value agrees.

A gradient failure with agreeing forward values has no forward divergence to point at, and the first
diverging parameter in backward order only says where the wrong gradient *arrived*. So each paired leaf
sub-cell is run backward on its own: torch records, in one gradient pass with full backward hooks, every
sub-module's output cotangent and input gradient; the MindSpore counterpart is fed torch's recorded input
and that cotangent (mindspore.vjp) and its input gradient compared with torch's. A sub-cell that still
differs is wrong on its own in backward (a custom bprop, an op whose gradient MindSpore computes
differently); one that agrees only passes on what it was given.
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.dataflow import as_handed, close, descendants
from migcheck.localization.locate import Defect
from migcheck.localization.loaded import is_library
from migcheck.localization.signatures import describe
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


def backward_defects(module: TorchProbe, cell: MindSporeProbe, ref: Any, loss: Any, t_calls: Sequence[Any], m_calls: Sequence[Any],
                     flow: Any, tol: TolFor) -> List[Defect]:
    """Every paired leaf sub-cell whose MindSpore backward, fed torch's input and output cotangent, gives
    other input gradients than torch's, in forward order."""
    try:
        records = module.capture_backward(ref.inputs, ref.input_dtypes, ref.objective, loss)
    except Exception:  # hooks that autograd refuses (in-place ops): no isolated backward pass
        return []
    names = [c.name for c in t_calls]
    out = []
    for index, ms_name, ms_inputs in _candidates(cell, t_calls, m_calls, flow):
        call = t_calls[index]
        if descendants(names, call.name) or call.name not in records or not call.inputs:
            continue
        grad_out, grad_in = records[call.name]
        if not grad_out or any(g is None for g in grad_out):
            continue
        ms_kind = cell.subcell_kind(ms_name)
        try:
            ms_in = cell.subcell_vjp(ms_name, as_handed(call.inputs, ms_inputs), grad_out)
        except Exception:  # a sub-cell that needs more than its tensor arguments cannot run alone
            continue
        wrong = [(t, m) for t, m in zip(grad_in, ms_in) if t is not None and m is not None and t.dtype.kind in "fc"
                 and not close(t, np.asarray(m), *tol(str(t.dtype)))]
        if not wrong:
            continue
        t, m = wrong[0]
        err = float(np.max(np.abs(t.astype(np.float64) - np.asarray(m, np.float64)))) if t.shape == np.shape(m) else float("inf")
        evidence = (f"fed torch's recorded input and output gradient, MindSpore '{ms_name}' returns another input"
                    f" gradient (max abs err {err:.3g}); its forward output agrees")
        custom = cell.has_custom_bprop(ms_name)
        found = describe(t, m)
        cause = (f"MindSpore's {ms_kind} defines its own bprop, and it does not give the gradient torch's"
                 f" {call.kind} computes" if custom else "")
        k = next(i for i, g in enumerate(grad_in) if g is t)
        which = _which_input(module, call, k)
        # measured: nothing flows back to that input; only for a cell the port's forward called (a loss it writes
        # out instead, leaving its layer unused, is paired by name alone and decides nothing)
        cut = not np.any(np.asarray(m)) and bool(np.any(t)) and any(c.name == ms_name for c in m_calls)
        if cut:
            said = (f"MindSpore's {ms_kind} passes no gradient to its {which[len(' with respect to its '):] or 'input'},"
                    f" torch's {call.kind} does (its gradient there is 0 everywhere)")
            cause = f"{cause}; {said}" if cause else said
        elif found is not None:
            said = f"the gradient of {ms_kind}{which}: {found.cause}"
            cause = f"{cause}; {said}" if cause else said
        fix = ""
        factor = _identity_with_factor(call, k, t, np.asarray(m), grad_out, tol)
        if factor is not None and not custom:  # torch's module defines its own backward for an identity forward
            cause = (f"'{call.name}' computes the identity forward on both sides, and torch's {call.kind} passes back"
                     f" its output gradient times {factor:g} (its own backward: a gradient reversal or scale), where"
                     f" MindSpore's {ms_kind} passes it unchanged: it has no bprop of its own")
            fix = (f"give {ms_kind} a bprop: def bprop(self, x, out, dout): return ({factor:g} * dout,)"
                   f" (it returns torch's input gradient from torch's recorded output gradient)")
        placed = "" if fix else _placed(module, call, k, t, np.asarray(m), tol,
                                        is_library(cell, ms_name, unreadable=False))
        if placed:  # measured: the elements where the gradients differ, against the layer's own settings (a
            own = (f"MindSpore's {ms_kind} defines its own bprop; " if custom else "")  # ratio read off the differing
            cause = f"{own}MindSpore's {ms_kind} input gradient differs from torch's {call.kind} {placed}"  # ones only)
        rule = "custom-bprop" if custom else found.rule if found else "backward"
        rule = "backward-cut" if cut and not placed else "missing-bprop" if fix else rule
        out.append(Defect(index, call.name, call.kind, ms_name, ms_kind, evidence, cause, fix,
                          "high" if placed or cut or fix else "medium" if cause else "low", bool(placed) or cut or bool(fix),
                          rule))
    return sorted(out, key=lambda d: d.order)


def _placed(module: TorchProbe, call: Any, k: int, t: np.ndarray, m: np.ndarray, tol: TolFor,
            library: bool = False) -> str:
    """'where x == margin=2 ...: at input 2 (3 elements): torch gradient 1, MindSpore 0.5' for an input whose
    gradient has its shape; '' where no special point of the layer's own numbers explains the elements."""
    from migcheck.localization.backward_ops import describe_elements, differing, kink

    if k >= len(call.inputs) or np.shape(call.inputs[k]) != t.shape or t.shape != m.shape:
        return ""
    x = np.asarray(call.inputs[k])
    wrong = differing(t, m, *tol(str(t.dtype)))
    try:
        arguments = module.constructor(call.name).arguments
    except Exception:  # no settings to read: only 0 is a point
        arguments = ()
    numbers = [(a.name, float(a.value)) for a in arguments
               if isinstance(a.value, (int, float)) and not isinstance(a.value, bool)]
    try:
        names = module.input_names(call.name)
    except Exception:  # a forward without a readable signature: the input stays "x"
        names = ()
    # a library layer computing elementwise has nothing inside to search: a point of its own function counts
    own_points = library and np.shape(call.output) == x.shape
    at = kink(x, wrong, [v for _, v in numbers], [n for n, _ in numbers], names[k] if k < len(names) else "",
              own_points=own_points)
    if not at:
        return ""
    return (f"where {at}: {describe_elements(x, t, m, wrong)} ({int(wrong.sum())} of {wrong.size} elements;"
            f" re-run alone on torch's recorded input and output gradient)")


def _candidates(cell: MindSporeProbe, t_calls: Sequence[Any], m_calls: Sequence[Any], flow: Any
                ) -> List[Tuple[int, str, Sequence[Any]]]:
    """(torch call index, MindSpore sub-cell name, the inputs the port's call received): the dataflow pairs,
    plus torch calls left unpaired whose name the port also has (MindSpore runs no forward hook on a cell with
    its own bprop, so such a cell is never captured, let alone paired by value)."""
    out = [(p.torch_index, m_calls[p.ms_indices[0]].name, m_calls[p.ms_indices[0]].inputs) for p in flow.pairs
           if len(p.ms_indices) == 1]
    paired = {i for i, _, _ in out}
    for i, call in enumerate(t_calls):
        if i not in paired:
            try:
                cell.subcell_kind(call.name)
            except KeyError:
                continue
            out.append((i, call.name, ()))
    return out


def backward_summary(defects: Sequence[Defect]) -> str:
    first = defects[0]
    text = (f"first divergence in backward: torch '{first.torch_name or '<root>'}' ({first.torch_kind}) / MindSpore"
            f" '{first.ms_name or '<root>'}' ({first.ms_kind}): forward values agree, its backward alone differs"
            f" (isolated backward re-run)")
    if first.cause:
        text += f"; likely cause: {first.cause}"
    if len(defects) > 1:
        text += f"; {len(defects)} sub-cells wrong in backward: " + ", ".join(f"'{d.torch_name}'" for d in defects)
    return text


def _identity_with_factor(call: Any, k: int, t: np.ndarray, m: np.ndarray, grad_out: Sequence[Any], tol: TolFor
                          ) -> Optional[float]:
    """torch's constant gradient factor where the layer's forward is the identity (its output equals input k),
    MindSpore's input gradient is its output gradient unchanged and torch's is that times one constant; else None."""
    x, y = call.inputs[k] if k < len(call.inputs) else None, call.output
    g = np.asarray(grad_out[0]) if grad_out else None
    if not all(isinstance(v, np.ndarray) for v in (x, y, g)) or not (x.shape == y.shape == g.shape == t.shape == m.shape):
        return None
    rtol, atol = tol(str(t.dtype))
    if not close(x, y, rtol, atol) or not close(m, g, rtol, atol) or not np.any(g):
        return None
    ratios = t[g != 0].astype(np.float64) / g[g != 0].astype(np.float64)
    factor = float(np.median(ratios))
    return factor if close(t, (factor * g).astype(t.dtype), rtol, atol) and abs(factor - 1.0) > 1e-6 else None


def _which_input(module: TorchProbe, call: Any, k: int) -> str:
    """' with respect to its target (input 1)' for a layer of several inputs; '' for one."""
    if len(call.inputs) < 2:
        return ""
    try:
        names = module.input_names(call.name)
    except Exception:  # a forward without a readable signature
        names = ()
    return f" with respect to its {names[k] if k < len(names) else 'input ' + str(k)} (input {k})"
