"""Error-budget tolerances (migcheck.judging.budget): MindSpore's error against a float64 torch oracle,
judged relative to torch's own error; real torch and MindSpore layers, tiny shapes."""
import dataclasses

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch.nn as tnn

from migcheck import PairedCase, uniform
from migcheck.judging.budget import judge_budget
from migcheck.judging.compare import compare_arrays
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.running.reference import torch_oracle, torch_reference
from migcheck.tolerance import BUDGET, Budget, Tolerance

WEIGHTS = {"weight": "dense.weight", "bias": "dense.bias"}


class HalfPrecisionDense(mnn.Cell):
    """A port that multiplies in float16 internally and hands back float32."""

    def __init__(self):
        super().__init__()
        self.dense = mnn.Dense(64, 16)

    def construct(self, x):
        y = ops.matmul(x.astype(ms.float16), self.dense.weight.astype(ms.float16).T)
        return y.astype(ms.float32) + self.dense.bias


class PerturbedDense(mnn.Cell):
    """A port whose every output is 1e-4 (relative) off."""

    def __init__(self):
        super().__init__()
        self.dense = mnn.Dense(64, 16)

    def construct(self, x):
        return self.dense(x) * (1 + 1e-4)


class SplitSumDense(mnn.Cell):
    """A correct port that sums the 64 products in two halves: the same function, another rounding order."""

    def __init__(self):
        super().__init__()
        self.dense = mnn.Dense(64, 16)

    def construct(self, x):
        w = self.dense.weight
        return ops.matmul(x[:, :32], w[:, :32].T) + ops.matmul(x[:, 32:], w[:, 32:].T) + self.dense.bias


def _case(name, mindspore, **kwargs):
    # Inputs of magnitude 1000: outputs near zero carry float32 noise of ~1e-4 on both sides,
    # ten times torch.testing's atol, from cancellation in a 64-term dot product.
    case = PairedCase(torch=lambda: tnn.Linear(64, 16), mindspore=mindspore,
                      inputs={"x": uniform(8, 64, low=-1000, high=1000)}, **kwargs)
    return dataclasses.replace(case, name=name, file=f"<{name}>")


def test_float32_noise_fails_standard_tolerances_but_passes_the_budget():
    # Another summation order than torch's kernel, so the float32 noise differs between the sides whatever
    # CPU (and so whatever oneDNN kernel) runs this; mnn.Dense itself may round exactly as torch does.
    case = _case("budget_large_inputs", SplitSumDense, tolerance_mode="budget", weight_map=WEIGHTS)
    standard = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(tolerance_mode="standard"))
    # The fixed float32 tolerance alone calls this a failure; standard mode re-judges it against the
    # float64 oracle because torch's own error already exceeds that tolerance (judging.conditioning).
    (plain,) = standard.tensors
    assert standard.status == "pass" and plain.tolerance_source.startswith("conditioning: error budget")
    assert "ill-conditioned tensor(s) agree within what float32 resolves" in standard.message
    budget = run_item(Item(case, "forward", "pynative", "cpu"))  # the case's own mode
    assert budget.status == "pass", budget.message
    assert budget.tolerance_mode == "budget"
    (out,) = budget.tensors
    assert out.ok and out.oracle_err_ms is not None and out.oracle_err_pt is not None
    assert out.oracle_err_ms <= BUDGET.factor * out.oracle_err_pt + 1e-3
    assert out.budget_limit >= out.oracle_err_ms
    assert out.tolerance_source.startswith("error budget")
    # Both errors are real float32 rounding, measured against the float64 oracle.
    oracle = torch_oracle(case, "forward")["out"]
    ref = torch_reference(case, "forward").results["out"]
    assert oracle.dtype == np.float64 and ref.dtype == np.float32
    assert out.oracle_err_pt == pytest.approx(float(np.abs(ref.astype(np.float64) - oracle).max()))


@pytest.mark.parametrize("port, at_least", [(HalfPrecisionDense, 100.0), (PerturbedDense, 50.0)],
                         ids=["float16-inside", "1e-4-relative"])
