"""conditioning: value failures that float32 cannot resolve, re-judged against a float64 truth. Pure numpy."""
from __future__ import annotations

import numpy as np

from migcheck.judging.compare import compare_arrays
from migcheck.judging.conditioning import ill_conditioned, needs_oracle, rejudge
from migcheck.tolerance import BUDGET, Tolerance

F32 = Tolerance(1.3e-6, 1e-5)


def _normalize(x: np.ndarray) -> np.ndarray:
    """(x - mean) / std along the last axis, in x's own dtype: ill-conditioned for nearly constant rows."""
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + x.dtype.type(1e-12))


def _near_constant_rows(seed: int) -> np.ndarray:
    return 10.0 + 1e-3 * np.random.default_rng(seed).standard_normal((4, 64))


def test_a_faithful_float32_port_of_an_ill_conditioned_computation_passes_against_the_truth():
    x64 = _near_constant_rows(0)
    truth = _normalize(x64)
    torch_like = _normalize(x64.astype(np.float32))
    # Another float32 evaluation order: same algorithm, different rounding (as another framework's kernel).
    port = _normalize(x64.astype(np.float32)[:, ::-1])[:, ::-1]
    t = compare_arrays("out", torch_like, port, F32, "float32 default")
    assert not t.ok and t.kind == "value"  # the fixed tolerance calls it a failure
    assert needs_oracle((t,)) and ill_conditioned(t, torch_like, truth) is not None
    (judged,) = rejudge((t,), {"out": torch_like}, {"out": port}, {"out": truth}, BUDGET)
    assert judged.ok and judged.tolerance_source.startswith("conditioning: error budget")
    assert any("ill-conditioned" in n and "within" in n for n in judged.notes)


def test_a_real_difference_on_the_same_input_still_fails():
    x64 = _near_constant_rows(0)
    truth = _normalize(x64)
    torch_like = _normalize(x64.astype(np.float32))
    x32 = x64.astype(np.float32)
    mean = x32.mean(axis=-1, keepdims=True)
    wrong_eps = (x32 - mean) / np.sqrt(((x32 - mean) ** 2).mean(axis=-1, keepdims=True) + np.float32(1e-8))
    t = compare_arrays("out", torch_like, wrong_eps, F32, "float32 default")
    (judged,) = rejudge((t,), {"out": torch_like}, {"out": wrong_eps}, {"out": truth}, BUDGET)
    assert not judged.ok and any("beyond" in n for n in judged.notes)


def test_a_well_conditioned_failure_is_left_as_judged():
    x = np.random.default_rng(1).standard_normal((3, 5))
    torch_like = x.astype(np.float32)
    port = torch_like + np.float32(1e-3)
    t = compare_arrays("out", torch_like, port, F32, "float32 default")
    assert ill_conditioned(t, torch_like, x) is None
    assert rejudge((t,), {"out": torch_like}, {"out": port}, {"out": x}, BUDGET) == (t,)


def test_only_float_value_failures_ask_for_an_oracle():
    ok = compare_arrays("a", np.float32([1.0]), np.float32([1.0]), F32, "")
    shape = compare_arrays("b", np.float32([1.0]), np.float32([1.0, 2.0]), F32, "")
    ints = compare_arrays("c", np.int64([1]), np.int64([2]), Tolerance(0, 0), "exact")
    assert not needs_oracle((ok, shape, ints))


def test_torch_far_from_its_own_float64_run_is_not_noise():
    """A random op (another dropout mask in the float64 run) is off by O(1): never excused as rounding."""
    truth = np.random.default_rng(2).standard_normal((8, 8))
    torch_like = (truth * (np.random.default_rng(3).random((8, 8)) > 0.3)).astype(np.float32)
    t = compare_arrays("out", torch_like, torch_like + np.float32(0.5), F32, "float32 default")
    assert ill_conditioned(t, torch_like, truth) is None
