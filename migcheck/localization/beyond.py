"""Confirmation beyond the case's own inputs, for a change to the port's construct that made it agree there.

A change can make the case's one input agree and still not be the porter's mistake: on a square map, meshgrid's
results taken in the other order equal indexing='ij'; on inputs without NaN, ops.fmax equals torch.max(a, b).
Two measurements tell such candidates apart, both generated from the case, never from a list of answers:

- a second input (`SecondInputs`): fresh seeded values of the same shapes, and, where torch's module accepts
  them, inputs of another shape (the last axis of every float input of rank >= 3 two longer: a non-square map;
  the leading axis one longer: another batch size). torch's module is re-run on each for the reference; the
  changed construct must agree with it on every one (`check`).
- edge values (`edge_check`): a function put in place of the port's call is fed, with torch's op, the op's
  recorded inputs with NaN, +inf, -inf or -0.0 written in, and equal inputs (ties); it must give torch's results.

A candidate that fails either is not the confirmed cause; the search goes on to the next one. No framework
import: `module` and `cell` are the runners' probes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.op_candidates import shown_function
from migcheck.localization.confirm import agree, own_error
from migcheck.records.ops import OpChange
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
SEED = 22


@dataclass(frozen=True)
class Beyond:
    """Whether a candidate held beyond the case's input, and what that covered (or where it failed), in words."""

    ok: bool
    words: str
    failed: int = 0  # edge values where it differs from torch's op (fewest: the closest candidate)
    failed_at: Tuple[str, ...] = ()  # those edge values, in words ("NaN in input 0")


def _floating(x: Any) -> bool:
    return isinstance(x, np.ndarray) and np.issubdtype(x.dtype, np.floating)


