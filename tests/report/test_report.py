"""Reports (migcheck.report): summary.json schema and round trip, per-case JSON/Markdown, terminal text.

The HTML pages, plots, `migcheck report` and baselines: tests/report/test_html.py.
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from migcheck.judging.compare import compare_arrays
from migcheck.mapping.transfer import map_weights
from migcheck.runners.base import ParamInfo
from migcheck.report import write_report
from migcheck.report.jsonfile import read_summary, safe_name, summary
from migcheck.report.markdown import render_case
from migcheck.report.terminal import render, verdict_line
from migcheck.tolerance import Tolerance
from migcheck.judging.verdict import STATUSES, Verdict
from migcheck.serialize import SCHEMA_VERSION

F32 = Tolerance(1.3e-6, 1e-5)
BN_TORCH = [ParamInfo("bn.running_var", (3,), "float32", "BatchNorm2d", False, True),
            ParamInfo("bn.num_batches_tracked", (), "int64", "BatchNorm2d", False, True)]
BN_MS = [ParamInfo("bn.moving_variance", (3,), "float32", "BatchNorm2d", False, True)]


def V(case, status, kind=None, tensors=(), **kw) -> Verdict:
    message = kw.pop("message", tensors[0].message if tensors else "")
    return Verdict(case=case, check="forward", mode=kw.pop("mode", "pynative"), backend="cpu", status=status,
                   kind=kind, message=message, tensors=tuple(tensors), file=f"/src/cases/{case}.py", **kw)


@pytest.fixture
def verdicts():
    mapping = map_weights(BN_TORCH, BN_MS)
    ok = compare_arrays("out", np.float32([1, 2]), np.float32([1, 2]), F32, "float32 default")
    value = compare_arrays("out", np.float32([[1, 2], [3, 4]]), np.float32([[1, 2], [3, 4.5]]), F32, "float32 default")
    shape = compare_arrays("out", np.zeros((2, 240, 9, 9), np.float32), np.zeros((2, 240, 12, 12), np.float32), F32)
    # max_rel_err and min_rtol are inf (torch is 0 where MindSpore is not).
    inf_metrics = compare_arrays("out", np.float32([0, 1]), np.float32([1, 1]), F32)
    return [
        V("dense_ok", "pass", tensors=[ok], mapping=mapping.pairs, skipped_params=mapping.skipped, duration_s=0.5),
        V("dense_relu", "fail", "value", [value], mapping=mapping.pairs, skipped_params=mapping.skipped),
        V("conv_default_pad", "xfail", "shape", [shape], expected="fail:shape"),
        V("conv_default_pad", "skip", mode="graph", message="case runs only in pynative mode", expected="fail:shape"),
        V("zero_ref", "fail", "value", [inf_metrics]),
    ]


def test_summary_schema(verdicts, tmp_path):
    write_report(tmp_path, verdicts, ["cases/bad.py: syntax error at line 2: x"])
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["schema_version"] == SCHEMA_VERSION == 4
    assert data["counts"] == {"pass": 1, "fail": 2, "error": 0, "skip": 1, "xfail": 1, "xpass": 0, "crashed": 0,
                              "timeout": 0}
    assert data["partial"] is False
    assert list(data["counts"]) == list(STATUSES)
    assert data["all_as_expected"] is False
    assert data["collection_errors"] == ["cases/bad.py: syntax error at line 2: x"]
    first = data["verdicts"][1]
    # Schema 4: summary.json lists verdicts without their bulk; cells/<case>.json holds every tensor and mapping.
    assert (first["tensors"], first["mapping"], first["cell"]) == ([], [], "cells/dense_relu.json")
    assert first["tensor_counts"] == {"compared": 1, "failing": 1}
    assert {k: first[k] for k in ("case", "check", "mode", "backend", "status", "kind", "expected", "item")} == {
        "case": "dense_relu", "check": "forward", "mode": "pynative", "backend": "cpu", "status": "fail",
        "kind": "value", "expected": "pass", "item": "dense_relu[forward-pynative-cpu]"}
    # The cell file leaves out fields at their defaults (read back filled in), e.g. expected='pass'.
    first = json.loads((tmp_path / "cells" / "dense_relu.json").read_text())["verdicts"][0]
    assert "expected" not in first and first["status"] == "fail"
    [t] = first["tensors"]
    assert (t["name"], t["kind"], t["mismatched"], t["total"], t["max_abs_err"]) == ("out", "value", 1, 4, 0.5)
    assert t["max_abs_at"] == {"index": [1, 1], "torch": 4.0, "mindspore": 4.5}
    assert t["torch_shape"] == [2, 2] and t["tolerance_source"] == "float32 default"
    assert first["mapping"][0] == {"torch_name": "bn.running_var", "ms_name": "bn.moving_variance",
                                   "torch_shape": [3], "ms_shape": [3],
                                   "how": "rule BatchNorm.running_var->moving_variance"}  # transform '' by default


def test_summary_is_strict_json_with_non_finite_metrics_as_strings(verdicts, tmp_path):
    verdicts[0] = dataclasses.replace(verdicts[0], tensors=(dataclasses.replace(verdicts[0].tensors[0], cosine=math.nan),))
    write_report(tmp_path, verdicts)

    def reject(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    json.loads((tmp_path / "summary.json").read_text(), parse_constant=reject)
    data = json.loads((tmp_path / "cells" / "dense_ok.json").read_text(), parse_constant=reject)
    assert data["verdicts"][0]["tensors"][0]["cosine"] == "nan"
    zero_ref = json.loads((tmp_path / "cells" / "zero_ref.json").read_text(), parse_constant=reject)["verdicts"][0]["tensors"][0]
    assert (zero_ref["max_rel_err"], zero_ref["min_rtol"]) == ("inf", "inf")


def test_read_summary_round_trips_to_equal_verdicts(verdicts, tmp_path):
    write_report(tmp_path, verdicts)
    back = read_summary(tmp_path / "summary.json")
    assert back == verdicts
    assert back[4].tensors[0].max_rel_err == math.inf


def test_read_summary_restores_nan(verdicts, tmp_path):
    nan_tensor = dataclasses.replace(verdicts[0].tensors[0], cosine=math.nan, max_rel_err=-math.inf)
    write_report(tmp_path, [dataclasses.replace(verdicts[0], tensors=(nan_tensor,))])
    [back] = read_summary(tmp_path / "summary.json")
    assert math.isnan(back.tensors[0].cosine)
    assert back.tensors[0].max_rel_err == -math.inf


def test_text_fields_that_look_like_numbers_stay_text(tmp_path):
    v = V("nan", "pass", message="inf", notes=("nan",))
    write_report(tmp_path, [v])
    assert read_summary(tmp_path / "summary.json") == [v]


def test_summary_reads_back_whole_from_its_cells_and_alone_without_them(verdicts, tmp_path):
    write_report(tmp_path, verdicts)
    back = read_summary(tmp_path / "summary.json")
    assert [v.tensors for v in back] == [v.tensors for v in verdicts]
    assert back[1].mapping == verdicts[1].mapping
    (tmp_path / "cells" / "dense_relu.json").unlink()  # a summary.json copied alone: verdicts, no tensors
    alone = read_summary(tmp_path / "summary.json")
    assert (alone[1].status, alone[1].tensors) == ("fail", ())
    (tmp_path / "cells" / "dense_ok.json").write_text("{not json")
    with pytest.raises(ValueError, match="dense_ok.json: not a valid cell file"):
        read_summary(tmp_path / "summary.json")


def test_read_summary_rejects_another_schema_version(verdicts, tmp_path):
    data = summary(verdicts)
    data["schema_version"] = 99
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="schema_version 99, this migcheck reads 1 or 2 or 3 or 4"):
        read_summary(path)


def test_cells_hold_one_json_one_markdown_and_one_html_page_per_case(verdicts, tmp_path):
    write_report(tmp_path, verdicts)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cells", "index.html", "summary.json"]
    names = sorted(p.name for p in (tmp_path / "cells").iterdir())
    assert names == sorted(f"{c}.{ext}" for c in ("dense_ok", "dense_relu", "conv_default_pad", "zero_ref")
                           for ext in ("json", "md", "html"))
    cell = json.loads((tmp_path / "cells" / "conv_default_pad.json").read_text())
    assert cell["schema_version"] == SCHEMA_VERSION and cell["case"] == "conv_default_pad"
    assert cell["file"] == "/src/cases/conv_default_pad.py"
    assert [v["status"] for v in cell["verdicts"]] == ["xfail", "skip"]



def test_a_cell_holds_a_case_s_shared_mapping_once(verdicts, tmp_path):
    both = [verdicts[1], dataclasses.replace(verdicts[1], check="backward")]  # every check maps the same weights
    write_report(tmp_path, both)
    cell = json.loads((tmp_path / "cells" / "dense_relu.json").read_text())
    assert cell["shared"]["mapping"][0]["ms_name"] == "bn.moving_variance"
    assert all(v["shared"] and "mapping" not in v for v in cell["verdicts"])
    back = read_summary(tmp_path / "summary.json")
    assert [v.mapping for v in back] == [verdicts[1].mapping] * 2
    assert [v.skipped_params for v in back] == [verdicts[1].skipped_params] * 2


def test_markdown_has_the_failing_tensor_table_and_weight_mapping(verdicts, tmp_path):
    write_report(tmp_path, verdicts)
    md = (tmp_path / "cells" / "dense_relu.md").read_text()
    lines = md.splitlines()
    assert lines[0] == "# dense_relu"
    assert "| forward | pynative | cpu | **fail** | pass | value mismatch in out: 1 of 4 elements (25%)" in md
    assert ("| tensor | ok | torch | mindspore | max abs err | max rel err | mismatched | cosine | min atol"
            " | min rtol | tolerance |") in lines
    row = next(line for line in lines if line.startswith("| `out` |"))
    assert row.startswith("| `out` | **no**: value | (2,2) float32 | (2,2) float32 | 0.5 | 0.125 | 1/4 | ")
    assert row.endswith("| rtol 1.3e-06, atol 1e-05 (float32 default) |")
    assert "- at (1, 1): torch 4, mindspore 4.5" in lines
    assert "## Weight mapping" in lines
    assert "| `bn.running_var` | (3,) | `bn.moving_variance` | (3,) | rule BatchNorm.running_var->moving_variance |" in lines
    assert any(line.startswith("| `bn.num_batches_tracked` | | (not transferred) | | torch BatchNorm step counter")
               for line in lines)


def test_markdown_skips_detail_for_skipped_items_and_lists_structure_problems():
    structure = V("ported", "fail", "structure", message="weights cannot be transferred: torch 'head.weight' ...",
                  structure=("torch 'head.weight' [2, 2] (Linear) has no MindSpore counterpart; add it",))
    skipped = V("ported", "skip", mode="graph", message="GRAPH not supported")
    md = render_case("ported", [structure, skipped])
    assert "Weight transfer problems:" in md
    assert "- torch 'head.weight' [2, 2] (Linear) has no MindSpore counterpart; add it" in md
    assert "## forward / pynative / cpu: fail" in md
    assert "## forward / graph / cpu" not in md
    assert "| forward | graph | cpu | **skip** | pass | GRAPH not supported |" in md


def test_markdown_escapes_pipes_in_messages():
    md = render_case("c", [V("c", "error", "error", message="a | b\nc")])
    assert "| a \\| b c |" in md


@pytest.mark.parametrize("case", ["../../etc/x", "/abs/path", "..", "a\\b", "...hidden", ""])
def test_safe_name_keeps_files_inside_the_report_folder(case, tmp_path):
    name = safe_name(case)
    assert name and "/" not in name and "\\" not in name and not name.startswith(".")
    write_report(tmp_path / "report", [V(case, "pass")])
    cells = (tmp_path / "report" / "cells").resolve()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name not in ("summary.json", "index.html")]
    assert sorted(p.suffix for p in written) == [".html", ".json", ".md"]
    assert all(p.resolve().parent == cells for p in written)


def test_safe_name_keeps_ordinary_names():
    assert safe_name("conv_relu-2.v1") == "conv_relu-2.v1"
    assert safe_name("../../etc/x").startswith("_.._etc_x-")


def test_names_that_clean_to_the_same_text_get_distinct_report_files(tmp_path):
    assert safe_name("a/b") != safe_name("a_b")
    write_report(tmp_path, [V("a/b", "pass"), V("a_b", "fail")])
    assert len(list((tmp_path / "cells").glob("*.json"))) == 2
    assert len(list((tmp_path / "cells").glob("*.html"))) == 2


def test_terminal_render(verdicts):
    text = render(verdicts, ["cases/bad.py: syntax error"])
    lines = text.splitlines()
    assert verdict_line(verdicts[0]) == "PASS   dense_ok[forward-pynative-cpu]  out: max abs err 0"
    assert lines[0] == verdict_line(verdicts[0])
    assert "        out: value; torch (2,2) float32, mindspore (2,2) float32; max abs 0.5, max rel 0.125," \
           " 1/4 mismatched, cosine 0.998295" in text
    assert "ERROR  cases/bad.py: syntax error" in lines
    assert lines[-1] == "== 1 pass, 2 fail, 1 skip, 1 xfail, 1 collection error(s): 3 not as expected =="


def test_terminal_render_streamed_run_prints_only_unexpected():
    ok = V("a", "pass", message="fine")
    bad = V("b", "xpass", message="expected a shape failure, but both sides agreed", expected="fail:shape")
    text = render([ok, bad], include_expected=False)
    assert "PASS   a[" not in text
    assert "XPASS  b[forward-pynative-cpu]  expected a shape failure, but both sides agreed" in text
    assert "        expected: fail:shape" in text
    assert text.splitlines()[-1] == "== 1 pass, 1 xpass: 1 not as expected =="
    assert render([ok]).splitlines()[-1] == "== 1 pass: all as expected =="
    assert render([]) == "== nothing run: all as expected =="
