"""Which optimizer update rule produced a first step, found by recomputing each candidate. Pure numpy.

When forward and gradients agree and the parameters after the first step do not, the defect is the
optimizer. For one parameter, its value before (p0), its gradient (g) and its value after step 1
(p1) pin the rule down: from a fresh state every optimizer's first step is a closed formula of
p0, g and its hyperparameters. Each candidate below is recomputed with torch's hyperparameters; the
rule that reproduces a side's p1 (to a tolerance scaled to the update) is *that side's rule*. A
finding built from two identified rules is confirmed by recomputation, not guessed from names.
One step cannot tell every pair apart: Adagrad from a zero accumulator steps as Adam does. The torch
optimizer's class orders the candidates, so each side is named by the rule it is meant to follow first.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.knowledge.lookup import update_rules


@dataclass(frozen=True)
class Hyper:
    """One parameter's optimizer hyperparameters, in torch's names (what the original asked for)."""

    lr: float
    weight_decay: float = 0.0
    momentum: float = 0.0
    nesterov: bool = False
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    alpha: float = 0.99  # RMSProp's smoothing constant
    initial_accumulator: float = 0.0  # Adagrad


Rule = Callable[[np.ndarray, np.ndarray, Hyper], np.ndarray]


def _sgd(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    return p - h.lr * (g + h.weight_decay * p)  # momentum's first step: buffer = gradient


def _sgd_nesterov(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    return p - h.lr * (d + h.momentum * d)


def _adam(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p  # torch Adam: L2 added to the gradient
    m_hat, v_hat = d, d * d  # (1-b1)d / (1-b1), (1-b2)d^2 / (1-b2)
    return p - h.lr * m_hat / (np.sqrt(v_hat) + h.eps)


def _adam_eps_before_correction(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    m, v = (1 - h.beta1) * d, (1 - h.beta2) * d * d
    return p - h.lr * np.sqrt(1 - h.beta2) / (1 - h.beta1) * m / (np.sqrt(v) + h.eps)


def _adamw(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    return p * (1 - h.lr * h.weight_decay) - h.lr * g / (np.abs(g) + h.eps)


def _adam_no_bias_correction(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    m, v = (1 - h.beta1) * g, (1 - h.beta2) * g * g
    return p - h.lr * (m / (np.sqrt(v) + h.eps) + h.weight_decay * p)


def _rmsprop(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    v = (1 - h.alpha) * d * d
    return p - h.lr * d / (np.sqrt(v) + h.eps)


def _rmsprop_eps_inside_sqrt(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    v = (1 - h.alpha) * d * d
    return p - h.lr * d / np.sqrt(v + h.eps)


def _rmsprop_tf(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    v = h.alpha + (1 - h.alpha) * d * d  # the mean square starts at 1, not 0
    return p - h.lr * d / np.sqrt(v + h.eps)


def _adagrad(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    return p - h.lr * d / (np.sqrt(h.initial_accumulator + d * d) + h.eps)


def _adagrad_accumulator_0_1(p: np.ndarray, g: np.ndarray, h: Hyper) -> np.ndarray:
    d = g + h.weight_decay * p
    return p - h.lr * d / np.sqrt(0.1 + d * d)


# id -> (what it is, in words; the first step's formula)
RULES: Dict[str, Tuple[str, Rule]] = {
    "sgd": ("SGD (with or without momentum, no Nesterov)", _sgd),
    "sgd-nesterov": ("SGD with Nesterov momentum", _sgd_nesterov),
    "adam": ("Adam with eps added after bias correction (torch.optim.Adam)", _adam),
    "adam-eps-before-correction": ("Adam with eps added before bias correction (as mindspore.nn.Adam does)",
                                   _adam_eps_before_correction),
    "adamw": ("AdamW: bias-corrected, weight decay decoupled (torch.optim.AdamW)", _adamw),
    "adam-no-bias-correction": ("Adam without bias correction, decay added to the update"
                                " (as mindspore.nn.AdamWeightDecay does)", _adam_no_bias_correction),
    "rmsprop": ("RMSProp with eps outside the square root (torch.optim.RMSprop)", _rmsprop),
    "rmsprop-eps-inside-sqrt": ("RMSProp with eps inside the square root (TF style, as mindspore.nn.RMSProp does)",
                                _rmsprop_eps_inside_sqrt),
    "rmsprop-tf": ("RMSProp, TF style: the mean square starts at 1 and eps is inside the square root"
                   " (as mindspore.nn.RMSProp does)", _rmsprop_tf),
    "adagrad": ("Adagrad with accumulator starting at initial_accumulator_value, eps outside (torch.optim.Adagrad)",
                _adagrad),
    "adagrad-accumulator-0.1": ("Adagrad with the accumulator starting at 0.1 and no eps (mindspore.nn.Adagrad's"
                                " default accum=0.1)", _adagrad_accumulator_0_1),
}
# Which rule torch's optimizer class follows (how the torch side is recognised first) is the knowledge table's
# update column (migcheck.knowledge.lookup.update_rules).


@dataclass(frozen=True)
class Match:
    rule: str  # an id in RULES
    decayed: bool  # with weight decay as torch's hyperparameters say, or without any
    residual: float  # max |recomputed - observed|, relative to the update's size


def identify(p0: np.ndarray, g: np.ndarray, p1: np.ndarray, hyper: Hyper, *, tolerance: float = 1e-3,
             order: Sequence[str] = ()) -> Optional[Match]:
    """The first rule (in `order`, then RULES' order) that recomputes p1 from p0 and g within tolerance
    of the update's size; each rule is tried with torch's weight decay and with none. None: no rule does."""
    p0, g, p1 = (np.asarray(a, dtype=np.float64) for a in (p0, g, p1))
    scale = float(np.max(np.abs(p1 - p0), initial=0.0))
    if scale == 0.0:
        return None  # nothing moved: no update to explain
    ids = list(dict.fromkeys(list(order) + list(RULES)))
    decays = (True, False) if hyper.weight_decay else (True,)
    for rule in ids:
        for decayed in decays:
            h = hyper if decayed else replace(hyper, weight_decay=0.0)
            with np.errstate(all="ignore"):
                residual = float(np.max(np.abs(RULES[rule][1](p0, g, h) - p1), initial=0.0)) / scale
            if residual <= tolerance:
                return Match(rule, decayed, residual)
    return None


@dataclass(frozen=True)
class UpdateBlame:
    """Per-parameter rules of both sides, grouped where they differ."""

    torch_rules: Mapping[str, Optional[Match]]
    ms_rules: Mapping[str, Optional[Match]]
    differing: Tuple[str, ...]  # parameters whose first update differs

    @property
    def decay_skipped(self) -> Tuple[str, ...]:
        """Parameters whose two sides follow one rule, decayed in torch and not in MindSpore (a decay filter)."""
        out = []
        for name in self.differing:
            t, m = self.torch_rules.get(name), self.ms_rules.get(name)
            if t is not None and m is not None and t.rule == m.rule and t.decayed and not m.decayed:
                out.append(name)
        return tuple(out)

    def describe(self) -> Tuple[str, bool]:
        """(the cause in words, whether every differing parameter's two rules were identified)."""
        groups: Dict[Tuple[str, str], List[str]] = {}
        identified = True
        for name in self.differing:
            t, m = self.torch_rules.get(name), self.ms_rules.get(name)
            # One rule on both sides explains nothing: the update then differs by its arithmetic alone.
            identified = identified and t is not None and m is not None and _label(t) != _label(m)
            groups.setdefault((_label(t), _label(m)), []).append(name)
        parts = [f"torch's update of {_names(names)} is {t_label}; MindSpore's is {m_label}" if t_label != m_label
                 else f"both sides update {_names(names)} by {t_label}: no rule differs, only the arithmetic"
                 for (t_label, m_label), names in groups.items()]
        return "; ".join(parts), identified


def _label(match: Optional[Match]) -> str:
    if match is None:
        return "none of the known rules"
    text = RULES[match.rule][0]
    return text if match.decayed else f"{text} without weight decay"


def _names(names: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def blame_update(first_step: Mapping[str, Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
                 hypers: Mapping[str, Hyper], torch_class: str, differing: Sequence[str],
                 ms_hypers: Optional[Mapping[str, Hyper]] = None) -> UpdateBlame:
    """first_step: name -> (p0, gradient, torch's p1, MindSpore's p1), gradients agreeing on both sides.

    MindSpore's update is tried with torch's hyperparameters first (the port meant the same ones), then
    with those read off its own optimizer (ms_hypers), which catch a default that differs."""
    order = update_rules(torch_class)  # the knowledge table's update column
    torch_rules, ms_rules = {}, {}
    for name in differing:
        p0, g, p1_t, p1_m = first_step[name]
        torch_rules[name] = identify(p0, g, p1_t, hypers[name], order=order)
        ms_rules[name] = identify(p0, g, p1_m, hypers[name], order=order)
        if ms_rules[name] is None and ms_hypers and name in ms_hypers:
            ms_rules[name] = identify(p0, g, p1_m, ms_hypers[name], order=order)
    return UpdateBlame(torch_rules, ms_rules, tuple(differing))
