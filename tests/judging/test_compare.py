"""The comparator (migcheck.judging.compare): numpy only, every mismatch becomes data."""
from __future__ import annotations

import math

import numpy as np
import pytest

from migcheck.judging.compare import MAX_SAMPLES, Sample, compare_arrays, compare_trees, fmt_shape
from migcheck.tolerance import Tolerance

F32 = Tolerance(1.3e-6, 1e-5)


def f32(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


# --- shape and dtype ----------------------------------------------------------------------------

def test_shape_mismatch_message_names_both_shapes():
    pt = np.zeros((2, 240, 9, 9), np.float32)
    ms = np.zeros((2, 240, 12, 12), np.float32)
    r = compare_arrays("out", pt, ms, F32)
    assert (r.ok, r.kind) == (False, "shape")
    assert r.message == "shape mismatch in out: torch (2,240,9,9) vs mindspore (2,240,12,12)"
    assert (r.torch_shape, r.ms_shape) == ((2, 240, 9, 9), (2, 240, 12, 12))


@pytest.mark.parametrize("pt_shape, ms_shape, text", [
    ((3,), (4,), "torch (3,) vs mindspore (4,)"),
    ((), (1,), "torch () vs mindspore (1,)"),
    ((0, 3), (0, 4), "torch (0,3) vs mindspore (0,4)"),
])
def test_shape_mismatch_formats_1d_0d_and_empty_shapes(pt_shape, ms_shape, text):
    r = compare_arrays("out[1]", np.zeros(pt_shape, np.float32), np.zeros(ms_shape, np.float32), F32)
    assert r.kind == "shape"
    assert r.message == f"shape mismatch in out[1]: {text}"


def test_float_width_difference_is_a_dtype_failure():
    r = compare_arrays("out", f32([1.0, 2.0]), np.asarray([1.0, 2.0], np.float16), F32)
    assert (r.ok, r.kind) == (False, "dtype")
    assert r.message == "dtype mismatch in out: torch float32 vs mindspore float16"
    assert (r.torch_dtype, r.ms_dtype) == ("float32", "float16")


@pytest.mark.parametrize("pt, ms", [
    (np.array([1, 2], np.int64), np.array([1.0, 2.0], np.float32)),
    (np.array([True, False]), np.array([1, 0], np.int32)),
])
def test_different_dtype_kinds_fail_even_with_equal_values(pt, ms):
    r = compare_arrays("out", pt, ms, Tolerance(0.0, 0.0))
    assert r.kind == "dtype"
    assert r.message == f"dtype mismatch in out: torch {pt.dtype} vs mindspore {ms.dtype}"


def test_integer_width_difference_passes_with_a_note():
    # argmax/topk indices: torch int64, MindSpore int32.
    r = compare_arrays("out[1]", np.array([0, 3, 2], np.int64), np.array([0, 3, 2], np.int32), Tolerance(0.0, 0.0))
    assert r.ok and r.kind is None
    assert r.notes == ("integer widths differ (torch int64, mindspore int32); values compared exactly",)


def test_integer_width_difference_still_compares_values():
    r = compare_arrays("idx", np.array([0, 3, 2], np.int64), np.array([0, 1, 2], np.int32), Tolerance(0.0, 0.0))
    assert (r.ok, r.kind, r.mismatched) == (False, "value", 1)
    assert r.max_abs_at == Sample((1,), 3.0, 1.0)
    assert r.notes  # the width note is kept on the failure too


# --- non-finite values --------------------------------------------------------------------------

def test_nan_where_torch_is_finite_is_a_nonfinite_failure():
    r = compare_arrays("out", f32([[1, 2, 3], [4, 5, 6]]), f32([[1, 2, 3], [4, 5, np.nan]]), F32)
    assert (r.ok, r.kind, r.mismatched) == (False, "nonfinite", 1)
    assert r.message == ("non-finite mismatch in out: 1 position(s) where NaN/Inf differ,"
                         " first at (1, 2) (torch 6.0, mindspore nan)")


def test_nonfinite_message_reports_first_nonfinite_position_not_first_value_mismatch():
    # Position 0 is a plain value mismatch; the first NaN/Inf disagreement is at 2.
    r = compare_arrays("out", f32([1, 2, 3, 4]), f32([5, 2, np.inf, np.nan]), F32)
    assert r.kind == "nonfinite"
    assert r.mismatched == 3
    assert r.message == ("non-finite mismatch in out: 2 position(s) where NaN/Inf differ,"
                         " first at (2,) (torch 3.0, mindspore inf)")
    # The sample list still holds every kind of mismatch, in position order.
    assert [s.index for s in r.first_mismatches] == [(0,), (2,), (3,)]


def test_nan_on_both_sides_fails_unless_equal_nan():
    pt, ms = f32([1, np.nan, 3]), f32([1, np.nan, 3])
    strict = compare_arrays("out", pt, ms, Tolerance(1.3e-6, 1e-5))
    assert (strict.ok, strict.kind, strict.mismatched) == (False, "nonfinite", 1)
    assert strict.message == ("NaN on both sides in out: 1 non-finite position(s) count as mismatches, first at (1,)"
                              " (NaN on both sides); NaN is not allowed by this tolerance: if NaN is the expected"
                              " result there, use Tolerance(..., equal_nan=True), else find where it comes from")
    lenient = compare_arrays("out", pt, ms, Tolerance(1.3e-6, 1e-5, equal_nan=True))
    assert lenient.ok and lenient.kind is None and lenient.mismatched == 0


def test_equal_nan_does_not_excuse_nan_against_a_number():
    r = compare_arrays("out", f32([1, 2]), f32([1, np.nan]), Tolerance(1.3e-6, 1e-5, equal_nan=True))
    assert r.kind == "nonfinite"


def test_same_infinities_pass():
    r = compare_arrays("out", f32([np.inf, -np.inf, 1.0]), f32([np.inf, -np.inf, 1.0]), F32)
    assert r.ok
    assert r.max_abs_err == 0.0 and r.mismatched == 0


@pytest.mark.parametrize("ms_value", [-np.inf, 1.0, np.nan])
def test_infinity_against_anything_else_fails(ms_value):
    r = compare_arrays("out", f32([0.5, np.inf]), f32([0.5, ms_value]), F32)
    assert (r.ok, r.kind, r.mismatched) == (False, "nonfinite", 1)
    assert f"first at (1,) (torch inf, mindspore {float(ms_value)})" in r.message


# --- the |ms - pt| <= atol + rtol * |pt| rule ---------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_value_exactly_at_the_bound_passes_and_just_above_fails(dtype, sign):
    tol = Tolerance(rtol=0.125, atol=0.25)  # bound at |pt| = 2: 0.25 + 0.125 * 2 = 0.5
    pt = np.array([sign * 2.0], dtype)
    at_bound = np.array([sign * 2.5], dtype)
    above = np.nextafter(at_bound, np.array([sign * 3.0], dtype))
    assert compare_arrays("out", pt, at_bound, tol).ok
    r = compare_arrays("out", pt, above, tol)
    assert (r.ok, r.kind, r.mismatched) == (False, "value", 1)


def test_rtol_scales_with_torch_value_not_mindspore_value():
    tol = Tolerance(rtol=0.5, atol=0.0)
    # |pt| = 2 allows 1.0; were |ms| used, 4 -> 2.0 would be allowed for the second pair too.
    assert compare_arrays("out", np.array([2.0]), np.array([3.0]), tol).ok
    assert not compare_arrays("out", np.array([2.0]), np.array([3.0 + 1e-9]), tol).ok


def test_value_metrics():
    pt = f32([[1.0, 2.0], [4.0, 0.5]])
    ms = f32([[1.125, 2.0], [4.5, 0.75]])  # abs diffs 0.125, 0, 0.5, 0.25 (exact in float32)
    r = compare_arrays("out", pt, ms, Tolerance(rtol=0.0, atol=0.2), tolerance_source="case")
    assert (r.ok, r.kind) == (False, "value")
    assert (r.total, r.mismatched, r.mismatched_fraction) == (4, 2, 0.5)
    assert r.max_abs_err == 0.5
    assert r.max_abs_at == Sample((1, 0), 4.0, 4.5)
    assert r.max_rel_err == 0.5  # 0.25 / 0.5
    assert r.max_rel_at == Sample((1, 1), 0.5, 0.75)
    assert r.mean_abs_err == pytest.approx((0.125 + 0 + 0.5 + 0.25) / 4, abs=0, rel=1e-15)
    assert r.first_mismatches == (Sample((1, 0), 4.0, 4.5), Sample((1, 1), 0.5, 0.75))
    a, b = pt.astype(np.float64).ravel(), ms.astype(np.float64).ravel()
    expected_cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert r.cosine == pytest.approx(expected_cos, rel=1e-12)
    assert r.min_atol == 0.5
    assert r.min_rtol == pytest.approx(0.1, rel=1e-9)  # max((0.5-0.2)/4, (0.25-0.2)/0.5)
    assert (r.rtol, r.atol, r.tolerance_source) == (0.0, 0.2, "case")
    assert r.message == ("value mismatch in out: 2 of 4 elements (50%) exceed atol=0.2 rtol=0;"
                         " max abs err 0.5 at (1, 0) (torch 4, mindspore 4.5);"
                         " would pass with atol>=0.5 or rtol>=0.1")


def test_passing_comparison_still_reports_metrics():
    r = compare_arrays("out", f32([1.0, -2.0]), f32([1.0, -2.0 + 2 ** -20]), F32)
    assert r.ok and r.kind is None
    assert r.message == "out: max abs err 9.54e-07"
    assert r.max_abs_err == 2 ** -20
    assert r.max_abs_at == Sample((1,), -2.0, -2.0 + 2 ** -20)
    assert r.mismatched == 0 and r.first_mismatches == ()
    assert r.min_atol == 0.0  # already inside rtol alone


def test_relative_error_against_zero_is_infinite():
    r = compare_arrays("out", f32([0.0, 1.0]), f32([1e-3, 1.0]), F32)
    assert r.kind == "value"
    assert r.max_rel_err == math.inf and r.max_rel_at.index == (0,)
    assert r.min_rtol == math.inf  # no rtol helps where torch is exactly 0
    assert r.min_atol == pytest.approx(1e-3, rel=1e-6)


def test_first_mismatches_are_capped():
    pt = np.zeros(20, np.float32)
    ms = np.ones(20, np.float32)
    r = compare_arrays("out", pt, ms, F32)
    assert r.mismatched == 20 and r.mismatched_fraction == 1.0
    assert [s.index for s in r.first_mismatches] == [(i,) for i in range(MAX_SAMPLES)]


def test_reported_min_atol_and_min_rtol_are_sufficient_and_tight():
    rng = np.random.default_rng(1234)
    for trial in range(300):
        pt = rng.normal(size=(6, 7)).astype(np.float32)
        ms = (pt + rng.normal(scale=10.0 ** rng.uniform(-6, -2), size=pt.shape)).astype(np.float32)
        tol = Tolerance(rtol=float(rng.choice([0.0, 1.3e-6, 1e-4])), atol=float(rng.choice([0.0, 1e-5, 1e-4])))
        r = compare_arrays("out", pt, ms, tol)
        with_atol = Tolerance(tol.rtol, r.min_atol)
        with_rtol = Tolerance(r.min_rtol, tol.atol)
        assert compare_arrays("out", pt, ms, with_atol).ok, (trial, r.min_atol)
        assert compare_arrays("out", pt, ms, with_rtol).ok, (trial, r.min_rtol)
        if r.min_atol > 0:
            assert not compare_arrays("out", pt, ms, Tolerance(tol.rtol, r.min_atol * (1 - 1e-6))).ok, trial
        if r.min_rtol > 0:
            assert not compare_arrays("out", pt, ms, Tolerance(r.min_rtol * (1 - 1e-6), tol.atol)).ok, trial


# --- complex values -------------------------------------------------------------------------------

def test_complex_values_compare_real_and_imaginary_parts():
    pt = np.array([1 + 1j, 2 + 2j], np.complex64)
    same = compare_arrays("spectrum", pt, pt.copy(), F32)
    assert same.ok and same.total == 4
    assert same.notes == ("complex values compared as (real, imag) pairs: indices carry a trailing 0 (real) or 1 (imag)",)
    # Equal real parts, wrong imaginary parts: casting to float would hide this.
    wrong_imag = compare_arrays("spectrum", pt, np.array([1 - 1j, 2 + 9j], np.complex64), F32)
    assert (wrong_imag.ok, wrong_imag.kind, wrong_imag.mismatched) == (False, "value", 2)
    assert wrong_imag.max_abs_at == Sample((1, 1), 2.0, 9.0)
    assert wrong_imag.torch_shape == (2,)


def test_complex_against_real_is_a_dtype_failure():
    r = compare_arrays("out", np.array([1 + 0j], np.complex64), np.array([1.0], np.float32), F32)
    assert r.message == "dtype mismatch in out: torch complex64 vs mindspore float32"


# --- cosine, empty and 0-d ------------------------------------------------------------------------

@pytest.mark.parametrize("pt, ms, expected", [
    ([1.0, 0.0], [0.0, 1.0], 0.0),
    ([1.0, 2.0], [2.0, 4.0], 1.0),
    ([1.0, 2.0], [-1.0, -2.0], -1.0),
])
def test_cosine(pt, ms, expected):
    assert compare_arrays("out", f32(pt), f32(ms), F32).cosine == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("pt, ms", [([0.0, 0.0], [0.0, 0.0]), ([0.0, 0.0], [1.0, 0.0]), ([3.0, 4.0], [0.0, 0.0])])
def test_cosine_is_none_for_a_zero_vector(pt, ms):
    assert compare_arrays("out", f32(pt), f32(ms), F32).cosine is None


def test_cosine_ignores_non_finite_positions():
    r = compare_arrays("out", f32([1.0, np.inf]), f32([1.0, np.inf]), F32)
    assert r.ok and r.cosine == pytest.approx(1.0)


def test_empty_arrays_are_their_own_kind_not_a_pass():
    r = compare_arrays("out", np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), F32)
    assert (r.ok, r.kind, r.total, r.mismatched) == (False, "empty", 0, 0)
    assert r.message.startswith("out: empty on both sides (shape (0,3)), so nothing was compared")


