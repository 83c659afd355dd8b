"""The command line (migcheck.cli): exit codes, output, selection, tolerances and reports.

Most tests call cli.main in-process (MindSpore PYNATIVE on CPU, tiny layers); one runs the installed
`migcheck` script in a subprocess.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from migcheck.cli import EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, main

AS_EXPECTED = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, tags=("linear",))
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value", tags=("known-bad",))
'''
RELU = '''
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
'''
LAYER_NORM = '''
layer_norm_eps = PairedCase(torch=torch_layer_norm, mindspore=ms_layer_norm, checks=FORWARD,
                            inputs={"x": uniform(3, 4, low=-0.01, high=0.01)})
'''
SCALED = '''
dense_scaled = PairedCase(torch=torch_linear, mindspore=ms_dense_scaled, inputs=X, checks=FORWARD,
                          weight_map={"weight": "dense.weight", "bias": "dense.bias"})
'''


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_0_when_everything_is_as_expected(write_case_file, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_OK == 0
    lines = out.splitlines()
    assert lines[0].startswith("PASS   dense_ok[forward-pynative-cpu]  1 tensor(s) agree; max abs err ")
    assert lines[1].startswith("XFAIL  dense_known_bad[forward-pynative-cpu]  failed as expected (value):"
                               " error budget exceeded in out: ")
    assert lines[-1].startswith("== 1 pass, 1 xfail: all as expected ==")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_1_when_a_port_is_wrong(write_case_file, capsys):
    path = write_case_file("cases/relu.py", RELU)
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED == 1
    assert "FAIL   dense_relu[forward-pynative-cpu]  error budget exceeded in out: " in out
    assert "; by rtol/atol as well: " in out
    assert "        out: value; torch (4,2) float32, mindspore (4,2) float32; max abs " in out
    assert out.splitlines()[-1].startswith("== 1 fail: 1 not as expected ==")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_layer_norm_with_mindspore_default_epsilon_fails(write_case_file, capsys):
    path = write_case_file("cases/ln.py", LAYER_NORM)
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED
    assert "FAIL   layer_norm_eps[forward-pynative-cpu]  error budget exceeded in out: " in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_structure_failure_when_a_torch_parameter_has_no_counterpart(write_case_file, capsys):
    path = write_case_file("cases/nobias.py", '''
        dense_no_bias = PairedCase(torch=torch_linear, mindspore=ms_dense_no_bias, inputs=X, checks=FORWARD)
    ''')
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED
    assert ("FAIL   dense_no_bias[forward-pynative-cpu]  weights cannot be transferred: the MindSpore Dense (top level)"
            " has no bias, but torch (top level) (Linear) has one ('bias' [2]): the port builds it with has_bias=False;"
            " pass has_bias=True; the rest compared with those left at the port's own values: value: ") in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_1_for_an_unexpected_pass(write_case_file, capsys):
    path = write_case_file("cases/xpass.py", '''
        dense_claimed_bad = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD,
                                       expect="fail", fails_with="value")
    ''')
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED
    assert "XPASS  dense_claimed_bad[forward-pynative-cpu]  expected a value failure, but both sides agreed" in out
    assert "        expected: fail:value" in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_1_when_a_known_bad_case_fails_the_wrong_way(write_case_file, capsys):
    path = write_case_file("cases/wrongkind.py", '''
        wrong_kind = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                                expect="fail", fails_with="shape")
    ''')
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED
    assert "FAIL   wrong_kind[forward-pynative-cpu]  expected a shape failure, got value: error budget exceeded" in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_2_for_a_collection_error_while_other_cases_still_run(write_case_file, tmp_path, capsys):
    write_case_file("cases/a_ok.py", AS_EXPECTED)
    bad = write_case_file("cases/b_broken.py", "dense = PairedCase(\n", prelude=False)
    code, out, _ = run(capsys, "compare", "-v", str(tmp_path / "cases"), "--mode", "pynative")
    assert code == EXIT_USAGE == 2
    assert "PASS   dense_ok[forward-pynative-cpu]" in out
    assert "XFAIL  dense_known_bad[forward-pynative-cpu]" in out
    assert f"ERROR  {bad}: syntax error at line 1: " in out
    assert out.splitlines()[-1].startswith("== 1 pass, 1 xfail, 1 collection error(s): 1 not as expected ==")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_exit_2_for_a_broken_case_definition(write_case_file, capsys):
    path = write_case_file("cases/def.py", AS_EXPECTED + '''
bad_spec = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, -3)}, checks=FORWARD)
''')
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_USAGE
    assert "PASS   dense_ok[forward-pynative-cpu]" in out
    assert f"ERROR  {path}::bad_spec: input 'x': shape (4, -3) must be a tuple of non-negative integers" in out


@pytest.mark.parametrize("argv, message", [
    (["--mode", "eager"], "argument --mode: unknown mode 'eager'; choose from pynative, graph"),
    (["--mode", ""], "argument --mode: unknown mode ''; choose from pynative, graph"),
    (["--check", "forwards"], "argument --check: unknown check 'forwards'; choose from forward, backward, train, step, init"),
    (["--backend", "tpu"], "argument --backend: unknown backend 'tpu'; choose from cpu, gpu, ascend"),
    (["--atol", "-1"], "argument --atol: '-1' must be a finite non-negative number"),
    (["--atol", "inf"], "argument --atol: 'inf' is infinite: every value would pass; give a finite tolerance"),
    (["--rtol", "nan"], "argument --rtol: 'nan' must be a finite non-negative number"),
    (["--rtol", "tight"], "argument --rtol: 'tight' is not a number"),
])
def test_exit_2_for_bad_options(write_case_file, capsys, argv, message):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, out, err = run(capsys, "compare", "-v", str(path), *argv)
    assert code == EXIT_USAGE
    assert out == ""
    assert message in err


def test_exit_2_for_a_bad_keyword_expression(write_case_file, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, out, err = run(capsys, "compare", "-v", str(path), "-k", "dense and")
    assert code == EXIT_USAGE
    assert err == "migcheck: error: cannot parse -k expression 'dense and'\n"
    code, _, err = run(capsys, "list", str(path), "-k", "dense (graph)")
    assert code == EXIT_USAGE
    assert err == "migcheck: error: cannot parse -k expression 'dense (graph)'\n"


def test_exit_2_when_nothing_is_selected(write_case_file, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, _, err = run(capsys, "compare", "-v", str(path), "-k", "no_such_case")
    assert code == EXIT_USAGE
    assert "migcheck: no items selected" in err


def test_list_prints_item_ids_in_plan_order(write_case_file, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, out, err = run(capsys, "list", str(path))
    assert code == EXIT_OK and err == ""
    assert out.splitlines() == [
        "dense_ok[forward-pynative-cpu]", "dense_ok[forward-graph-cpu]",
        "dense_known_bad[forward-pynative-cpu]", "dense_known_bad[forward-graph-cpu]",
    ]


def test_list_reports_collection_errors_on_stderr(write_case_file, tmp_path, capsys):
    write_case_file("cases/a_ok.py", AS_EXPECTED)
    bad = write_case_file("cases/b_broken.py", "import not_a_real_module_xyz\n", prelude=False)
    code, out, err = run(capsys, "list", str(tmp_path / "cases"), "--mode", "graph")
    assert code == EXIT_USAGE
    assert out.splitlines() == ["dense_ok[forward-graph-cpu]", "dense_known_bad[forward-graph-cpu]"]
    assert err == f"ERROR {bad}: importing it raised ModuleNotFoundError: No module named 'not_a_real_module_xyz' (line 1)\n"


@pytest.mark.parametrize("expr, ids", [
    ("known-bad", ["dense_known_bad[forward-pynative-cpu]", "dense_known_bad[forward-graph-cpu]"]),
    ("dense and not graph", ["dense_ok[forward-pynative-cpu]", "dense_known_bad[forward-pynative-cpu]",
                             "dense_relu[forward-pynative-cpu]"]),
    ("(linear or relu) and graph", ["dense_ok[forward-graph-cpu]", "dense_relu[forward-graph-cpu]"]),
])
def test_keyword_filters_by_id_and_tags(write_case_file, tmp_path, capsys, expr, ids):
    write_case_file("cases/a.py", AS_EXPECTED)
    write_case_file("cases/b.py", RELU)
    code, out, _ = run(capsys, "list", str(tmp_path / "cases"), "-k", expr)
    assert code == EXIT_OK
    assert out.splitlines() == ids


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_keyword_selects_what_compare_runs(write_case_file, tmp_path, capsys):
    write_case_file("cases/a.py", AS_EXPECTED)
    write_case_file("cases/b.py", RELU)
    code, out, _ = run(capsys, "compare", "-v", str(tmp_path / "cases"), "-k", "dense_ok and pynative")
    assert code == EXIT_OK  # the failing dense_relu was not selected
    assert "dense_relu" not in out and "dense_known_bad" not in out
    assert out.splitlines()[-1].startswith("== 1 pass: all as expected ==")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_atol_makes_a_failing_value_case_pass(write_case_file, capsys):
    path = write_case_file("cases/ln.py", LAYER_NORM)
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative")
    assert code == EXIT_UNEXPECTED
    needed = float(out.split("would pass with atol>=")[1].split()[0])
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative", "--atol", str(needed * 2))
    assert code == EXIT_OK
    assert "PASS   layer_norm_eps[forward-pynative-cpu]" in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_rtol_makes_a_relative_error_pass_and_replaces_only_rtol(write_case_file, capsys):
    path = write_case_file("cases/scaled.py", SCALED)  # MindSpore output is 1.01 x torch's
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative", "--rtol", "0.005")
    assert code == EXIT_UNEXPECTED
    assert "exceed atol=1e-05 rtol=0.005;" in out  # the dtype default atol is kept
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative", "--rtol", "0.0101")
    assert code == EXIT_OK
    assert "PASS   dense_scaled[forward-pynative-cpu]" in out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_report_writes_summary_and_cells(write_case_file, tmp_path, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    report = tmp_path / "report"
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "pynative", "--report", str(report))
    assert code == EXIT_OK
    assert f"report: {report / 'index.html'}" in out.splitlines()[-1]
    data = json.loads((report / "summary.json").read_text())
    assert data["all_as_expected"] is True
    assert [(v["item"], v["status"]) for v in data["verdicts"]] == [
        ("dense_ok[forward-pynative-cpu]", "pass"), ("dense_known_bad[forward-pynative-cpu]", "xfail")]
    assert sorted(p.name for p in (report / "cells").iterdir()) == [
        "dense_known_bad.html", "dense_known_bad.json", "dense_known_bad.md", "dense_ok.html", "dense_ok.json", "dense_ok.md"]
    assert (report / "index.html").is_file()
    md = (report / "cells" / "dense_known_bad.md").read_text()
    assert "| `weight` | (2,3) | `weight` | (2,3) | same name |" in md
    assert "| `out` | **no**: value | (4,2) float32 | (4,2) float32 |" in md


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_graph_mode_runs_too(write_case_file, capsys):
    path = write_case_file("cases/ok.py", AS_EXPECTED)
    code, out, _ = run(capsys, "compare", "-v", str(path), "--mode", "graph", "-k", "dense_ok")
    assert code == EXIT_OK
    assert out.startswith("PASS   dense_ok[forward-graph-cpu]  1 tensor(s) agree")


def migcheck_script() -> Path:
    script = Path(sys.executable).parent / "migcheck"
    if not script.exists():
        pytest.skip(f"the migcheck console script is not installed next to {sys.executable}")
    return script


@pytest.mark.parametrize("body, expected_code", [(AS_EXPECTED, 0), (AS_EXPECTED + RELU, 1)], ids=["ok", "unexpected"])
def test_installed_script_exit_codes(write_case_file, tmp_path, body, expected_code):
    path = write_case_file("cases/demo.py", body)
    report = tmp_path / "report"
    proc = subprocess.run([str(migcheck_script()), "compare", "-v", str(path), "--mode", "pynative", "--color", "never",
                           "--report", str(report)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == expected_code, proc.stdout + proc.stderr
    assert "PASS   dense_ok[forward-pynative-cpu]" in proc.stdout
    statuses = {v["case"]: v["status"] for v in json.loads((report / "summary.json").read_text())["verdicts"]}
    assert statuses == {"dense_ok": "pass", "dense_known_bad": "xfail",
                        **({"dense_relu": "fail"} if expected_code else {})}
