"""Error-budget judging (numpy only): is MindSpore about as accurate as torch, measured against float64?

Standard tolerances ask "is |ms - pt| small?" with fixed rtol/atol. Where both sides carry float32
rounding noise larger than those tolerances (long reductions, cancellation near zero, large
magnitudes) that raises false alarms. Budget mode instead runs the torch module once more in
float64 (the oracle) and asks, per float tensor,

    max |ms - oracle|  <=  factor * max |pt - oracle|  +  floor

with floor = floor_eps * eps(dtype) * max |oracle|. A port passes when its error is at most
``factor`` times the error torch itself makes at that precision.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Tuple

import numpy as np

from migcheck.judging.compare import MAX_SAMPLES, Sample, TensorComparison
from migcheck.tolerance import Budget
from migcheck.util.tree import as_array, leaves

# Dtypes that the oracle is more precise than. float64 tensors have no better oracle here, and
# integers and booleans compare exactly: those keep the standard judgement.
BUDGET_DTYPES = ("float16", "float32", "complex64")
NOISE_LIMIT = 0.1  # torch's own error beyond this fraction of the tensor's scale is not rounding noise


def budget_source(budget: Budget) -> str:
    return f"error budget: {budget.factor:g} x torch's error vs a float64 oracle + {budget.floor_eps:g} eps"


def apply_budget(tensors: Tuple[TensorComparison, ...], torch_tree: Mapping[str, Any], ms_tree: Mapping[str, Any],
                 oracle_tree: Mapping[str, Any], budget: Budget) -> Tuple[TensorComparison, ...]:
    """Re-judge each comparable float tensor by the error budget; the others keep their verdict."""
    pt, ms, oracle = leaves(torch_tree, ""), leaves(ms_tree, ""), leaves(oracle_tree, "")
    out = []
    for t in tensors:
        if t.name in pt and t.name in ms:
            t = judge_budget(t, as_array(pt[t.name]), as_array(ms[t.name]),
                             as_array(oracle[t.name]) if t.name in oracle else None, budget)
        out.append(t)
    return tuple(out)


def judge_budget(t: TensorComparison, pt: np.ndarray, ms: np.ndarray, oracle: Optional[np.ndarray],
                 budget: Budget) -> TensorComparison:
    """One tensor's budget verdict: the standard comparison ``t`` with ok/kind/message replaced."""
    if t.kind in ("shape", "dtype", "tree", "nonfinite", "empty"):
        return t  # more fundamental than accuracy: stays as it is
    if t.torch_dtype not in BUDGET_DTYPES:
        if dtype_is_float(t.torch_dtype):
            return _note(t, f"budget mode: {t.torch_dtype} has no more precise oracle here; judged by the standard tolerance")
        return t
    if oracle is None or oracle.shape != pt.shape:
        return _note(t, "budget mode: no float64 oracle for this tensor; judged by the standard tolerance")
    if pt.size == 0:
        return t
    flat_pt, flat_ms, flat_o = pt.reshape(-1), ms.reshape(-1), oracle.reshape(-1)
    max_ms = max_pt = scale = 0.0
    worst = 0
    for start, err_ms, err_pt, mag in _chunks(flat_pt, flat_ms, flat_o):  # first pass: the three maxima
        i = int(np.argmax(err_ms))
        if err_ms[i] > max_ms:
            max_ms, worst = float(err_ms[i]), start + i
        max_pt, scale = max(max_pt, float(err_pt.max())), max(scale, float(mag.max()))
    if max_pt > NOISE_LIMIT * scale:
        # Rounding loses digits, not the value: a random op drew again, the float64 run took another branch,
        # or every value cancels to about zero, where float32 keeps only noise.
        return _note(t, f"budget mode: torch's own {t.torch_dtype} result is {max_pt:.3g} off its float64 re-run, over"
                        f" {NOISE_LIMIT:g} of the tensor's largest value {scale:.3g} (values that cancel to about zero,"
                        f" a random op, or a branch taken differently): no oracle for rounding here; judged by rtol/atol")
    floor = budget.floor_eps * float(np.finfo(np.dtype(t.torch_dtype)).eps) * scale
    limit = budget.factor * max_pt + floor
    ok = max_ms <= limit
    mismatched, bad_at = 0, []
    if not ok:  # second pass, for failures only: how many elements, and the first few
        for start, err_ms, _, _ in _chunks(flat_pt, flat_ms, flat_o):
            over = np.flatnonzero(err_ms > limit)
            mismatched += int(over.size)
            bad_at += [start + int(j) for j in over[:MAX_SAMPLES - len(bad_at)]]
    at = _sample(pt, ms, worst)
    side = f"mindspore err {max_ms:.3g} vs torch err {max_pt:.3g}"
    if ok:
        message = f"{t.name}: within error budget ({side}; limit {limit:.3g})"
    else:
        ratio = max_ms / max_pt if max_pt > 0 else float("inf")
        message = (f"error budget exceeded in {t.name}: max |mindspore - float64 oracle| {max_ms:.4g} at {at.index}"
                   f" vs torch's {max_pt:.4g}: {ratio:.3g}x torch's error, limit {limit:.4g}"
                   f" = {budget.factor:g} x torch's + floor {floor:.2g}; {mismatched} of {pt.size} elements over it"
                   + ("; " + t.message.replace(f"value mismatch in {t.name}: ", "by rtol/atol as well: ", 1) if not t.ok
                      else f"; within atol={t.atol:g} rtol={t.rtol:g}"))
    notes = t.notes
    return dataclasses.replace(
        t, ok=ok, kind=None if ok else "value", message=message, tolerance_source=budget_source(budget),
        mismatched=mismatched, mismatched_fraction=mismatched / pt.size,
        first_mismatches=tuple(_sample(pt, ms, i) for i in bad_at),
        oracle_err_ms=max_ms, oracle_err_pt=max_pt, budget_limit=limit, budget_floor=floor, standard_ok=t.ok, notes=notes,
        error_sample=t.error_sample if not ok else None)