def test_empty_arrays_still_check_dtype():
    r = compare_arrays("out", np.zeros((0,), np.float32), np.zeros((0,), np.float64), F32)
    assert r.kind == "dtype"


def test_zero_dimensional_arrays():
    ok = compare_arrays("loss", np.float32(1.5), np.float32(1.5), F32)
    assert ok.ok and ok.torch_shape == () and ok.total == 1
    bad = compare_arrays("loss", np.array(1.5, np.float32), np.array(2.0, np.float32), F32)
    assert (bad.kind, bad.mismatched, bad.max_abs_err) == ("value", 1, 0.5)
    assert bad.max_abs_at == Sample((), 1.5, 2.0)
    assert bad.first_mismatches == (Sample((), 1.5, 2.0),)
    assert "max abs err 0.5 at () (torch 1.5, mindspore 2)" in bad.message


@pytest.mark.parametrize("shape, text", [(None, "?"), ((), "()"), ((5,), "(5,)"), ((2, 3), "(2,3)")])
def test_fmt_shape(shape, text):
    assert fmt_shape(shape) == text


# --- trees ----------------------------------------------------------------------------------------

def fixed(tol: Tolerance, source: str = "test"):
    calls = []

    def tolerance_for(name: str, dtype: str):
        calls.append((name, dtype))
        return tol, source

    return tolerance_for, calls


