"""A failing step whose forward and gradients agree: search the port's own optimizer arguments for the one that
makes its steps torch's, by re-running them.

Candidates come from the two optimizers as built, not from remembered values: for each argument of the port's
optimizer, torch's value of the setting it corresponds to (names aligned by ALIGNED where they differ, by
spelling otherwise; torch's betas split into beta1/beta2), all such differences together, each boolean
flipped, and mindspore.nn's optimizer classes nearest torch's class name built from torch's settings. Each is
stepped on the port from the same initial weights; one whose every step parameter agrees with torch within
tolerance is the confirmed cause, and its call the fix.
"""
from __future__ import annotations

import difflib
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.judging.budget import judge_budget
from migcheck.judging.compare import compare_arrays
from migcheck.knowledge.lookup import optimizer_names
from migcheck.runners.base import Argument, Constructor
from migcheck.tolerance import BUDGET

# torch's setting -> the names MindSpore's optimizers give it, from the knowledge table's optimizer rows (orders
# candidates and names them; a re-run decides)
ALIGNED: Mapping[str, Tuple[str, ...]] = optimizer_names()
MAX_CANDIDATES = 16
SWAPS = 3  # other optimizer classes tried, nearest torch's class name first


@dataclass(frozen=True)
class OptimizerCandidate:
    class_name: str  # "" = the port's own class
    changes: Tuple[Tuple[str, Any], ...]
    why: str  # what it tests, in words
    kept: Tuple[Tuple[str, Any], ...] = ()  # another class: the port's own arguments it also takes (passed on as given)


@dataclass(frozen=True)
class OptimizerFix:
    candidate: OptimizerCandidate
    cause: str
    fix: str
    tried: Tuple[str, ...]
    seconds: float


def _norm(name: str) -> str:
    return name.lower().replace("_", "")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-12)
    return a == b


def torch_value_for(name: str, torch_settings: Mapping[str, Any]) -> Tuple[str, Any]:
    """(torch's key, value) for a MindSpore optimizer argument name, ("", None) when torch has no such setting."""
    for key, names in ALIGNED.items():
        if name in names and key in torch_settings:
            return key, torch_settings[key]
    betas = torch_settings.get("betas")
    if name in ("beta1", "beta2") and isinstance(betas, (tuple, list)) and len(betas) == 2:
        return "betas", betas[0 if name == "beta1" else 1]
    for key, value in torch_settings.items():
        if _norm(key) == _norm(name):
            return key, value
    return "", None


def _settable(arg: Argument, value: Any) -> bool:
    return isinstance(value, (bool, int, float, str, tuple)) and (arg.found or arg.has_default)


