"""Causes from configuration, confirmed by counterfactual re-runs of one layer.

For a layer wrong on its own: diff the two sides' effective settings through the correspondence
table, then re-run torch's layer with MindSpore's value (on the inputs torch recorded) and call the
cause confirmed only when that reproduces MindSpore's output. A fix is the port's layer rebuilt with
torch's value; it is shown only when that rebuilt layer then agrees with torch. No framework import:
`module` and `cell` are the runners' objects.
"""
from __future__ import annotations

import dataclasses

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.correspondence import Difference, corresponds, differences, same_named_differences
from migcheck.judging.budget import NOISE_LIMIT
from migcheck.localization.dataflow import close
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


def agree(a: Any, b: Any, tol_for: TolFor, noise: Any = None) -> bool:
    """Within tolerance, widened element by element by `noise`: the reference's own float32 error
    (|float32 run - float64 run| of the same layer), so an ill-conditioned input does not decide."""
    a, b = _first(a), _first(b)
    if a is None or b is None or a.shape != b.shape:
        return False
    rtol, atol = tol_for(str(a.dtype))
    n = _first(noise)
    if n is None or n.shape != a.shape:
        return close(a, b, rtol, atol)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        spread = np.abs(n.astype(np.float64) - a64)
        if not np.all(np.isfinite(spread)) or spread.max(initial=0.0) > NOISE_LIMIT * np.abs(a64).max(initial=0.0):
            # not rounding noise: the layer computes something else in float64 (an eps of finfo(dtype).eps)
            return close(a, b, rtol, atol)
        return bool(np.all(np.abs(a64 - b64) <= atol + rtol * np.abs(a64) + 4 * spread))


def own_error(module: TorchProbe, name: str, inputs: Sequence[np.ndarray], patch: Any = None, pads: Any = None) -> Any:
    """torch's layer re-run in float64 (None when it cannot be): the oracle the float32 result is judged against."""
    try:
        return module.rerun_patched(name, inputs, patch or {}, pads=pads, float64=True)
    except Exception:  # a layer without float64 support: judge at the plain tolerance
        return None


def first_array(tree: Any) -> Optional[np.ndarray]:
    """The first array of an output tree (None when there is none)."""
    return _first(tree)


def nan_from_inf(inputs: Sequence[Any], ms_out: Any, torch_out: Any) -> bool:
    """NaN in MindSpore's result where torch's is finite, from float inputs that hold +-inf (a masked -inf made
    NaN): the results' first arrays, of one shape."""
    t, m = first_array(torch_out), first_array(ms_out)
    if t is None or m is None or t.shape != m.shape or m.dtype.kind != "f":
        return False
    return any(isinstance(x, np.ndarray) and x.dtype.kind == "f" and np.isinf(x).any() for x in inputs) and bool(
        (np.isnan(m) & np.isfinite(t)).any())


def agree_all(a: Any, b: Any, tol_for: TolFor) -> bool:
    """Every array leaf of two outputs agrees (a container returning (scores, argmax) is judged on both, not
    on its first result alone)."""
    xs, ys = _leaves(a), _leaves(b)
    if len(xs) != len(ys):  # trees of other forms (a re-run returning extra leaves): the first result decides
        return agree(a, b, tol_for)
    return bool(xs) and all(agree(x, y, tol_for) for x, y in zip(xs, ys))