def test_compare_trees_names_leaves_and_asks_tolerance_per_leaf():
    tolerance_for, calls = fixed(Tolerance(0.0, 0.5), "per-leaf")
    pt = (f32([1.0]), {"logits": f32([2.0, 3.0]), "ids": np.array([1], np.int64)})
    ms = [f32([1.25]), {"logits": f32([2.0, 4.0]), "ids": np.array([1], np.int32)}]
    results = compare_trees(pt, ms, tolerance_for)
    assert [t.name for t in results] == ["out[0]", "out[1].logits", "out[1].ids"]
    assert calls == [("out[0]", "float32"), ("out[1].logits", "float32"), ("out[1].ids", "int64")]
    assert [t.ok for t in results] == [True, False, True]
    assert results[1].kind == "value" and results[1].tolerance_source == "per-leaf" and results[1].atol == 0.5
    assert results[2].notes  # int64 vs int32 note


def test_compare_trees_missing_leaf_in_mindspore_output():
    tolerance_for, _ = fixed(F32)
    results = compare_trees((f32([1.0]), f32([2.0])), (f32([1.0]),), tolerance_for)
    assert [(t.name, t.ok, t.kind) for t in results] == [("out[0]", True, None), ("out[1]", False, "tree")]
    assert results[1].message == "output structure differs: out[1] exists in torch output but not in mindspore output"


