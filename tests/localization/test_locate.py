"""Pairing captured sub-cell calls and finding the first divergence, on synthetic calls (numpy only)."""
import numpy as np

from migcheck.localization.locate import Call, compare_calls, first_divergence, key_calls, module_pairs, summarize
from migcheck.tolerance import Tolerance

TOL = lambda name, dtype: (Tolerance(1e-6, 1e-6), "test")  # noqa: E731
X = np.ones(3, np.float32)


def c(name, inp, out, kind="K"):
    return Call(name, kind, (np.asarray(inp, np.float32),), np.asarray(out, np.float32))


def test_first_divergence_is_the_earliest_pair_with_agreeing_inputs_and_differing_outputs():
    torch_calls = [c("a", X, X), c("b", X, 2 * X), c("c", 2 * X, 3 * X), c("", X, 3 * X)]
    ms_calls = [c("a", X, X), c("b", X, 2.5 * X), c("c", 2.5 * X, 3.5 * X), c("", X, 3.5 * X)]
    rows = compare_calls(torch_calls, ms_calls, {"a": "a", "b": "b", "c": "c", "": ""}, TOL)
    assert [(r.torch_name, r.inputs_ok, r.outputs_ok) for r in rows] == [
        ("a", True, True), ("b", True, False), ("c", False, False), ("", True, False)]
    assert first_divergence(rows).torch_name == "b"


def test_isolated_pass_tells_local_error_from_inherited_drift():
    torch_calls = [c("b", X, 2 * X), c("c", 2 * X, 3 * X)]
    ms_calls = [c("b", X, 2.5 * X), c("c", 2.5 * X, 3.5 * X)]
    isolated = {("b", 0): 2.5 * X, ("c", 0): 3 * X}  # c is right when fed torch's input
    rows = compare_calls(torch_calls, ms_calls, {"b": "b", "c": "c"}, TOL, isolated)
    assert [r.isolated_ok for r in rows] == [False, True]
    assert "wrong on its own" in summarize(rows[0], [], rows)


def test_unpaired_and_unrun_sub_cells_are_shown_as_such():
    rows = compare_calls([c("a", X, X), c("b", X, X)], [c("a", X, X)], {"b": "renamed"}, TOL)
    assert rows[0].ms_name == "" and "unpaired" in rows[0].message
    assert rows[1].ms_name == "" and "did not run" in rows[1].message
    assert first_divergence(rows) is None


def test_a_sub_cell_called_twice_pairs_call_by_call():
    torch_calls = [c("shared", X, X), c("shared", 2 * X, 2 * X)]
    ms_calls = [c("shared", X, X), c("shared", 2 * X, 5 * X)]
    rows = compare_calls(torch_calls, ms_calls, {"shared": "shared"}, TOL)
    assert [r.outputs_ok for r in rows] == [True, False]
    assert set(key_calls(torch_calls)) == {("shared", 0), ("shared", 1)}


def test_module_pairs_come_from_mapped_parameters_then_shared_names():
    pairs = module_pairs([("layer1.1.weight", "features.1.gamma"), ("fc.weight", "classifier.weight")],
                         ["layer1.1", "fc", "relu", "only_torch", ""], ["features.1", "classifier", "relu", ""])
    assert pairs == {"layer1.1": "features.1", "fc": "classifier", "relu": "relu", "": ""}


def test_a_layer_whose_output_differs_in_shape_shows_the_shapes_not_max_abs_err_0(tmp_path):
    from migcheck.judging.verdict import Verdict
    from migcheck.localization.locate import Localization, row_error
    from migcheck.report.markdown import write_markdown

    torch_calls = [c("a", X, X), c("b", X, 2 * X), c("", X, 2 * X)]
    bad = [c("a", X, X), c("b", X, (2 * X)[None, :]), c("", X, 2 * X)]  # b's output has an extra axis
    twin = [c("a", X, X), c("b", X, 2 * X), c("", X, 2 * X)]
    pairs = {"a": "a", "b": "b", "": ""}
    rows = compare_calls(torch_calls, bad, pairs, TOL)
    b = rows[1]
    assert (b.inputs_ok, b.outputs_ok) == (True, False) and np.isnan(b.max_abs_err)
    assert row_error(b) == "shape torch (3,) vs mindspore (1,3)"
    assert first_divergence(rows).torch_name == "b"
    assert "outputs differ (output shape torch (3,) vs mindspore (1,3))" in summarize(b, [], rows)
    twin_rows = compare_calls(torch_calls, twin, pairs, TOL)
    assert all(r.outputs_ok for r in twin_rows) and row_error(twin_rows[1]) == "0"  # measured: a number
    loc = Localization(rows, "b", "b", (), summarize(b, [], rows))
    verdict = Verdict(case="shaped", check="forward", mode="pynative", backend="cpu", status="fail", kind="value",
                      message="value mismatch", file="/cases/a.py", localization=loc)
    write_markdown(tmp_path, [verdict])
    table = [line for line in (tmp_path / "cells" / "shaped.md").read_text().splitlines() if line.startswith("| 1 |")]
    assert len(table) == 1 and table[0].endswith("| shape torch (3,) vs mindspore (1,3) |"), table
