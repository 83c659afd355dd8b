"""Verdicts (migcheck.judging.verdict): expectations, judging, and the dict round trip reports rely on."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from migcheck.judging.compare import compare_arrays
from migcheck.mapping.transfer import map_weights
from migcheck.runners.base import ParamInfo
from migcheck.tolerance import Tolerance
from migcheck.judging.verdict import EXPECTED_STATUSES, STATUSES, Verdict, expectation, judge, judge_diagnosis
from migcheck.serialize import verdict_from_json as from_dict, verdict_to_json as to_dict
from migcheck.vocab import Backend, Check, Kind, Mode, Status


@pytest.mark.parametrize("expect, fails_with, fails_on, check, expected", [
    ("pass", None, None, "forward", "pass"),
    ("fail", "shape", None, "forward", "fail:shape"),
    ("fail", "shape", None, "backward", "fail:shape"),
    ("fail", "value", ("backward",), "backward", "fail:value"),
    ("fail", "value", ("backward",), "forward", "pass"),
])
def test_expectation(expect, fails_with, fails_on, check, expected):
    assert expectation(expect, fails_with, fails_on, check) == expected


@pytest.mark.parametrize("fails_on, check, mode, expected", [
    (("graph",), "forward", "graph", "fail:value"),
    (("graph",), "forward", "pynative", "pass"),
    (("backward-graph",), "backward", "graph", "fail:value"),
    (("backward-graph",), "backward", "pynative", "pass"),
    (("backward-graph",), "forward", "graph", "pass"),
])
def test_expectation_by_mode(fails_on, check, mode, expected):
    assert expectation("fail", "value", fails_on, check, mode) == expected


@pytest.mark.parametrize("found, expected, result", [
    (None, "pass", ("pass", "")),
    ("value", "pass", ("fail", "")),
    ("shape", "pass", ("fail", "")),
    ("structure", "pass", ("fail", "")),
    ("error", "pass", ("error", "")),
    ("graph-compile-error", "pass", ("error", "")),
    ("shape", "fail:shape", ("xfail", "failed as expected (shape)")),
    (None, "fail:shape", ("xpass", "expected a shape failure, but both sides agreed")),
    ("value", "fail:shape", ("fail", "expected a shape failure, got value")),
    ("error", "fail:value", ("fail", "expected a value failure, got error")),
])
def test_judge(found, expected, result):
    assert judge(found, expected) == result


def verdict(status="pass", **kw) -> Verdict:
    fields = dict(case="dense", check="forward", mode="pynative", backend="cpu", status=status, kind=None, message="m")
    fields.update(kw)
    return Verdict(**fields)


def test_item_id():
    assert verdict(mode="graph").item == "dense[forward-graph-cpu]"


@pytest.mark.parametrize("status", STATUSES)
def test_as_expected(status):
    assert verdict(status).as_expected is (status in ("pass", "xfail", "skip"))
    assert set(EXPECTED_STATUSES) == {"pass", "xfail", "skip"}


def test_worst_prefers_non_value_kinds_then_the_largest_error():
    tol = Tolerance(0.0, 0.0)
    small = compare_arrays("out[0]", np.array([1.0]), np.array([1.5]), tol)
    large = compare_arrays("out[1]", np.array([1.0]), np.array([9.0]), tol)
    shape = compare_arrays("out[2]", np.zeros(2), np.zeros(3), tol)
    ok = compare_arrays("out[3]", np.array([1.0]), np.array([1.0]), tol)
    assert verdict(tensors=(small, large, ok)).worst.name == "out[1]"
    assert verdict(tensors=(small, shape, large)).worst.name == "out[2]"
    assert verdict(tensors=(ok,)).worst is None


def rich_verdict() -> Verdict:
    t = [ParamInfo("bn.running_var", (3,), "float32", "BatchNorm2d", False, True),
         ParamInfo("bn.num_batches_tracked", (), "int64", "BatchNorm2d", False, True)]
    m = [ParamInfo("bn.moving_variance", (3,), "float32", "BatchNorm2d", False, True)]
    mapping = map_weights(t, m)
    tensors = (
        compare_arrays("out[0]", np.float32([[1, 2], [3, 4]]), np.float32([[1, 2], [3, 5]]), Tolerance(1.3e-6, 1e-5), "float32 default"),
        compare_arrays("out[1]", np.int64([1, 2]), np.int32([1, 2]), Tolerance(0, 0), "exact (int64)"),
    )
    return verdict(status="fail", kind="value", message=tensors[0].message, expected="pass", tensors=tensors,
                   structure=("one problem",), mapping=mapping.pairs, skipped_params=mapping.skipped,
                   error="", file="/x/cases/demo.py", duration_s=0.25, notes=tensors[1].notes)


def test_to_dict_is_plain_data_with_the_item_id():
    data = to_dict(rich_verdict())
    assert data["item"] == "dense[forward-pynative-cpu]"
    assert data["tensors"][0]["max_abs_at"] == {"index": [1, 1], "torch": 4.0, "mindspore": 5.0}
    assert data["mapping"][0]["ms_name"] == "bn.moving_variance"
    assert data["skipped_params"][0]["torch_name"] == "bn.num_batches_tracked"
    json.dumps(data)  # everything is JSON-serialisable


def test_from_dict_inverts_to_dict():
    v = rich_verdict()
    assert from_dict(to_dict(v)) == v


def test_from_dict_inverts_to_dict_through_json():
    v = rich_verdict()
    back = from_dict(json.loads(json.dumps(to_dict(v))))
    assert back == v
    assert back.tensors[0].torch_shape == (2, 2) and back.tensors[0].max_abs_at.index == (1, 1)
    assert back.mapping[0].torch_shape == (3,)


def test_statuses_and_kinds_are_enums_in_a_verdict_and_plain_values_in_json():
    v = rich_verdict()
    back = from_dict(json.loads(json.dumps(to_dict(v))))
    for held in (v, back):
        assert (type(held.status), type(held.kind), type(held.check), type(held.mode), type(held.backend)) == (
            Status, Kind, Check, Mode, Backend)
        assert type(held.tensors[0].kind) is Kind
    data = to_dict(v)
    assert {type(data[k]) for k in ("status", "kind", "check", "mode", "backend")} == {str}
    assert type(data["tensors"][0]["kind"]) is str
    # A status this version does not know (a later report's) is kept as read, never turned into another.
    assert from_dict({**data, "status": "flaky"}).status == "flaky"


def test_each_status_says_how_it_is_shown_in_one_place():
    assert [s.symbol for s in Status] == list(".FEsxXCT")
    assert sorted(Status, key=lambda s: s.severity)[0] is Status.PASS
    assert sorted(Status, key=lambda s: s.severity)[-1] is Status.CRASHED
    assert {s for s in Status if s.unjudged} == {Status.ERROR, Status.CRASHED, Status.TIMEOUT}
    assert all(s.severity < Status.FAIL.severity for s in EXPECTED_STATUSES)
    assert Status.of("xpass") is Status.XPASS and Status.of("flaky") is None


def test_from_dict_of_a_minimal_verdict():
    v = verdict(status="skip", message="case runs only in pynative mode")
    assert from_dict(json.loads(json.dumps(to_dict(v)))) == v
    assert dataclasses.replace(v, status="pass") != v


def test_an_expected_diagnosis_must_fire_unless_localization_could_not_run():
    from migcheck.localization.rules import Finding
    from migcheck.localization.locate import Localization

    fired = Localization((), None, None, (Finding("pad-mode", "w", "c", "f", "high"),), "s")
    other = Localization((), None, None, (Finding("gelu-approximate", "w", "c", "f", "high"),), "s")
    assert judge_diagnosis("xfail", "failed as expected (value)", "pad-mode", fired) == (
        "xfail", "failed as expected (value); diagnosed as expected (pad-mode)")
    status, remark = judge_diagnosis("xfail", "failed as expected (value)", "pad-mode", other)
    assert status == "fail" and "['gelu-approximate']" in remark
    assert judge_diagnosis("xfail", "r", "pad-mode", None)[0] == "fail"
    # golden mode: no torch to re-run with hooks, so the kind decides and the remark says so
    status, remark = judge_diagnosis("xfail", "r", "pad-mode", None, localization_skipped=True)
    assert status == "xfail" and "not checked" in remark and "--golden" in remark
    assert judge_diagnosis("fail", "r", "pad-mode", None, localization_skipped=True)[0] == "fail"


def test_non_finite_floats_survive_a_json_round_trip_in_every_float_field():
    from migcheck.localization.locate import Localization, SubcellRow

    row = SubcellRow(order=0, torch_name="fc", torch_kind="Linear", ms_name="fc", ms_kind="Dense", inputs_ok=True,
                     outputs_ok=False, isolated_ok=False, max_abs_err=float("inf"), isolated_max_abs_err=float("inf"), message="")
    v = dataclasses.replace(rich_verdict(), compile_s=float("inf"), duration_s=float("nan"),
                            localization=Localization(rows=(row,), first_divergence="fc", first_divergence_ms="fc",
                                                          findings=(), summary="nan"))
    back = from_dict(json.loads(json.dumps(to_dict(v))))
    assert back.compile_s == float("inf") and isinstance(back.compile_s, float)
    assert back.localization.rows[0].isolated_max_abs_err == float("inf")
    assert back.duration_s != back.duration_s  # NaN
    assert back.localization.summary == "nan"  # a string field named like a float stays a string


def test_fields_a_later_schema_adds_are_ignored():
    data = to_dict(rich_verdict())
    data["a_field_from_the_future"] = 1
    data["tensors"][0]["another"] = {"x": 2}
    assert from_dict(data) == rich_verdict()