def candidates(port: Constructor, others: Sequence[Constructor], torch_class: str,
               torch_settings: Mapping[str, Any]) -> List[OptimizerCandidate]:
    """What to re-run, most telling first: torch's value per aligned argument, all of them together, flipped
    booleans, then the classes nearest torch's."""
    out: List[OptimizerCandidate] = []
    differing: List[Tuple[str, Any]] = []
    for arg in port.arguments:
        key, value = torch_value_for(arg.name, torch_settings)
        if not key or not _settable(arg, value) or (not arg.found and arg.name in ("learning_rate", "lr")):
            continue  # an unread learning rate is a schedule: torch's float would replace it
        if isinstance(arg.value, bool) != isinstance(value, bool) or _same(arg.value, value):
            continue
        if isinstance(arg.value, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # torch's 0 where the port's argument is a float (MindSpore validates the type)
        differing.append((arg.name, value))
        out.append(OptimizerCandidate("", ((arg.name, value),), f"{arg.name}={value!r} (torch's {key})"))
    if len(differing) > 1:
        out.append(OptimizerCandidate("", tuple(differing), "every aligned setting at torch's value"))
    for arg in port.arguments:
        if isinstance(arg.value, bool) and not any(arg.name == n for n, _ in differing):
            out.append(OptimizerCandidate("", ((arg.name, not arg.value),), f"{arg.name}={not arg.value!r} (flipped)"))
    # mindspore.nn's classes nearest torch's class name, then torch's own class as mindspore.experimental.optim
    # has it (its update rule and names are torch's): the fix in mindspore.nn where one steps alike
    near = sorted((c for c in others if c.kind != port.kind and c.arguments  # no signature: nothing to give it
                   and not c.kind.startswith("experimental.")),
                  key=lambda c: -difflib.SequenceMatcher(None, c.kind.lower(), torch_class.lower()).ratio())
    near = near[:SWAPS] + [c for c in others if c.kind == f"experimental.optim.{torch_class}" and c.kind != port.kind
                           and _needs_torchs_class(c, others, port, torch_class, torch_settings)]
    rate = next((a.value for a in port.arguments if a.found and a.name in ("learning_rate", "lr")), None)
    for other in near:
        kwargs = []
        for arg in other.arguments:
            key, value = torch_value_for(arg.name, torch_settings)
            if key and key != "lr" and isinstance(value, (bool, int, float, tuple)) and not (
                    other.kind.startswith("experimental.") and arg.has_default and _same(arg.default, value)):
                kwargs.append((arg.name, value))  # torch's names: a value at its default need not be said
        if other.kind.startswith("experimental.") and not isinstance(rate, float):
            continue  # it takes a float rate only: the port's schedule could not be handed on
        if other.kind.startswith("experimental."):
            kwargs.append(("lr", rate))  # the port's own rate: the update rule is what is tested
        takes = {a.name for a in other.arguments} - {k for k, _ in kwargs}
        kept = tuple((a.name, a.value) for a in port.arguments if a.found and a.name in takes)
        out.append(OptimizerCandidate(other.kind, tuple(kwargs), f"mindspore.{_module(other.kind)} with torch's settings",
                                      kept))
    return out[:MAX_CANDIDATES]


def _needs_torchs_class(torchs: Constructor, others: Sequence[Constructor], port: Constructor, torch_class: str,
                        torch_settings: Mapping[str, Any]) -> bool:
    """torch's class in mindspore.experimental.optim is tried where mindspore.nn has no class of torch's name
    (NAdam), or torch sets a value away from its default that no argument of the port's class holds (Adagrad's
    lr_decay); where mindspore.nn's namesake takes every setting, its own arguments are the fix to find."""
    if not any(c.kind.lower() == torch_class.lower() for c in others if not c.kind.startswith("experimental.")):
        return True
    held = {torch_value_for(a.name, torch_settings)[0] for a in port.arguments}
    return any(a.name in torch_settings and a.name not in held and a.has_default
               and not _same(a.default, torch_settings[a.name]) for a in torchs.arguments)


def differing_settings(port: Constructor, torch_class: str, torch_settings: Mapping[str, Any]) -> List[str]:
    """The aligned settings the two optimizers hold differently, read off both ("centered: torch True, RMSProp False")."""
    out = []
    for arg in port.arguments:
        key, value = torch_value_for(arg.name, torch_settings)
        if key and isinstance(value, (bool, int, float, tuple)) and (arg.found or arg.has_default) \
                and not (not arg.found and arg.name in ("learning_rate", "lr")) and not _same(arg.value, value):
            out.append(f"{key}: torch {torch_class} {_shown(value)}, MindSpore {port.kind}.{arg.name} {_shown(arg.value)}")
    return out


def steps_agree(records: Sequence[Mapping[str, Any]], torch_results: Mapping[str, Any],
                tolerance_for: Callable[[str, str], Any], oracle: Optional[Mapping[str, Any]] = None) -> bool:
    """Whether re-run steps (torch names: [{"state": {name: array}}]) equal every step parameter torch recorded;
    judged as the verdict judges them: within rtol/atol, or within the error budget where the float64 oracle has
    the tensor (a result only the budget doubts passes when no re-run confirms a cause: running/judged.py)."""
    checked = 0
    for name, torch_value in torch_results.items():
        step, _, rest = name.partition(".")
        kind, _, param = rest.partition(".")
        if not step.startswith("step") or kind != "param":
            continue
        k = int(step[4:]) - 1
        if k >= len(records) or param not in records[k]["state"]:
            return False
        tol, source = tolerance_for(name, str(torch_value.dtype))
        compared = compare_arrays(name, torch_value, records[k]["state"][param], tol, source)
        if not compared.ok and oracle is not None and name in oracle:
            compared = judge_budget(compared, np.asarray(torch_value), np.asarray(records[k]["state"][param]),
                                    np.asarray(oracle[name]), BUDGET)
        if not compared.ok:
            return False
        checked += 1
    return checked > 0


def _shown(value: Any) -> str:
    """As a person writes it: MindSpore keeps float32 (0.9990000128746033 is 0.999), a float stays a float."""
    if isinstance(value, float):
        text = f"{value:.6g}"
        return text if any(c in text for c in ".einf") else text + ".0"
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v) for v in value) + ")"
    return repr(value)