CHUNK = 1 << 16  # elements per pass: float64 work arrays stay small whatever the tensor's size (as in compare.py)


def _chunks(pt: np.ndarray, ms: np.ndarray, oracle: np.ndarray):
    """(start, |ms - oracle|, |pt - oracle|, |oracle|) per chunk of the flattened tensors, 0 where any is not finite."""
    wide = np.complex128 if np.iscomplexobj(oracle) else np.float64
    for start in range(0, pt.size, CHUNK):
        o = oracle[start:start + CHUNK].astype(wide, copy=False)
        a, b = pt[start:start + CHUNK].astype(wide), ms[start:start + CHUNK].astype(wide)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf where not finite: masked out below
            err_ms, err_pt, mag = np.abs(b - o), np.abs(a - o), np.abs(o)
        if np.isfinite(err_ms).all() and np.isfinite(err_pt).all():  # the common case: all three finite
            yield start, err_ms, err_pt, mag
            continue
        finite = np.isfinite(o) & np.isfinite(a) & np.isfinite(b)
        yield start, np.where(finite, err_ms, 0.0), np.where(finite, err_pt, 0.0), np.where(finite, mag, 0.0)


def budget_judged(t: TensorComparison) -> bool:
    """Whether the error budget decided this tensor (else its standard comparison stands)."""
    return t.oracle_err_ms is not None and t.tolerance_source.startswith("error budget")


def budget_summary(tensors: Tuple[TensorComparison, ...]) -> str:
    """'; error budget: ...' naming the tensor closest to its limit with both errors, or '' if none was budget-judged."""
    judged = [t for t in tensors if budget_judged(t)]
    if not judged:
        return ""
    t = max(judged, key=lambda t: t.oracle_err_ms / t.budget_limit if t.budget_limit else 0.0)
    ratio = f"{t.oracle_err_ms / t.oracle_err_pt:.3g}x" if t.oracle_err_pt else "n/a"
    return (f"; error budget vs float64: closest {t.name}, mindspore err {t.oracle_err_ms:.3g} vs torch float32 err"
            f" {t.oracle_err_pt:.3g} ({ratio}, limit {t.budget_limit:.3g})")


def dtype_is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat", "complex"))


def _note(t: TensorComparison, note: str) -> TensorComparison:
    return dataclasses.replace(t, notes=t.notes + (note,))


def _sample(a: np.ndarray, b: np.ndarray, flat: int) -> Sample:
    index = tuple(int(i) for i in np.unravel_index(flat, a.shape)) if a.ndim else ()
    return Sample(index, _real(a.flat[flat]), _real(b.flat[flat]))


def _real(value: Any) -> float:
    return float(value.real) if np.iscomplexobj(value) else float(value)
