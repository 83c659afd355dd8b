"""Gradient-only options: a parameter whose gradient alone differs (every forward value agrees) because the
torch layer holds an option that changes only its backward (Embedding's scale_grad_by_freq, padding_idx).

Candidates come from the torch layer's own constructor signature and the port's layer, not from a list: each
boolean flipped, and each setting the MindSpore layer holds under the same name with another value. torch's
gradients are re-run with one candidate at a time; the candidate that reproduces MindSpore's gradients of
that layer is the confirmed cause. The fix is not re-run on the port, so it is printed as advice, not a
checked fix.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.hidden import _all_close, _layer_values
from migcheck.localization.rules import Finding
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
BUDGET = 12  # candidates re-run per layer at most


@dataclass(frozen=True)
class OptionCandidate:
    attr: str
    torch_value: Any
    value: Any
    source: str  # "flipped", "MindSpore's value" or "torch's default"


@dataclass(frozen=True)
class OptionSearch:
    found: Optional[OptionCandidate]
    tried: Tuple[str, ...]
    seconds: float


def candidates(torch_settings: Mapping[str, Any], ms_settings: Mapping[str, Any],
               defaults: Mapping[str, Any] = {}) -> List[OptionCandidate]:  # noqa: B006 (read only)
    """Booleans of torch's signature flipped, then MindSpore's differing value of a same-named setting, then
    torch's constructor default of a setting the layer holds otherwise (padding_idx=0 -> None: what if torch
    had not set it)."""
    out = [OptionCandidate(k, v, not v, "flipped") for k, v in torch_settings.items() if isinstance(v, bool)]
    for k, v in torch_settings.items():
        if k in ms_settings and not isinstance(v, bool) and ms_settings[k] != v and _same_kind(v, ms_settings[k]):
            out.append(OptionCandidate(k, v, ms_settings[k], "MindSpore's value"))
    for k, v in torch_settings.items():
        if k in defaults and not isinstance(v, bool) and defaults[k] != v and _same_kind(v, defaults[k]) \
                and not any(c.attr == k and c.value == defaults[k] for c in out):
            out.append(OptionCandidate(k, v, defaults[k], "torch's default"))
    return out[:BUDGET]


def _same_kind(a: Any, b: Any) -> bool:
    return a is None or b is None or type(a) is type(b) or {type(a), type(b)} <= {int, float}


def search(module: TorchProbe, torch_owner: str, found_candidates: Sequence[OptionCandidate],
           ms_grads: Mapping[str, np.ndarray], gradient_args: Sequence[Any], tol: TolFor) -> OptionSearch:
    """The first candidate whose torch re-run gives MindSpore's gradients of the layer's parameters."""
    from migcheck.runners.torch_replay import gradients_patched

    started, tried = time.perf_counter(), []
    want = _layer_values(ms_grads, torch_owner)
    try:  # torch's own gradients first: where they already agree with MindSpore's, no option can be the cause
        own = gradients_patched(module, torch_owner, {}, *gradient_args)
    except Exception:
        own = None
    if own is not None and _all_close(_layer_values(own.params, torch_owner), want, tol):
        return OptionSearch(None, ("torch's own gradients (they agree already)",), time.perf_counter() - started)
    for c in found_candidates:
        tried.append(f"{c.attr}={c.value!r}")
        try:
            grads = gradients_patched(module, torch_owner, {c.attr: c.value}, *gradient_args)
        except Exception:  # a value torch's layer refuses: not this one
            continue
        if _all_close(_layer_values(grads.params, torch_owner), want, tol):
            return OptionSearch(c, tuple(tried), time.perf_counter() - started)
    return OptionSearch(None, tuple(tried), time.perf_counter() - started)


def option_findings(module: TorchProbe, cell: MindSporeProbe, owners: Sequence[Tuple[str, str]], ms_grads: Mapping[str, np.ndarray],
                    gradient_args: Sequence[Any], tol: TolFor) -> List[Finding]:
    """One confirmed finding per layer whose differing gradient a single option of torch's layer explains."""
    from migcheck.runners.torch_signature import constructor_settings

    out = []
    for torch_owner, ms_owner in owners:
        try:
            t_kind, _ = module.config(torch_owner)
            m_kind, m_cfg = cell.config(ms_owner)
            settings, defaults = constructor_settings(module, torch_owner)
        except (AttributeError, KeyError):
            continue
        result = search(module, torch_owner, candidates(settings, m_cfg, defaults), ms_grads, gradient_args, tol)
        if result.found is None:
            continue
        c = result.found
        where = f"torch '{torch_owner or '<root>'}' ({t_kind}) / MindSpore '{ms_owner or '<root>'}' ({m_kind})"
        same = c.attr in m_cfg and m_cfg[c.attr] == c.torch_value
        cause = (f"torch's {t_kind} has {c.attr}={c.torch_value!r}, and every forward value agrees; MindSpore's"
                 f" gradients of this layer are torch's with {c.attr}={c.value!r}"
                 + (f": MindSpore's {m_kind} holds {c.attr}={c.torch_value!r} too, but it does not act on the gradient"
                    if same else ""))
        fix = (f"none shown (not re-run on the port): make MindSpore's {m_kind} behave as {c.attr}={c.torch_value!r}"
               + (" (setting it on MindSpore's layer does not act on the gradient: the port needs a gradient of"
                  " its own, e.g. ops.stop_gradient or a custom bprop)" if same else f" (MindSpore's layer holds {c.attr}={m_cfg[c.attr]!r})" if c.attr in m_cfg else
                  f" ({m_kind} has no {c.attr}: the port needs a gradient of its own, e.g. a custom bprop)"))
        evidence = (f"gradient options of torch's {t_kind} tried ({len(result.tried)} in {result.seconds:.2f}s:"
                    f" {', '.join(result.tried)}); re-running torch's gradients with {c.attr}={c.value!r}"
                    " reproduces MindSpore's gradients of that layer")
        out.append(Finding("gradient-option", where, cause, fix, "high", True, False, (where,), evidence))
    return out


def gradient_option_findings(case: Any, ref: Any, module: TorchProbe, cell: MindSporeProbe, mapping: Any,
                             owners: Sequence[Tuple[str, str]], tol: TolFor) -> List[Finding]:
    """option_findings for the owners of failing parameter gradients, with MindSpore's gradients computed once."""
    from migcheck.mapping.transfer import to_mindspore, to_torch

    if not owners:
        return []
    args = (ref.inputs, ref.input_dtypes, ref.objective)
    try:
        cell.load(to_mindspore(ref.weights, mapping))  # a step check's cell has stepped: back to the initial weights
        ms_grads = to_torch(cell.gradients(*args, case.loss.mindspore if case.loss else None).params, mapping)
    except Exception:  # MindSpore's gradients cannot be re-computed here: nothing to compare with
        return []
    return option_findings(module, cell, owners, ms_grads, args + (case.loss.torch if case.loss else None,), tol)