def search(port: Constructor, others: Sequence[Constructor], torch_class: str, torch_settings: Mapping[str, Any],
           step: Callable[[OptimizerCandidate], Sequence[Mapping[str, Any]]],
           agree: Callable[[Sequence[Mapping[str, Any]]], bool]) -> Tuple[Optional[OptimizerFix], Tuple[str, ...], float]:
    """Re-run each candidate's steps (step: candidate -> records under torch's names; it raises when MindSpore
    refuses the value); the first whose steps agree is the fix. Returns (fix or None, what was tried, seconds)."""
    started = time.perf_counter()
    try:  # a change can only be the fix if the port as written does not already agree by the same measure
        if agree(step(OptimizerCandidate("", (), "the port as written"))):
            return None, ("the port as written (its steps already agree: nothing for a change to fix)",), \
                time.perf_counter() - started
    except Exception:
        pass
    tried: List[str] = []
    for cand in candidates(port, others, torch_class, torch_settings):
        tried.append(cand.why)
        try:
            records = step(cand)
        except Exception:  # a value or class MindSpore refuses here: not the fix
            tried[-1] += " (refused)"
            continue
        if agree(records):
            seconds = time.perf_counter() - started
            return _described(port, torch_class, torch_settings, cand, tuple(tried), seconds), tuple(tried), seconds
    return None, tuple(tried), time.perf_counter() - started


def _module(class_name: str) -> str:
    """"Adam" -> "nn.Adam"; "experimental.optim.NAdam" stays as it is."""
    return class_name if class_name.startswith("experimental.") else f"nn.{class_name}"


def _described(port: Constructor, torch_class: str, torch_settings: Mapping[str, Any], cand: OptimizerCandidate,
               tried: Tuple[str, ...], seconds: float) -> OptimizerFix:
    held: Dict[str, Any] = {a.name: a.value for a in port.arguments}
    given = ", ".join(f"{k}={_shown(v)}" for k, v in cand.kept + cand.changes)
    if cand.class_name:
        cause = (f"torch's {torch_class} was ported as mindspore.nn.{port.kind}, whose update is not torch's;"
                 f" mindspore.{_module(cand.class_name)} with torch's settings steps as torch's {torch_class}")
        fix = f"mindspore.{_module(cand.class_name)}(params, {given}) in place of mindspore.nn.{port.kind}"
        held_keys = {torch_value_for(a.name, torch_settings)[0] for a in port.arguments}
        unheld = [f"{k}={_shown(v)}" for k, v in cand.changes if k in torch_settings and k not in held_keys
                  and k != "lr" and not _same(v, 0.0)]
        if unheld:  # what the port's class cannot be told (Adagrad's lr_decay)
            cause += f" (torch's {', '.join(unheld)} has no argument in mindspore.nn.{port.kind})"
    else:
        parts = []
        for name, value in cand.changes:
            key, _ = torch_value_for(name, torch_settings)
            parts.append(f"{port.kind}.{name} is {_shown(held.get(name))} where torch's {torch_class} has"
                         f" {key}={_shown(value)}")
        cause = "the optimizers' settings differ: " + "; ".join(parts)
        fix = f"mindspore.nn.{port.kind}(params, ..., {given})"
    cause += f" (re-run: the port's steps with it agree with torch's; {len(tried)} candidate(s) in {seconds:.2f} s)"
    return OptimizerFix(cand, cause, fix, tried, seconds)