def test_compare_trees_extra_leaf_in_mindspore_output():
    tolerance_for, _ = fixed(F32)
    results = compare_trees({"a": f32([1.0])}, {"a": f32([1.0]), "b": f32([0.0])}, tolerance_for)
    assert [(t.name, t.kind) for t in results] == [("out.a", None), ("out.b", "tree")]
    assert results[1].message == "output structure differs: out.b exists in mindspore output but not in torch output"


def test_compare_trees_accepts_python_scalars_and_prefix():
    tolerance_for, calls = fixed(Tolerance(0.0, 0.0))
    results = compare_trees(2.0, 2.0, tolerance_for, prefix="loss")
    assert [(t.name, t.ok, t.torch_shape) for t in results] == [("loss", True, ())]
    assert calls == [("loss", "float64")]


@pytest.mark.parametrize("value", [0.000959712, 0.5244, 4.875, 0.1234567, 9.9999, 1.0, 3.3e-7])
def test_tolerance_hint_is_rounded_up_so_it_never_undershoots(value):
    from migcheck.judging.compare import ceil_sig

    text = ceil_sig(value)
    assert float(text) >= value
    assert len(text.replace(".", "").replace("-", "").lstrip("0").split("e")[0]) <= 3


# --- error sample (the HTML report's plot data) -------------------------------------------------

