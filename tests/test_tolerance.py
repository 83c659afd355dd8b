"""Tolerance layers (migcheck.tolerance): dtype default <- backend <- check <- case <- pattern <- command line."""
from __future__ import annotations

import pytest

from migcheck.tolerance import EXACT, Tolerance, ToleranceRules, matches, resolve


def tol_for(dtype="float32", check="forward", backend="cpu", tensor="out", **rules):
    return resolve(dtype, check=check, backend=backend, tensor=tensor, rules=ToleranceRules.build(
        rules.get("case"), rules.get("patterns"), rules.get("cli_rtol"), rules.get("cli_atol")))


@pytest.mark.parametrize("dtype, rtol, atol", [
    ("float32", 1.3e-6, 1e-5),
    ("float64", 1e-7, 1e-7),
    ("complex64", 1.3e-6, 1e-5),
    ("complex128", 1e-7, 1e-7),
])
def test_dtype_defaults_match_torch_testing(dtype, rtol, atol):
    assert tol_for(dtype) == (Tolerance(rtol, atol), f"{dtype} default")


@pytest.mark.parametrize("dtype, eps", [("float16", 2.0 ** -10), ("bfloat16", 2.0 ** -7)])
def test_low_precision_defaults_allow_two_ulps_relative_and_one_ulp_of_one_absolute(dtype, eps):
    # Cells of two frameworks differ by an ulp where kernels round differently; torch.testing's
    # single-op atol of 1e-5 would fail every near-zero float16 output of a cell.
    tol, source = tol_for(dtype)
    assert source == f"{dtype} default"
    assert 2 * eps <= tol.rtol <= 2.1 * eps and eps <= tol.atol <= 1.05 * eps


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool"])
def test_integers_and_booleans_compare_exactly(dtype):
    assert tol_for(dtype) == (EXACT, f"exact ({dtype})")
    assert EXACT == Tolerance(0.0, 0.0)


def test_integers_stay_exact_whatever_the_other_layers_say():
    loose = Tolerance(0.5, 0.5)
    assert tol_for("int64", check="backward", case=loose, patterns={"out": loose}, cli_atol=1.0) == (EXACT, "exact (int64)")


@pytest.mark.parametrize("check, scale", [("forward", 1), ("train", 1), ("backward", 10), ("step", 10)])
def test_check_scale(check, scale):
    tol, source = tol_for("float32", check=check)
    assert tol.rtol == pytest.approx(1.3e-6 * scale, rel=1e-12)
    assert tol.atol == pytest.approx(1e-5 * scale, rel=1e-12)
    assert source == ("float32 default" if scale == 1 else f"float32 default x{scale} (cpu/{check})")


def test_gpu_profile_loosens_float32_only_and_stacks_with_check_scale():
    tol, source = tol_for("float32", check="backward", backend="gpu")
    assert (tol.rtol, tol.atol) == (pytest.approx(1.3e-6 * 20), pytest.approx(1e-5 * 20))
    assert source == "float32 default x20 (gpu/backward)"
    assert tol_for("float16", backend="gpu") == (Tolerance(2e-3, 1e-3), "float16 default")


def test_case_tolerance_replaces_the_defaults_including_the_check_scale():
    case = Tolerance(1e-3, 1e-4)
    assert tol_for("float32", case=case) == (case, "case")
    assert tol_for("float16", check="backward", case=case) == (case, "case")


def test_pattern_override_by_tensor_name():
    special = Tolerance(0.1, 0.2)
    patterns = {"out[0]": special}
    assert tol_for(tensor="out[0]", patterns=patterns) == (special, "case pattern 'out[0]'")
    # Brackets in a pattern are literal: 'out[0]' is not the character class [0].
    assert tol_for(tensor="out0", patterns=patterns)[1] == "float32 default"
    assert tol_for(tensor="out[1]", patterns=patterns)[1] == "float32 default"


