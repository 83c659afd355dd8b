"""migcheck.precision: the mixed-precision policy as pure data and functions."""
import dataclasses

import pytest

from migcheck import PairedCase, Precision, uniform, with_precision
from migcheck.case import case_problems
from migcheck.precision import (FLOAT16_BATCHNORM_FLOAT32, as_precision, kept, layer_dtypes, tolerance_dtype,
                                unmatched, unsupported_reason)
from migcheck.tolerance import resolve


def test_precision_values_normalise():
    assert as_precision(None) is None and as_precision("float32") is None
    assert as_precision("float16") == Precision("float16")
    assert as_precision(FLOAT16_BATCHNORM_FLOAT32).keep_float32 == ("BatchNorm",)
    with pytest.raises(TypeError, match="precision=16"):
        as_precision(16)


@pytest.mark.parametrize("pattern, cls, expected", [
    ("BatchNorm", "BatchNorm2d", True), ("BatchNorm", "BatchNorm1d", True), ("batchnorm", "BatchNorm2d", True),
    ("BatchNorm", "SyncBatchNormX", False), ("LayerNorm", "LayerNorm", True), ("RMSNorm*", "RMSNormPt", True),
    ("Norm", "LayerNorm", False), ("*Norm*", "GroupNorm", True),
])
def test_keep_float32_patterns_match_class_names(pattern, cls, expected):
    assert kept(pattern, cls) is expected


def test_a_kept_layer_and_its_children_compute_in_float32():
    layers = [("", "Net"), ("stem", "Conv2d"), ("block", "Block"), ("block.bn", "BatchNorm2d"),
              ("block.bn.inner", "Identity"), ("head", "Linear")]
    dtypes = layer_dtypes(layers, Precision("float16", keep_float32=("BatchNorm",)))
    assert dtypes == {"": "float16", "stem": "float16", "block": "float16", "block.bn": "float32",
                      "block.bn.inner": "float32", "head": "float16"}
    assert set(layer_dtypes(layers, Precision("float16")).values()) == {"float16"}


def test_unmatched_patterns_are_reported_not_ignored():
    assert unmatched(Precision("float16", keep_float32=("BatchNorm", "LayrNorm")), ["BatchNorm2d", "LayerNorm"]) == ["LayrNorm"]


def test_results_are_judged_at_the_coarser_of_their_dtype_and_the_compute_dtype():
    fp16 = Precision("float16")
    assert tolerance_dtype("float32", fp16) == "float16"
    assert tolerance_dtype("float16", fp16) == "float16"
    assert tolerance_dtype("float32", Precision("bfloat16")) == "bfloat16"
    assert tolerance_dtype("int64", fp16) == "int64"
    assert tolerance_dtype("float32", None) == "float32"
    # and the float16 default is wider than float32's, in both rtol and atol
    fp16_tol, _ = resolve("float16", check="forward", backend="cpu", tensor="out")
    fp32_tol, _ = resolve("float32", check="forward", backend="cpu", tensor="out")
    assert fp16_tol.rtol > fp32_tol.rtol and fp16_tol.atol > fp32_tol.atol


def test_bfloat16_is_unsupported_on_mindspore_cpu_only():
    assert "bfloat16" in unsupported_reason(Precision("bfloat16"), "cpu")
    assert unsupported_reason(Precision("bfloat16"), "ascend") is None
    assert unsupported_reason(Precision("float16"), "cpu") is None
    assert unsupported_reason(None, "cpu") is None


def _case(**kwargs):
    return PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2)}, name="c", **kwargs)


@pytest.mark.parametrize("value, fragment", [
    ("float8", "float8"), (Precision("float32"), "not a low-precision"), (Precision(keep_float32="BatchNorm"), "tuple"),
    (3, "precision=3"),
])
def test_bad_precision_is_a_case_problem_naming_the_fix(value, fragment):
    problems = case_problems(_case(precision=value))
    assert any(fragment in p for p, _ in problems)
    assert all("precision=" in fix or "Precision" in fix for p, fix in problems if fragment in p)


def test_with_precision_names_the_variant_after_its_dtype():
    base = _case()
    assert with_precision(base, "float16").name == "c_float16"
    assert with_precision(base, FLOAT16_BATCHNORM_FLOAT32, name="amp").precision == FLOAT16_BATCHNORM_FLOAT32
    assert dataclasses.replace(base, name="").precision is None


def test_describe_says_what_runs_in_float32():
    text = Precision("float16", keep_float32=("BatchNorm",)).describe()
    assert "float16" in text and "BatchNorm" in text and "loss float32" in text
