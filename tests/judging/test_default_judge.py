"""The error budget against float64 is the default judge (issue 24): a LayerNorm epsilon left at MindSpore's
1e-7 fails and names eps while its correct twin passes; tolerances written for rtol/atol keep judging by
rtol/atol and say so; a too-wide rtol is refused; the grey zone (beyond the budget, within rtol/atol) fails
only with a cause a re-run confirmed; correct large-gradient Conv-BN-ReLU ports pass at every seed tried."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from migcheck import PairedCase, Tolerance, normal
from migcheck.judging.compare import compare_arrays
from migcheck.options import OptionError, RunOptions, build
from migcheck.records.findings import Finding, Localization
from migcheck.running.judged import settle_grey_zone
from migcheck.running.outcome import Outcome
from migcheck.serialize import verdict_from_json, verdict_to_json
from migcheck.tolerance import BUDGET, MAX_RTOL, choose_mode

ROOT = Path(__file__).resolve().parents[2]


def test_the_budget_is_the_default_and_written_tolerances_keep_rtol_atol():
    assert choose_mode(None, False, None, False) == ("budget", "default")
    assert choose_mode("standard", False, None, False)[0] == "standard"
    assert choose_mode(None, True, None, False) == ("standard", "--rtol/--atol given")
    mode, why = choose_mode(None, False, None, True)
    assert mode == "standard" and "tolerance=" in why
    assert choose_mode(None, False, "budget", True)[0] == "budget"  # the case asked for the budget by name
    assert choose_mode("budget", True, "standard", True)[0] == "budget"  # --tolerance-mode wins over everything


def test_an_rtol_that_lets_a_different_activation_pass_is_refused():
    x = np.random.default_rng(0).normal(0, 1, 4096).astype(np.float32)
    sigmoid, relu = (1 / (1 + np.exp(-x))).astype(np.float32), np.maximum(x, 0)
    # Sigmoid ported as ReLU passes only from an rtol above the refusal threshold...
    assert compare_arrays("out", sigmoid, relu, Tolerance(0.0, 1e-5)).min_rtol >= MAX_RTOL
    # ...and a correct pair needs none of it.
    assert compare_arrays("out", sigmoid, sigmoid, Tolerance(1e-6, 0.0)).ok
    with pytest.raises(OptionError, match=r"--rtol: rtol=1e\+09: every value passes"):
        build({"rtol": "1e9"})
    assert build({"rtol": "0.5"}).rtol == 0.5
    assert any("every value passes" in p for p in Tolerance(1e9, 0.0).problems())
    assert not Tolerance(0.5, 0.0).problems()


def _failing_tensor(standard_ok: bool):
    pt = np.linspace(-1, 1, 8, dtype=np.float32)
    t = compare_arrays("out", pt, pt + np.float32(3e-6), Tolerance(1.3e-6, 1e-5))
    return dataclasses.replace(t, ok=False, kind="value", tolerance_source="error budget: ...", oracle_err_ms=3e-6,
                               oracle_err_pt=6e-8, budget_limit=7e-7, budget_floor=4.8e-7, standard_ok=standard_ok)


def _outcome(standard_ok: bool, findings=()) -> Outcome:
    loc = Localization(rows=(), first_divergence="ln1", first_divergence_ms="ln1", findings=tuple(findings), summary="ln1")
    return Outcome("value", "error budget exceeded in out", (_failing_tensor(standard_ok),), localization=loc)


def test_the_grey_zone_fails_only_with_a_confirmed_cause():
    eps = Finding("layernorm-eps", "ln1", "epsilon 1e-7 vs 1e-5", "epsilon=1e-5", "high", confirmed=True)
    bad = settle_grey_zone(_outcome(True, [eps]), golden=False)
    assert bad.kind == "value" and "a re-run confirmed the cause (layernorm-eps)" in bad.notes[-1]
    twin = settle_grey_zone(_outcome(True), golden=False)  # same numbers, nothing confirmed: kernel accuracy
    assert twin.kind is None and twin.localization is None and all(t.ok for t in twin.tensors)
    assert "50x torch float32's 6e-08" in twin.message and "no re-run confirmed a cause" in twin.message
    unconfirmed = Finding("layernorm-eps", "ln1", "maybe", "", "medium", confirmed=False)
    assert settle_grey_zone(_outcome(True, [unconfirmed]), golden=False).kind is None
    # A searched replacement that "agrees with torch" proves nothing where the port agrees within rtol/atol already.
    searched = Finding("argument-search", "loss", "nn.KLDivLoss in its place agrees with torch", "use nn.KLDivLoss",
                       "high", confirmed=True)
    assert settle_grey_zone(_outcome(True, [searched]), golden=False).kind is None
    assert settle_grey_zone(_outcome(False, [searched]), golden=False).kind == "value"  # beyond rtol/atol: it stands
    # Beyond rtol/atol as well: a failure whatever localization found; with --golden nothing can clear it.
    assert settle_grey_zone(_outcome(False), golden=False).kind == "value"
    golden = settle_grey_zone(_outcome(True), golden=True)
    assert golden.kind == "value" and "with --golden no re-run can confirm or clear a cause" in golden.notes[-1]


@pytest.fixture(scope="module")
def block_cases():
    sys.path.insert(0, str(ROOT))
    try:
        from cases import transformer_block as tb
    finally:
        sys.path.remove(str(ROOT))
    return tb


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_layernorm_default_epsilon_fails_by_default_and_names_eps(block_cases):
    from migcheck.running.pipeline import Item, run_item

    bad = run_item(Item(block_cases.transformer_block_ln_default_eps, "forward", "pynative", "cpu"), RunOptions())
    assert bad.status == "xfail" and bad.tolerance_mode == "budget" and bad.judged_by.startswith("error budget")
    (out,) = bad.tensors
    assert out.standard_ok  # the old default atol let it through: only the budget sees it
    assert out.oracle_err_ms > 10 * out.oracle_err_pt and not out.ok
    assert "layernorm-eps" in [f.rule for f in bad.localization.findings]
    assert "diagnosed as expected (layernorm-eps)" in bad.message
    # The same block ported right passes, and says both errors.
    good = run_item(Item(block_cases.transformer_block, "forward", "pynative", "cpu"), RunOptions())
    assert good.status == "pass" and "error budget vs float64" in good.message
    assert good.tensors[0].oracle_err_ms <= BUDGET.factor * good.tensors[0].oracle_err_pt + good.tensors[0].budget_floor
    # Both numbers and the judge survive the JSON round trip.
    back = verdict_from_json(verdict_to_json(bad))
    assert back.judged_by == bad.judged_by and back.tensors[0].oracle_err_pt == out.oracle_err_pt
    assert back.tensors[0].standard_ok is True
    # Under the old judge, by name, the same port passes: the reason the default changed.
    old = run_item(Item(block_cases.transformer_block_ln_default_eps, "forward", "pynative", "cpu"),
                   RunOptions(tolerance_mode="standard"))
    assert old.status == "xpass" and old.judged_by == "rtol/atol (--tolerance-mode standard)"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_case_tolerance_keeps_judging_by_rtol_atol_and_says_so(block_cases):
    from migcheck.running.pipeline import Item, run_item

    case = dataclasses.replace(block_cases.transformer_block_ln_default_eps, name="block_tol",
                               tolerance=Tolerance(1e-4, 1e-4), expect="pass", diagnosis=None, fails_with=None)
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions())
    assert verdict.status == "pass" and verdict.tolerance_mode == "standard"
    assert "the case gives tolerance=" in verdict.judged_by and "judged by rtol/atol" in verdict.message
    assert verdict.tensors[0].oracle_err_ms is None and verdict.tensors[0].tolerance_source == "case"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_correct_large_gradient_conv_bn_relu_ports_pass_at_every_seed():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from budget_ports import _conv_ms, _conv_pt
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from migcheck.running.pipeline import Item, run_item

    for seed in range(3):
        case = PairedCase(name=f"convbn_seed{seed}", torch=lambda: _conv_pt(2, 4), mindspore=lambda: _conv_ms(2, 4),
                          inputs={"x": normal(2, 3, 6, 6, std=10.0)}, checks=("backward",), modes=("pynative",))
        verdict = run_item(Item(case, "backward", "pynative", "cpu"), RunOptions())
        assert verdict.status == "pass", verdict.message
        assert all(t.oracle_err_ms is not None for t in verdict.tensors)
        # The twin with BatchNorm eps 1e-3 fails at the same seed.
        bad = dataclasses.replace(case, name=f"convbn_seed{seed}", mindspore=lambda: _conv_ms(2, 4, eps=1e-3))
        assert run_item(Item(bad, "backward", "pynative", "cpu"), RunOptions()).status == "fail"


class _ConstLinearPt:
    """A torch module whose weight is a plain float32 tensor attribute: module.double() leaves it float32."""

    def __new__(cls):
        import torch

        class ConstLinear(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.full((2, 3), 0.5)

            def forward(self, x):
                return torch.nn.functional.linear(x, self.w)

        return ConstLinear()


def _const_linear_ms():
    import mindspore as ms
    import mindspore.ops as ops

    class ConstLinear(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Tensor(np.full((2, 3), 0.5, np.float32))

        def construct(self, x):
            return ops.matmul(x, self.w.T)

    return ConstLinear()


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_float64_rerun_that_cannot_run_falls_back_to_rtol_atol_and_says_why():
    from migcheck.running.pipeline import Item, run_item

    case = PairedCase(name="const_linear", torch=_ConstLinearPt, mindspore=_const_linear_ms,
                      inputs={"x": normal(4, 3)}, checks=("forward",), modes=("pynative",))
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions())
    assert verdict.status == "pass" and verdict.tolerance_mode == "budget"
    assert verdict.judged_by.startswith("rtol/atol (the float64 re-run of torch failed (RuntimeError")
    assert "judged by rtol/atol (the float64 re-run of torch failed" in verdict.message
    assert verdict.tensors[0].oracle_err_ms is None
    # The same port with its output scaled fails: the fallback still judges.
    bad = dataclasses.replace(case, name="const_linear_bad", mindspore=lambda: _scaled(_const_linear_ms()))
    assert run_item(Item(bad, "forward", "pynative", "cpu"), RunOptions()).status == "fail"
    # Asked for by name, the budget cannot be had: an error that says so.
    named = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(tolerance_mode="budget"))
    assert named.status == "error" and "float64 oracle of error-budget mode could not run" in named.message


def _scaled(cell):
    import mindspore as ms

    class Scaled(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = cell

        def construct(self, x):
            return self.inner(x) * 1.01

    return Scaled()


def test_the_budget_is_judged_chunk_by_chunk_on_large_tensors():
    from migcheck.judging import budget as budget_module

    rng = np.random.default_rng(1)
    oracle = rng.normal(0, 1, (5, budget_module.CHUNK)).astype(np.float64)  # five chunks
    pt = oracle.astype(np.float32)
    ms = pt.copy()
    ms[4, 7] += np.float32(1e-3)
    ms[4, 9] += np.float32(2e-3)  # the largest error, in the last chunk
    t = compare_arrays("big", pt, ms, Tolerance(1.3e-6, 1e-5))
    judged = budget_module.judge_budget(t, pt, ms, oracle, BUDGET)
    assert not judged.ok and judged.mismatched == 2 and judged.oracle_err_ms == pytest.approx(2e-3, rel=1e-3)
    assert [s.index for s in judged.first_mismatches] == [(4, 7), (4, 9)] and "at (4, 9)" in judged.message
    assert judged.oracle_err_pt <= 0.5 * np.spacing(np.float32(np.abs(oracle).max()))  # rounding only
    fine = budget_module.judge_budget(compare_arrays("big", pt, pt, Tolerance(1.3e-6, 1e-5)), pt, pt, oracle, BUDGET)
    assert fine.ok and fine.mismatched == 0 and fine.oracle_err_ms == fine.oracle_err_pt