def test_error_sample_only_for_failing_values():
    ok = compare_arrays("out", f32([1, 2]), f32([1, 2]), F32)
    shape = compare_arrays("out", np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32), F32)
    dtype = compare_arrays("out", f32([1]), np.float64([1]), F32)
    assert ok.error_sample is None and shape.error_sample is None and dtype.error_sample is None


def test_error_sample_of_a_2d_tensor_is_the_error_itself():
    pt = np.zeros((3, 4), np.float32)
    ms = pt.copy()
    ms[1, 2], ms[2, 0] = 0.5, 1e-3
    s = compare_arrays("out", pt, ms, F32).error_sample
    assert s.map_axes == (0, 1) and s.map_block == (1, 1)
    assert s.map == ((0, 0, 0, 0), (0, 0, 0.5, 0), (0.001, 0, 0, 0))
    assert (s.zero, s.nonfinite, sum(s.hist_counts)) == (10, 0, 2)
    assert len(s.hist_counts) == 32 and len(s.hist_edges) == 33
    assert s.hist_edges[0] == pytest.approx(1e-3, rel=1e-6) and s.hist_edges[-1] == 0.5
    assert (s.hist_counts[0], s.hist_counts[-1]) == (1, 1)  # each extreme lands in an end bin
    assert s.channel_axis is None and s.channel_max == ()