def test_pattern_wildcards():
    special = Tolerance(0.1, 0.2)
    assert tol_for(tensor="out[3].logits", patterns={"out[*].logits": special}) == (special, "case pattern 'out[*].logits'")
    assert tol_for(tensor="out.logits", patterns={"out.*": special})[0] == special
    assert tol_for(tensor="out", patterns={"out.*": special})[0] != special


def test_pattern_by_check_and_tensor():
    grads = Tolerance(1e-2, 1e-3)
    patterns = {"backward/*": grads}
    assert tol_for(check="backward", tensor="grad.input.x", patterns=patterns) == (grads, "case pattern 'backward/*'")
    assert tol_for(check="forward", tensor="out", patterns=patterns)[1] == "float32 default"


def test_pattern_wins_over_case_and_later_patterns_win():
    case, first, last = Tolerance(1e-3, 1e-3), Tolerance(1e-2, 1e-2), Tolerance(1e-1, 1e-1)
    assert tol_for(tensor="out", case=case, patterns={"out": first}) == (first, "case pattern 'out'")
    assert tol_for(tensor="out", case=case, patterns={"o*": first, "out": last}) == (last, "case pattern 'out'")
    assert tol_for(tensor="out", case=case, patterns={"out": last, "o*": first}) == (first, "case pattern 'o*'")


def test_cli_rtol_replaces_only_rtol():
    assert tol_for(cli_rtol=0.5) == (Tolerance(0.5, 1e-5), "command line")


def test_cli_atol_replaces_only_atol():
    assert tol_for(cli_atol=0.5) == (Tolerance(1.3e-6, 0.5), "command line")


def test_cli_halves_apply_on_top_of_case_patterns_and_keep_equal_nan():
    pattern = Tolerance(0.01, 0.02, equal_nan=True)
    assert tol_for(tensor="out", patterns={"out": pattern}, cli_atol=0.0) == (Tolerance(0.01, 0.0, True), "command line")
    assert tol_for(case=Tolerance(0.3, 0.4), cli_rtol=0.0, cli_atol=0.0) == (Tolerance(0.0, 0.0), "command line")


def test_cli_halves_apply_on_top_of_check_scale():
    tol, source = tol_for(check="backward", cli_rtol=0.0)
    assert tol.rtol == 0.0 and tol.atol == pytest.approx(1e-4)
    assert source == "command line"


@pytest.mark.parametrize("pattern, check, tensor, expected", [
    ("out", "forward", "out", True),
    ("out", "forward", "out[0]", False),
    ("out[0]", "forward", "out[0]", True),
    ("out[0]", "forward", "out0", False),
    ("grad.param.*", "backward", "grad.param.fc.weight", True),
    ("backward/*", "backward", "out", True),
    ("backward/*", "step", "out", False),
    ("*/out", "train", "out", True),
    ("OUT", "forward", "out", False),  # case-sensitive
])
def test_matches(pattern, check, tensor, expected):
    assert matches(pattern, check=check, tensor=tensor) is expected


@pytest.mark.parametrize("tol, problems", [
    (Tolerance(1e-5, 0), []),
    (Tolerance(0.0, 1e-8), []),
    (Tolerance("1e-5", 1e-5), ["rtol='1e-5' is not a number; give a float such as 1e-5"]),
    (Tolerance(1e-5, None), ["atol=None is not a number; give a float such as 1e-5"]),
    (Tolerance(True, 1e-5), ["rtol=True is not a number; give a float such as 1e-5"]),
    (Tolerance(1e-5, -1e-3), ["atol=-0.001 must be a non-negative number"]),
    (Tolerance(-1, -2), ["rtol=-1 must be a non-negative number", "atol=-2 must be a non-negative number"]),
    (Tolerance(float("nan"), 0.0), ["rtol=nan must be a non-negative number"]),
])
def test_tolerance_problems(tol, problems):
    assert tol.problems() == problems
