"""Failures that float32 cannot resolve: re-judged against the float64 truth instead of against torch.

A correct port fails a fixed tolerance when the computation amplifies rounding noise (LayerNorm of
a nearly constant row, a softmax of huge logits, a long cancellation): torch's own float32 result is
then as far from the exact answer as MindSpore's is from torch's. Before a value failure stands, the
torch computation's own error is measured against a float64 re-run (the oracle). Where torch itself
misses the truth by more than the tolerance allows, the tensor is ill-conditioned at that tolerance
and is judged by the error budget instead: MindSpore must be about as close to the truth as torch.
A real defect stays a failure: its error is far above torch's own.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Tuple

import numpy as np

from migcheck.judging.budget import BUDGET_DTYPES, NOISE_LIMIT, judge_budget
from migcheck.judging.compare import TensorComparison
from migcheck.tolerance import Budget
from migcheck.util.tree import as_array, leaves



def torch_own_error(pt: np.ndarray, oracle: np.ndarray, atol: float, rtol: float) -> Tuple[float, bool]:
    """(max |torch - float64 truth|, whether that alone exceeds atol + rtol * |truth| somewhere)."""
    o = oracle.astype(np.float64)
    a = pt.astype(np.float64)
    finite = np.isfinite(o) & np.isfinite(a)
    err = np.where(finite, np.abs(a - o), 0.0)
    return float(err.max(initial=0.0)), bool((err > atol + rtol * np.abs(np.where(finite, o, 0.0))).any())


def ill_conditioned(t: TensorComparison, pt: Optional[np.ndarray], oracle: Optional[np.ndarray]) -> Optional[float]:
    """torch's own error when this failing value tensor is beyond what float32 resolves at its tolerance;
    None when the failure stands as judged (or cannot be checked)."""
    if t.ok or t.kind != "value" or t.torch_dtype not in BUDGET_DTYPES or pt is None or oracle is None:
        return None
    if t.tolerance_source.startswith("random output"):  # judged by distribution already
        return None
    if oracle.shape != pt.shape or pt.size == 0:
        return None
    own, exceeds = torch_own_error(pt, oracle, t.atol, t.rtol)
    scale = float(np.max(np.abs(oracle[np.isfinite(oracle)]), initial=0.0))
    # Rounding noise loses digits, not the value: torch off by more than 10% of the tensor's scale is
    # not float32 noise (a random op drew another mask, or the float64 run went another way).
    return own if exceeds and own <= NOISE_LIMIT * scale else None


def rejudge(tensors: Tuple[TensorComparison, ...], torch_tree: Mapping[str, Any], ms_tree: Mapping[str, Any],
            oracle_tree: Mapping[str, Any], budget: Budget) -> Tuple[TensorComparison, ...]:
    """Each ill-conditioned value failure re-judged by the error budget, saying why; the rest unchanged."""
    pt, ms, oracle = leaves(torch_tree, ""), leaves(ms_tree, ""), leaves(oracle_tree, "")
    out = []
    for t in tensors:
        if t.name in pt and t.name in ms and t.name in oracle:
            a, o = as_array(pt[t.name]), as_array(oracle[t.name])
            own = ill_conditioned(t, a, o)
            if own is not None:
                judged = judge_budget(t, a, as_array(ms[t.name]), o, budget)
                note = (f"ill-conditioned: torch's own {t.torch_dtype} result is up to {own:.3g} off a float64"
                        f" re-run, more than atol={t.atol:g} rtol={t.rtol:g} allow; judged by the error budget"
                        f" instead ({'within' if judged.ok else 'beyond'} what {t.torch_dtype} can resolve)")
                t = dataclasses.replace(judged, notes=judged.notes + (note,),
                                        tolerance_source=f"conditioning: {judged.tolerance_source}")
        out.append(t)
    return tuple(out)


def needs_oracle(tensors: Tuple[TensorComparison, ...]) -> bool:
    """Whether any failure could be float32 noise (worth a float64 re-run of torch to find out)."""
    return any(not t.ok and t.kind == "value" and t.torch_dtype in BUDGET_DTYPES for t in tensors)
