"""The backward, train and step checks against real torch and MindSpore layers."""
import dataclasses

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn

from migcheck import FrameworkPair, PairedCase, uniform
from migcheck.planning.discovery import load_file
from migcheck.running.pipeline import Item, run_item
from migcheck.running.reference import torch_reference
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _case(name, **kwargs):
    return dataclasses.replace(PairedCase(**kwargs), name=name, file=f"<{name}>")


def _linear(name, **kwargs):
    return _case(name, torch=lambda: tnn.Linear(3, 2), mindspore=lambda: mnn.Dense(3, 2),
                 inputs={"x": uniform(4, 3)}, **kwargs)


def test_reference_gradients_are_those_of_sum_output_times_cotangent():
    case = _linear("grad_analytic")
    ref = torch_reference(case, "backward")
    (cot,) = ref.objective.cotangents
    x, w = ref.inputs[0], ref.weights["weight"]
    # y = x W^T + b, objective = sum(y * c): dW = c^T x, db = sum_rows(c), dx = c W
    np.testing.assert_allclose(ref.results["grad.param.weight"], cot.T @ x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref.results["grad.param.bias"], cot.sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref.results["grad.input.x"], cot @ w, rtol=1e-5, atol=1e-6)


class _BnPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(3, 4, bias=False)
        self.bn = tnn.BatchNorm1d(4)

    def forward(self, x):
        return self.bn(self.fc(x))


class _BnMs(mnn.Cell):
    def __init__(self, momentum=0.9):
        super().__init__()
        self.fc = mnn.Dense(3, 4, has_bias=False)
        self.bn = mnn.BatchNorm1d(4, momentum=momentum)

    def construct(self, x):
        return self.bn(self.fc(x))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_backward_pairs_parameter_gradients_by_mapped_name(mode):
    case = _case("grad_by_name", torch=_BnPt, mindspore=_BnMs, inputs={"x": uniform(6, 3)})
    verdict = run_item(Item(case, "backward", mode, "cpu"))
    assert verdict.status == "pass", verdict.message
    names = {t.name for t in verdict.tensors}
    assert names == {"grad.input.x", "grad.param.fc.weight", "grad.param.bn.weight", "grad.param.bn.bias"}
    assert ("bn.weight", "bn.gamma") in {(p.torch_name, p.ms_name) for p in verdict.mapping}


def test_train_check_names_the_running_stats_a_wrong_momentum_corrupts():
    case = _case("bn_momentum", torch=_BnPt, mindspore=lambda: _BnMs(momentum=0.1), inputs={"x": uniform(6, 3)})
    verdict = run_item(Item(case, "train", "pynative", "cpu"))
    assert verdict.status == "fail" and verdict.kind == "value"
    failing = {t.name for t in verdict.tensors if not t.ok}
    assert failing == {"state.bn.running_mean", "state.bn.running_var"}
    # The training-mode output itself agrees: only the state is wrong.
    assert next(t for t in verdict.tensors if t.name == "out").ok
    # The forward (eval) check cannot see this mistake.
    assert run_item(Item(case, "forward", "pynative", "cpu")).status == "pass"


def test_step_loop_compares_every_step_against_plain_sgd_arithmetic():
    sgd = FrameworkPair(torch=lambda p: torch.optim.SGD(p, lr=0.1), mindspore=lambda p: mnn.SGD(p, learning_rate=0.1))
    case = _linear("sgd_two_steps", optimizer=sgd, steps=2)
    ref = torch_reference(case, "step")
    (cot,) = ref.objective.cotangents
    x, w0 = ref.inputs[0], ref.weights["weight"]
    # The objective is linear in W, so its gradient c^T x is the same at every step.
    np.testing.assert_allclose(ref.results["step1.param.weight"], w0 - 0.1 * cot.T @ x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref.results["step2.param.weight"], w0 - 0.2 * cot.T @ x, rtol=1e-5, atol=1e-6)
    verdict = run_item(Item(case, "step", "graph", "cpu"))
    assert verdict.status == "pass", verdict.message
    assert {t.name for t in verdict.tensors} == {f"step{k}.{n}" for k in (1, 2)
                                                 for n in ("loss", "param.weight", "param.bias")}


def test_step_catches_a_learning_rate_that_differs():
    pair = FrameworkPair(torch=lambda p: torch.optim.SGD(p, lr=0.1), mindspore=lambda p: mnn.SGD(p, learning_rate=0.11))
    verdict = run_item(Item(_linear("sgd_lr_off", optimizer=pair), "step", "pynative", "cpu"))
    assert verdict.status == "fail" and verdict.kind == "value"
    assert "step1.param.weight" in {t.name for t in verdict.tensors if not t.ok}
    # The first loss is computed before any update, so it still agrees.
    assert next(t for t in verdict.tensors if t.name == "step1.loss").ok


def test_parameter_frozen_on_one_side_is_a_structure_verdict():
    def frozen():
        layer = tnn.Linear(3, 2)
        layer.weight.requires_grad_(False)
        return layer

    case = _case("frozen", torch=frozen, mindspore=lambda: mnn.Dense(3, 2), inputs={"x": uniform(4, 3)})
    verdict = run_item(Item(case, "backward", "pynative", "cpu"))
    assert verdict.kind == "structure"
    assert any("torch 'weight' trainable=False" in p and "requires_grad=True" in p for p in verdict.structure)


def test_bundled_training_cases_fail_where_and_how_they_claim():
    loaded = {c.name: c for c in load_file(ROOT / "cases" / "training.py").cases}
    compile_error = run_item(Item(loaded["graph_syntax_try_except"], "forward", "graph", "cpu"))
    assert compile_error.status == "xfail" and compile_error.kind == "graph-compile-error"
    assert "Try" in compile_error.message
    assert run_item(Item(loaded["graph_syntax_try_except"], "forward", "pynative", "cpu")).status == "pass"
    stop = run_item(Item(loaded["stop_gradient_misplaced"], "backward", "pynative", "cpu"))
    assert stop.status == "xfail" and {"grad.input.x", "grad.param.first.weight", "grad.param.first.bias"} == {
        t.name for t in stop.tensors if not t.ok}
    decay = run_item(Item(loaded["sgd_weight_decay_filter"], "step", "pynative", "cpu"))
    assert decay.status == "xfail"
    assert {t.name for t in decay.tensors if not t.ok and t.name.startswith("step1.")} == {
        "step1.param.bn.weight", "step1.param.bn.bias"}


def test_adamw_preset_is_a_skip_with_a_reason_on_cpu():
    case = _linear("adamw_cpu", optimizer="adamw")
    verdict = run_item(Item(case, "step", "pynative", "cpu"))
    assert verdict.status == "skip" and "ascend" in verdict.message