def test_error_sample_is_bounded_for_big_tensors():
    rng = np.random.default_rng(0)
    pt = rng.random((2, 5, 200, 130)).astype(np.float32)
    ms = pt.copy()
    ms[1, 3, 150, 7] += 2.0  # one big error, far from the rest
    ms[:, :, :10, :] += 1e-3
    s = compare_arrays("out", pt, ms, F32).error_sample
    assert s.map_axes == (2, 3) and s.map_block == (4, 3)  # 200 rows -> 50 cells of 4, 130 cols -> 44 cells of 3
    assert (len(s.map), len(s.map[0])) == (50, 44)
    assert s.map[150 // 4][7 // 3] == pytest.approx(2.0, rel=1e-3)  # block maxima keep the outlier visible
    assert max(max(row) for row in s.map[3:]) == pytest.approx(2.0, rel=1e-3)
    assert s.channel_axis == 1 and len(s.channel_max) == 5
    assert s.channel_max[3] == pytest.approx(2.0, rel=1e-3) and s.channel_max[0] < 0.01
    assert sum(s.hist_counts) + s.zero == pt.size
    assert s.hist_edges[-1] == pytest.approx(2.0, rel=1e-3)


def test_error_sample_caps_every_axis_at_64_cells():
    pt = np.zeros((1000, 3000), np.float32)
    ms = np.full((1000, 3000), 1.0, np.float32)
    s = compare_arrays("out", pt, ms, F32).error_sample
    assert len(s.map) <= 64 and all(len(row) <= 64 for row in s.map)
    assert s.map_block == (16, 47)
    wide = compare_arrays("out", np.zeros(10_000, np.float32), np.ones(10_000, np.float32), F32).error_sample
    assert wide.map_axes == (0,) and len(wide.map) == 1 and len(wide.map[0]) == 64 and wide.map_block == (157,)
    channels = compare_arrays("out", np.zeros((1, 500, 2), np.float32), np.ones((1, 500, 2), np.float32), F32)
    assert len(channels.error_sample.channel_max) == 63 and channels.error_sample.channel_block == 8


def test_error_sample_marks_nonfinite_cells_and_scalars():
    pt = np.ones((4, 5), np.float32)
    ms = pt.copy()
    ms[1, 2] = np.nan
    ms[3, 3] = 3.0
    r = compare_arrays("out", pt, ms, F32)
    assert r.kind == "nonfinite"
    s = r.error_sample
    assert s.nonfinite == 1 and s.map_nonfinite == ((1, 2),)
    assert s.map[1][2] == 0 and s.map[3][3] == 2.0  # NaN positions carry no number; they are listed instead
    assert (s.hist_edges, s.hist_counts) == ((2.0, 2.0), (1,))  # one distinct error: one bin
    scalar = compare_arrays("loss", np.float32(1.0), np.float32(1.5), F32).error_sample
    assert scalar.map == () and scalar.hist_counts == (1,) and scalar.channel_max == ()


def test_error_sample_json_round_trip_and_size(tmp_path):
    from migcheck.report import write_report
    from migcheck.report.jsonfile import read_summary
    from migcheck.judging.verdict import Verdict

    rng = np.random.default_rng(1)
    pt = rng.random((2, 8, 300, 300)).astype(np.float32)
    r = compare_arrays("out", pt, pt * 1.01, F32)
    v = Verdict(case="big", check="forward", mode="pynative", backend="cpu", status="fail", kind="value",
                message=r.message, tensors=(r,))
    write_report(tmp_path, [v])
    assert read_summary(tmp_path / "summary.json") == [v]
    assert '"error_sample"' not in (tmp_path / "summary.json").read_text()  # schema 4: the cell file has it
    text = (tmp_path / "cells" / "big.json").read_text()
    assert len(text) < 40_000  # 1.4 M elements, a bounded sample
    assert len(text.splitlines()) == 1 and '"error_sample":{"hist_edges":' in text  # compact, not thousands of lines


def test_without_a_sample_every_metric_is_the_same():
    """sample=False (localization's sub-cell rows, which no page plots) skips only the error sample."""
    import dataclasses

    rng = np.random.default_rng(3)
    pt = rng.normal(size=(4, 3, 40, 40)).astype(np.float32)
    ms = pt.copy()
    ms[1, 2, 5:9, 7] += 0.5
    ms[3, 0, 0, 0] = np.nan
    tol = Tolerance(1e-5, 1e-5)
    for b in (ms, pt.copy(), np.where(np.isnan(ms), 0.1, ms).astype(np.float32)):
        full = compare_arrays("x", pt, b, tol, "src")
        lean = compare_arrays("x", pt, b, tol, "src", sample=False)
        assert lean.error_sample is None
        assert repr(dataclasses.replace(full, error_sample=None)) == repr(lean)  # repr: NaN samples compare unequal
        assert (full.error_sample is not None) == (not full.ok)