def test_a_measurably_less_accurate_port_exceeds_the_budget_with_both_errors_reported(port, at_least):
    case = _case(f"budget_{port.__name__}", port, weight_map=WEIGHTS)
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(tolerance_mode="budget"))
    assert verdict.status == "fail" and verdict.kind == "value", verdict.message
    (out,) = verdict.tensors
    assert out.oracle_err_ms > at_least * out.oracle_err_pt
    assert out.oracle_err_ms > out.budget_limit
    assert "error budget exceeded in out" in verdict.message
    assert f"vs torch's {out.oracle_err_pt:.4g}" in verdict.message


def test_gradients_are_judged_against_float64_oracle_gradients():
    case = _case("budget_backward", lambda: mnn.Dense(64, 16))
    verdict = run_item(Item(case, "backward", "pynative", "cpu"), RunOptions(tolerance_mode="budget"))
    assert verdict.status == "pass", verdict.message
    assert {t.name for t in verdict.tensors} == {"grad.input.x", "grad.param.weight", "grad.param.bias"}
    assert all(t.oracle_err_pt is not None for t in verdict.tensors)
    # The oracle used the float32 reference's own cotangent, widened: same objective, more precision.
    oracle = torch_oracle(case, "backward")
    ref = torch_reference(case, "backward")
    np.testing.assert_allclose(oracle["grad.param.bias"], ref.objective.cotangents[0].astype(np.float64).sum(0),
                               rtol=1e-12)


def _judge(pt, ms, oracle, budget=BUDGET):
    standard = compare_arrays("out", pt, ms, Tolerance(1.3e-6, 1e-5))
    return judge_budget(standard, np.asarray(pt), np.asarray(ms), None if oracle is None else np.asarray(oracle), budget)


def test_exact_agreement_passes_and_the_floor_is_tiny():
    x = np.array([1.0, -2.0, 0.5], np.float32)
    exact = _judge(x, x, x.astype(np.float64))
    assert exact.ok and exact.oracle_err_ms == 0.0 and exact.oracle_err_pt == 0.0
    # The floor is BUDGET.floor_eps float32 epsilons of the largest magnitude: a 1e-5 relative error is far above it.
    off = _judge(x, x * np.float32(1 + 1e-5), x.astype(np.float64))
    assert not off.ok and off.kind == "value" and off.budget_limit == pytest.approx(BUDGET.floor_eps * 2 * np.finfo(np.float32).eps)


def test_factor_is_the_safety_margin():
    oracle = np.array([1.0, 2.0, 3.0])
    pt = (oracle + 1e-6).astype(np.float32)
    ms = (oracle + 3e-6).astype(np.float32)
    assert _judge(pt, ms, oracle).ok  # three times torch's error: inside the default factor 4
    assert not _judge(pt, ms, oracle, Budget(factor=2.0, floor_eps=0.0)).ok


def test_integers_float64_and_missing_oracles_keep_the_standard_judgement():
    ints = _judge(np.array([1, 2]), np.array([1, 3]), np.array([1, 2]))
    assert not ints.ok and ints.oracle_err_ms is None  # exact comparison, untouched
    f64 = _judge(np.array([1.0, 2.0]), np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    assert f64.ok and f64.oracle_err_ms is None and "float64 has no more precise oracle" in f64.notes[-1]
    none = _judge(np.array([1.0], np.float32), np.array([1.0], np.float32), None)
    assert none.ok and "no float64 oracle" in none.notes[-1]
    shape = compare_arrays("out", np.zeros(2, np.float32), np.zeros(3, np.float32), Tolerance(0, 0))
    assert judge_budget(shape, np.zeros(2, np.float32), np.zeros(3, np.float32), np.zeros(2), BUDGET) is shape


def test_a_case_with_an_unknown_tolerance_mode_is_a_definition_error():
    from migcheck.case import case_problems

    case = _case("budget_typo", lambda: mnn.Dense(64, 16), tolerance_mode="budgett")
    assert any("tolerance_mode='budgett'" in problem for problem, _ in case_problems(case))
