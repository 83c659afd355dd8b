"""The fixture engine's numbers (migcheck.running.fixtures, migcheck.util.seeding): seeded numpy, never a framework RNG."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from migcheck.running.fixtures import make_input, make_inputs, make_weight, make_weights
from migcheck.runners.base import ParamInfo
from migcheck.util.seeding import stable_seed
from migcheck.specs import given, integers, mask, normal, uniform

SPECS = (("x", uniform(3, 4)), ("noise", normal(5, std=2.0)), ("labels", integers(6, high=10)), ("keep", mask(7)))


def P(name, shape, owner, dtype="float32") -> ParamInfo:
    return ParamInfo(name=name, shape=tuple(shape), dtype=dtype, owner_kind=owner, trainable=True, is_buffer=False)


# --- determinism ----------------------------------------------------------------------------------

def test_same_case_name_gives_identical_inputs():
    a, b = make_inputs("dense_ok", SPECS), make_inputs("dense_ok", SPECS)
    assert list(a) == ["x", "noise", "labels", "keep"]
    for name in a:
        assert a[name].dtype == b[name].dtype
        np.testing.assert_array_equal(a[name], b[name])


def test_different_case_names_give_different_inputs():
    a, b = make_inputs("case_a", SPECS), make_inputs("case_b", SPECS)
    for name in ("x", "noise", "labels"):
        assert not np.array_equal(a[name], b[name]), name


def test_inputs_of_one_case_are_drawn_independently_by_name():
    out = make_inputs("c", (("a", uniform(8)), ("b", uniform(8))))
    assert not np.array_equal(out["a"], out["b"])


def test_seed_is_pinned_across_versions_and_machines():
    # sha256-based: the same on every machine. A change here changes every recorded report.
    assert stable_seed("case", "input", "x") == 7838199146074127138
    np.testing.assert_allclose(make_input(uniform(3), seed_parts=("case", "input", "x")),
                               [-0.3152868449687958, 0.23914843797683716, -0.8067845702171326], rtol=0, atol=0)


def test_seed_does_not_depend_on_pythonhashseed():
    code = "from migcheck.util.seeding import stable_seed; print(stable_seed('c', 'weight', 'fc.weight'))"
    seeds = set()
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        seeds.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                 check=True).stdout.strip())
    assert seeds == {str(stable_seed("c", "weight", "fc.weight"))}


# --- input spec kinds -----------------------------------------------------------------------------

def test_uniform_range_shape_and_dtype():
    x = make_input(uniform(50, 4, low=2.0, high=3.0), seed_parts=("u",))
    assert x.shape == (50, 4) and x.dtype == np.float32
    assert x.min() >= 2.0 and x.max() < 3.0
    assert x.std() > 0.2  # spread over the range, not a constant


def test_normal_std_and_dtype():
    x = make_input(normal(4000, std=3.0, dtype="float64"), seed_parts=("n",))
    assert x.dtype == np.float64
    assert 2.8 < x.std() < 3.2


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integers_range_and_dtype(dtype):
    x = make_input(integers(500, low=3, high=7, dtype=dtype), seed_parts=("i", dtype))
    assert x.dtype == np.dtype(dtype)
    assert set(np.unique(x).tolist()) == {3, 4, 5, 6}  # high is exclusive, every value drawn


def test_mask_is_bool_with_probability_p():
    half = make_input(mask(2000, p=0.25), seed_parts=("m",))
    assert half.dtype == np.bool_
    assert 0.2 < half.mean() < 0.3
    assert not make_input(mask(10, p=0.0), seed_parts=("m0",)).any()
    assert make_input(mask(10, p=1.0), seed_parts=("m1",)).all()


def test_given_returns_exact_values_as_a_copy():
    spec = given([[1, 2], [3, 4]], dtype="int32")
    assert (spec.kind, spec.shape, spec.dtype) == ("given", (2, 2), "int32")
    x = make_input(spec, seed_parts=("ignored",))
    assert x.dtype == np.int32
    np.testing.assert_array_equal(x, [[1, 2], [3, 4]])
    x[0, 0] = 99
    assert spec.values[0, 0] == 1


def test_bfloat16_inputs_are_drawn_as_float32():
    x = make_input(uniform(3, dtype="bfloat16"), seed_parts=("b",))
    assert x.dtype == np.float32


# --- weights --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, owner", [("bn.running_var", "BatchNorm2d"), ("bn.moving_variance", "BatchNorm2d")])
def test_seeded_variances_are_positive(name, owner):
    w = make_weight(P(name, (64,), owner), case_name="c")
    assert w.dtype == np.float32
    assert w.min() >= 0.5 and w.max() < 1.5


def test_seeded_means_and_norm_scales_have_their_own_ranges():
    mean = make_weight(P("bn.running_mean", (64,), "BatchNorm2d"), case_name="c")
    assert mean.min() >= -0.5 and mean.max() < 0.5
    gamma = make_weight(P("ln.weight", (64,), "LayerNorm"), case_name="c")
    assert gamma.min() >= 0.5 and gamma.max() < 1.5  # a norm scale near 1, never 0


def test_seeded_matrices_use_fan_in_bound():
    w = make_weight(P("fc.weight", (16, 9), "Linear"), case_name="c")  # fan_in 9 -> bound 1/3
    assert np.abs(w).max() <= 1 / 3
    assert np.abs(w).max() > 0.25
    conv = make_weight(P("conv.weight", (8, 4, 2, 2), "Conv2d"), case_name="c")  # fan_in 16 -> 0.25
    assert np.abs(conv).max() <= 0.25


def test_constant_fill_sets_every_float_and_keeps_variances_positive():
    infos = [P("fc.weight", (2, 3), "Linear"), P("bn.running_var", (3,), "BatchNorm2d"),
             P("bn.moving_variance", (3,), "BatchNorm2d")]
    w = make_weights(infos, case_name="c", fill=0.1)
    np.testing.assert_array_equal(w["fc.weight"], np.full((2, 3), 0.1, np.float32))
    np.testing.assert_array_equal(w["bn.running_var"], np.full(3, 0.1, np.float32))
    neg = make_weights(infos, case_name="c", fill=-0.2)
    np.testing.assert_array_equal(neg["fc.weight"], np.full((2, 3), -0.2, np.float32))
    np.testing.assert_array_equal(neg["bn.running_var"], np.full(3, 0.2, np.float32))
    zero = make_weights(infos, case_name="c", fill=0.0)
    np.testing.assert_array_equal(zero["bn.moving_variance"], np.ones(3, np.float32))


@pytest.mark.parametrize("fill", ["seeded", 0.1])
def test_integer_buffers_are_zero(fill):
    w = make_weight(P("bn.num_batches_tracked", (), "BatchNorm2d", dtype="int64"), case_name="c", fill=fill)
    assert w.dtype == np.int64 and w.shape == () and w == 0


def test_weights_are_deterministic_per_case_and_parameter():
    infos = [P("a.weight", (3, 3), "Linear"), P("b.weight", (3, 3), "Linear")]
    one, again, other = (make_weights(infos, case_name=n) for n in ("c1", "c1", "c2"))
    np.testing.assert_array_equal(one["a.weight"], again["a.weight"])
    assert not np.array_equal(one["a.weight"], other["a.weight"])
    assert not np.array_equal(one["a.weight"], one["b.weight"])


def test_weights_keep_the_parameter_dtype():
    w = make_weight(P("fc.weight", (2, 2), "Linear", dtype="float64"), case_name="c")
    assert w.dtype == np.float64
    assert make_weight(P("fc.weight", (2, 2), "Linear", dtype="bfloat16"), case_name="c").dtype == np.float32


def test_configuration_buffers_keep_their_built_value_while_running_stats_are_drawn():
    infos = [ParamInfo("loss.pos_weight", (3,), "float32", "BCEWithLogitsLoss", False, True),
             ParamInfo("bn.running_var", (3,), "float32", "BatchNorm1d", False, True),
             ParamInfo("fc.weight", (2, 3), "float32", "Linear", True, False)]
    built = {"loss.pos_weight": np.array([1.0, 2.0, 3.0], np.float32), "bn.running_var": np.ones(3, np.float32),
             "fc.weight": np.zeros((2, 3), np.float32)}
    weights = make_weights(infos, case_name="c", built=built)
    np.testing.assert_array_equal(weights["loss.pos_weight"], [1.0, 2.0, 3.0])
    assert not np.array_equal(weights["bn.running_var"], np.ones(3))  # drawn, so eval-mode BN is exercised
    assert (weights["bn.running_var"] > 0).all()
    assert not np.array_equal(weights["fc.weight"], np.zeros((2, 3)))  # parameters are always drawn