def _fresh(x: np.ndarray, shape: Tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """New values in the recorded tensor's own range; a constant tensor stays constant."""
    finite = x[np.isfinite(x)] if x.size else x
    if finite.size == 0:
        return np.resize(x, shape)
    lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        return np.full(shape, lo, x.dtype)
    return rng.uniform(lo, hi, shape).astype(x.dtype)


def _variants(inputs: Sequence[Any], rng: np.random.Generator) -> List[Tuple[str, List[Any]]]:
    """(what in words, inputs): fresh values of the same shapes, then other shapes torch may accept."""
    out = [("fresh values of the same shapes", [_fresh(x, x.shape, rng) if _floating(x) else x for x in inputs])]
    wide = [x for x in inputs if _floating(x) and x.ndim >= 3]
    if wide:
        changed = [_fresh(x, x.shape[:-1] + (x.shape[-1] + 2,), rng) if _floating(x) and x.ndim >= 3 else x
                   for x in inputs]
        out.append((f"an input of shape {_shape(changed)} (last axis longer)", changed))
    first = next((x for x in inputs if isinstance(x, np.ndarray) and x.ndim >= 1), None)
    if first is not None:
        n = first.shape[0]
        rows = [i % n for i in range(n + 1)]

        def grown(x: Any) -> Any:
            if not isinstance(x, np.ndarray) or x.ndim < 1 or x.shape[0] != n:
                return x
            return _fresh(x, (n + 1,) + x.shape[1:], rng) if _floating(x) else np.take(x, rows, axis=0)

        changed = [grown(x) for x in inputs]
        out.append((f"an input of shape {_shape(changed)} (another batch size)", changed))
    return out


def _shape(arrays: Sequence[Any]) -> str:
    shapes = [tuple(x.shape) for x in arrays if isinstance(x, np.ndarray)]
    return ", ".join(str(s) for s in shapes[:2]) + (" ..." if len(shapes) > 2 else "")


def _has_nan(tree: Any) -> bool:
    if isinstance(tree, np.ndarray):
        return bool(np.issubdtype(tree.dtype, np.floating) and np.isnan(tree).any())
    if isinstance(tree, (list, tuple)):
        return any(_has_nan(v) for v in tree)
    return False


class SecondInputs:
    """The second inputs of one container and torch's outputs on them, built on first use (only a candidate that
    agreed on the case's input pays for them)."""

    def __init__(self, module: TorchProbe, torch_name: str, inputs: Sequence[Any], torch_out: Any,
                 tol_for: TolFor) -> None:
        self.module, self.torch_name, self.inputs, self.torch_out, self.tol_for = (module, torch_name, inputs,
                                                                                   torch_out, tol_for)
        self._sets: Optional[List[Tuple[str, List[Any], Any]]] = None
        self.note = ""  # why fewer inputs were tried

    def sets(self) -> List[Tuple[str, List[Any], Any]]:
        if self._sets is not None:
            return self._sets
        self._sets = []
        try:  # torch's module re-run alone must give what it gave in the forward, or it cannot be the reference
            again = self.module.rerun_patched(self.torch_name, list(self.inputs), {})
        except Exception:  # a module that cannot run alone on these inputs
            again = None
        if again is None or not agree(self.torch_out, again, self.tol_for):
            self.note = "torch's module, re-run alone, does not reproduce its output, so no second input was tried"
            return self._sets
        refused = []
        for words, arrays in _variants(self.inputs, np.random.default_rng(SEED)):
            try:
                out = self.module.rerun_patched(self.torch_name, arrays, {})
            except Exception:  # torch refuses this shape: it says nothing about the port
                refused.append(words)
                continue
            if _has_nan(out) and not _has_nan(self.torch_out):
                continue
            self._sets.append((words, arrays, out))
        if refused:
            self.note = f"torch's module refused {', '.join(w.split(' (')[0] for w in refused)}"
        return self._sets

    def check(self, cell: MindSporeProbe, ms_name: str, change: OpChange) -> Beyond:
        """The changed construct on every second input against torch's module on it."""
        return self.check_run(lambda arrays: cell.trace_ops(ms_name, arrays, change)[1])

    def check_run(self, run: Callable[[List[Any]], Any]) -> Beyond:
        """The port with one change, run by `run` on every second input, against torch's module on it."""
        sets = self.sets()
        for words, arrays, torch_out in sets:
            try:
                got = run(arrays)
            except Exception:  # the changed port refuses an input torch accepts
                got = None
            if got is None:
                return Beyond(False, f"it agrees on the case's input but raises on {words}, which torch's module"
                                     f" accepts")
            if not agree(torch_out, got, self.tol_for) and not agree(torch_out, got, self.tol_for,
                                                                      own_error(self.module, self.torch_name, arrays)):
                return Beyond(False, f"it agrees on the case's input but not on {words}")
        if not sets:
            return Beyond(True, f"confirmed on the case's input only ({self.note or 'no second input'})")
        return Beyond(True, "confirmed beyond the case's input: it agrees on " + "; ".join(w for w, _, _ in sets))


EDGES = (("NaN", np.nan), ("+inf", np.inf), ("-inf", -np.inf), ("-0.0", -0.0))


def edge_sets(inputs: Sequence[np.ndarray]) -> List[Tuple[str, List[np.ndarray]]]:
    """The op's inputs with one special value written into one float input (first element), then every float
    input of one shape equal to the first (ties)."""
    floats = [i for i, x in enumerate(inputs) if _floating(x) and x.size]
    out = []
    for i in floats[:2]:
        for words, value in EDGES:
            arrays = [x.copy() for x in inputs]
            arrays[i].reshape(-1)[0] = value
            out.append((f"{words} in input {i}", arrays))
    same = [i for i in floats if inputs[i].shape == inputs[floats[0]].shape] if floats else []
    if len(same) >= 2:
        arrays = [x.copy() for x in inputs]
        for i in same[1:]:
            arrays[i] = arrays[same[0]].copy()
        out.append(("ties (equal inputs)", arrays))
    return out


def _same_results(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    if not a or len(b) < 1 or a[0].shape != b[0].shape:
        return False
    x, y = a[0].astype(np.float64), b[0].astype(np.float64)
    return bool(np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True))


def edge_check(module: TorchProbe, cell: MindSporeProbe, torch_owner: str, torch_index: int,
               torch_inputs: Sequence[np.ndarray], ms_inputs: Sequence[np.ndarray], change: OpChange,
               same: Callable[[np.ndarray, np.ndarray], bool]) -> Beyond:
    """The function a change puts in place of the port's call, against torch's op on edge values."""
    # the port's tensor i is torch's tensor j of equal value: both sides get the same edge values
    torch_of = {i: next((j for j, t in enumerate(torch_inputs) if x.shape == t.shape and same(x, t)), None)
                for i, x in enumerate(ms_inputs)}
    tried, failed = [], []
    fed = {torch_of.get(i) for _, i in change.tensors} - {None}  # torch's tensors the function is handed
    for words, arrays in edge_sets(list(torch_inputs)):
        changed = {j for j, (a, b) in enumerate(zip(arrays, torch_inputs))
                   if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True)}
        if changed - fed:  # an edge value in a tensor the function takes as a constant (bucketize's boundaries)
            continue
        try:
            want = module.rerun_op(torch_owner, torch_index, arrays)
        except Exception:  # torch's op cannot be re-run alone: these edge values decide nothing
            continue
        tensors = {}
        for param, i in change.tensors:
            j = torch_of.get(i)
            tensors[param] = arrays[j] if j is not None else ms_inputs[i]
        try:
            got = cell.run_function(change.replace, tensors, dict(change.arguments))
        except Exception:
            got = []
        (tried if _same_results(want, got) else failed).append(words)
    if failed:
        return Beyond(False, f"{shown_function(change.replace)} differs from torch's op at {', '.join(failed)}"
                             + (f"; agrees at the other {len(tried)} edge values" if tried else ""), len(failed),
                      tuple(failed))
    if not tried:
        return Beyond(True, "")
    return Beyond(True, "it also computes as torch's op does at edge values (" + ", ".join(tried) + ")")
