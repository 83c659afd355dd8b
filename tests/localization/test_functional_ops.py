"""Functional ops between sub-cells: the op and both settings, recomputed from the agreeing value."""
from pathlib import Path

import numpy as np
import pytest

from migcheck.localization.functional_ops import identify

CASES = Path(__file__).resolve().parents[2] / "cases"
RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (2, 3, 6)).astype(np.float32)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_axis_is_named_with_both_settings():
    match = identify(X, _softmax(X, 1), _softmax(X, -1), 1.3e-6, 1e-5)
    assert (match.op, match.torch_setting, match.ms_setting) == ("softmax", "axis=-2", "axis=-1")
    assert match.rule == "op-softmax" and "axis=-2" in match.fix


def test_std_ddof_and_gelu_approximation():
    assert identify(X, X.std(-1, ddof=1), X.std(-1), 1.3e-6, 1e-5).op == "std"
    exact = np.vectorize(lambda v: 0.5 * v * (1 + __import__("math").erf(v / 2 ** 0.5)))(X)
    tanh = 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))
    match = identify(X, exact, tanh, 1.3e-6, 1e-5)
    assert match.op == "gelu" and "tanh" in match.ms_setting


def test_dropout_left_in_training_mode():
    mask = RNG.uniform(size=X.shape) > 0.5
    match = identify(X, X, np.where(mask, X * 2.0, 0.0), 1.3e-6, 1e-5)
    assert match.op == "dropout" and "identity" in match.torch_setting and "p=0.5" in match.ms_setting


def test_no_cause_when_the_values_agree_or_nothing_explains_them():
    assert identify(X, _softmax(X, 1), _softmax(X, 1), 1.3e-6, 1e-5) is None  # correct twin: no finding
    assert identify(X, _softmax(X, 1), _softmax(X, 1) + 0.1 * RNG.normal(size=X.shape), 1.3e-6, 1e-5) is None


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
@pytest.mark.parametrize("bad, good, rule", [
    ("softmax_in_construct_default_axis", "softmax_in_construct", "op-softmax"),
    ("std_in_construct_biased", "std_in_construct", "op-std"),
    ("wrapped_cross_entropy_smoothing_dropped", "wrapped_cross_entropy_smoothing", "loss-label-smoothing"),
])
def test_bundled_pitfalls_are_confirmed_and_their_twins_pass(bad, good, rule):
    from migcheck.planning.discovery import load_file
    from migcheck.running.pipeline import Item, run_item

    cases = {c.name: c for c in load_file(CASES / "functional_pitfalls.py").cases}
    v = run_item(Item(cases[bad], "forward", "pynative", "cpu"))
    assert v.status == "xfail", v.message
    (defect,) = v.localization.defects
    assert defect.rule == rule and defect.confirmed and defect.confidence == "high"
    assert run_item(Item(cases[good], "forward", "pynative", "cpu")).status == "pass"