def _leaves(tree: Any) -> List[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [x for v in tree for x in _leaves(v)]
    return []


def _first(tree: Any) -> Optional[np.ndarray]:
    if isinstance(tree, np.ndarray):
        return tree
    if isinstance(tree, (list, tuple)):
        return next((x for x in (_first(v) for v in tree) if x is not None), None)
    return None


def _fix_text(diff: Difference) -> str:
    if isinstance(diff.ms_fix, dict):
        return ", ".join(f"{k}={v!r}" for k, v in diff.ms_fix.items())
    return f"{diff.ms_attr}={diff.ms_fix!r}"


def explain(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[np.ndarray],
            torch_out: Any, ms_out: Any, tol_for: TolFor) -> List[Tuple[Difference, bool, str, str]]:
    """(difference, confirmed, checked fix or "", how it was confirmed) for each setting that differs, confirmed
    first. How: "torch" (torch's layer with MindSpore's value reproduces MindSpore), "port" (a same-named setting
    only: the port's cell with torch's value agrees with torch, where torch fixed the setting at construction)."""
    try:
        t_kind, t_cfg = module.config(torch_name)
        m_kind, m_cfg = cell.config(ms_name)
    except (AttributeError, KeyError):
        return []
    shape = np.shape(inputs[0]) if inputs else ()
    out = []
    diffs = differences(t_kind, t_cfg, m_kind, m_cfg, shape)
    guessed = not diffs  # a port's own classes, or a pair the table has no row for: same-named settings
    if guessed:
        diffs = same_named_differences(t_kind, t_cfg, m_kind, m_cfg)
    noise = own_error(module, torch_name, inputs) if diffs else None
    random = bool(diffs) and _random(module, torch_name, inputs)
    for diff in diffs:
        confirmed = _reproduces(module, torch_name, inputs, diff, ms_out, tol_for, random)
        fix = _checked_fix(cell, ms_name, inputs, diff, torch_out, tol_for, noise, random)
        how = "torch" if confirmed else ("port" if guessed and fix else "")
        if guessed and not how:  # a same-named setting is a cause only when a re-run shows it
            continue
        if guessed and fix:  # said as the constructor argument the port set it by, where one holds its value
            diff, fix = _by_constructor(cell, ms_name, m_kind, diff, fix)
        out.append((diff, bool(how), fix, how))
    if len(out) > 1 and not any(ok for _, ok, _, _ in out):  # two settings that explain it only together
        together = _together(module, cell, torch_name, ms_name, inputs, [d for d, _, _, _ in out], torch_out, ms_out,
                             tol_for)
        if together is not None:
            out.insert(0, together)
    if not out:
        from migcheck.localization.class_swap import class_swap

        try:
            swap = class_swap(module, cell, torch_name, ms_name, inputs, torch_out, ms_out, tol_for, agree)
        except Exception:  # a class that cannot be rebuilt or run alone: nothing shown
            swap = None
        if swap is not None:
            out.append(swap)
    return sorted(out, key=lambda d: (not d[1], not d[2]))


def _by_constructor(cell: MindSporeProbe, ms_name: str, m_kind: str, diff: Difference, fix: str
                    ) -> Tuple[Difference, str]:
    """A port's own cell keeps a constructor argument under a shorter attribute name (downscale_freq_shift as
    shift): the argument whose name holds the attribute's and whose value is the attribute's names the fix."""
    try:
        arguments = cell.constructor(ms_name).arguments
    except Exception:  # no constructor to read: the attribute stays the name
        return diff, fix
    key = diff.ms_attr
    named = [a for a in arguments if a.found and a.name != key and key in a.name and isinstance(a.value, (int, float))
             and not isinstance(a.value, bool) and isinstance(diff.ms_value, (int, float))
             and abs(float(a.value) - float(diff.ms_value)) <= 1e-9 * max(1.0, abs(float(a.value)))]
    if len(named) != 1:
        return diff, fix
    arg = named[0].name
    cause = f"{diff.cause}; the port sets it by its constructor's {arg}={named[0].value!r}"
    return dataclasses.replace(diff, cause=cause), f"{m_kind}(..., {arg}={diff.torch_value!r}) (its attribute {key})"


def _together(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, inputs: Sequence[np.ndarray],
              diffs: Sequence[Difference], torch_out: Any, ms_out: Any, tol_for: TolFor
              ) -> Optional[Tuple[Difference, bool, str, str]]:
    """All differing settings patched at once (each alone reproduced nothing): confirmed when torch's layer
    with every MindSpore value reproduces MindSpore, the fix checked with every torch value in the port."""
    plain = [d for d in diffs if not isinstance(d.ms_fix, dict) and d.rule != "pad-mode"]
    if len(plain) < 2:
        return None
    try:
        got = module.rerun_patched(torch_name, inputs, {d.torch_attr: d.ms_as_torch for d in plain})
    except Exception:  # a combination torch's layer cannot take
        return None
    if not agree(got, ms_out, tol_for):
        return None
    combined = Difference(plain[0].rule, plain[0].torch_attr, plain[0].ms_attr, plain[0].torch_value, plain[0].ms_value,
                          plain[0].ms_as_torch, {d.ms_attr: d.ms_fix for d in plain},
                          " and ".join(d.cause for d in plain) + " (together: each alone does not reproduce it)")
    return combined, True, _checked_fix(cell, ms_name, inputs, combined, torch_out, tol_for), "torch"


def _crop(x: np.ndarray, crops: Sequence[Tuple[int, int]]) -> np.ndarray:
    """(before, after) elements cut from each of the last len(crops) axes."""
    lead = x.ndim - len(crops)
    return x[(slice(None),) * lead + tuple(slice(a, x.shape[lead + i] - b) for i, (a, b) in enumerate(crops))]


def _random(module: TorchProbe, name: str, inputs: Sequence[np.ndarray]) -> bool:
    """Whether torch's layer gives another result on a second identical run in train mode (dropout): its
    re-runs are then compared with MindSpore's output by distribution, not element by element."""
    from migcheck.judging.randomness import differs

    try:
        first, second = (_first(module.rerun_patched(name, inputs, {}, train=True)) for _ in range(2))
    except Exception:  # a layer that cannot run alone in train mode
        return False
    return first is not None and second is not None and differs(first, second)


def _same_draw(a: Any, b: Any) -> bool:
    from migcheck.judging.randomness import same_distribution

    a, b = _first(a), _first(b)
    return a is not None and b is not None and same_distribution(a, b)


def _reproduces(module: TorchProbe, name: str, inputs: Sequence[np.ndarray], diff: Difference, ms_out: Any,
                tol_for: TolFor, random: bool = False) -> bool:
    try:
        if diff.rule == "pad-mode" and diff.torch_attr == "padding":
            if not all(isinstance(p, tuple) for p in diff.ms_as_torch):
                return False
            if "Transpose" in module.config(name)[0]:  # MindSpore crops the full output: torch's uncropped, cropped so
                zeros = tuple(0 for _ in diff.ms_as_torch)
                full = _first(module.rerun_patched(name, inputs, {"padding": zeros, "output_padding": zeros}))
                return full is not None and agree(_crop(full, diff.ms_as_torch), ms_out, tol_for)
            patch, pads = {}, diff.ms_as_torch
        else:
            patch, pads = {diff.torch_attr: diff.ms_as_torch}, None
        if random:  # a random layer (dropout): the patched layer drawn in train mode, judged by distribution
            return _same_draw(module.rerun_patched(name, inputs, patch, pads=pads, train=True), ms_out)
        got = module.rerun_patched(name, inputs, patch, pads=pads)
    except Exception:  # a value torch's layer cannot take: not confirmable, not disproved
        return False
    return agree(got, ms_out, tol_for) or agree(got, ms_out, tol_for, own_error(module, name, inputs, patch, pads))


def _checked_fix(cell: MindSporeProbe, name: str, inputs: Sequence[np.ndarray], diff: Difference, torch_out: Any,
                 tol_for: TolFor, noise: Any = None, random: bool = False) -> str:
    override = diff.ms_fix if isinstance(diff.ms_fix, dict) else {diff.ms_attr: diff.ms_fix}
    # Rebuilt from its settings, else the live cell with the attribute set (a port's cell that reads it per call).
    for rerun in (cell.rerun_rebuilt, cell.rerun_with_attributes):
        try:  # a random layer (dropout) is drawn in train mode and judged by distribution
            got = rerun(name, inputs, override, **({"train": True} if random else {}))
        except Exception:  # cannot be re-run this way: try the next, else the fix stays unchecked
            continue
        if random:
            if _same_draw(got, torch_out):
                return _fix_text(diff)
            continue
        # noise is torch's own float32 error, so it widens the band around torch's output (not around `got`).
        if agree(torch_out, got, tol_for) or agree(torch_out, got, tol_for, noise):
            return _fix_text(diff)
    return ""
