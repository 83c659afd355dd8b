"""The pytest plugin (migcheck.pytest_plugin), driven through pytester in subprocesses.

Subprocesses, because MindSpore's global state (device, mode) does not survive in-process reruns.
The plugin is loaded with `-p migcheck.pytest_plugin`; the installed package also registers it
through its pytest11 entry point, and pytest keeps one registration (tested below).
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

PLUGIN = ("-p", "migcheck.pytest_plugin")

DEMO = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value")
'''
BROKEN_DEFINITION = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
bad_spec = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, -3)}, checks=FORWARD)
'''
ONLY_OK = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''


@pytest.fixture
def project(pytester, case_text):
    """project({"demo.py": body}, raw={"x.py": text}) writes case files (prelude + body) and raw files under cases/."""

    def make(files: dict, raw: dict = None):
        cases = pytester.mkdir("cases")
        for name, body in files.items():
            (cases / name).write_text(case_text(body))
        for name, text in (raw or {}).items():
            (cases / name).write_text(text)
        return pytester

    return make


def outcome_lines(result) -> dict:
    """node id -> PASSED/FAILED/XFAIL/... from the -rA short summary."""
    out = {}
    for line in result.outlines:
        m = re.match(r"^(PASSED|FAILED|XFAIL|XPASS|SKIPPED|ERROR) (\S+)", line)
        if m:
            out[m.group(2)] = m.group(1)
    return out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_items_pass_fail_and_xfail_with_the_diff_summary(project):
    pytester = project({"demo.py": DEMO})
    result = pytester.runpytest_subprocess(*PLUGIN, "--migcheck-mode", "pynative", "-rA")
    assert outcome_lines(result) == {
        "cases/demo.py::dense_ok[forward-pynative-cpu]": "PASSED",
        "cases/demo.py::dense_relu[forward-pynative-cpu]": "FAILED",
        "cases/demo.py::dense_known_bad[forward-pynative-cpu]": "XFAIL",
    }
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*_ dense_relu [[]forward/pynative/cpu[]] _*",
        "FAIL: error budget exceeded in out: *; by rtol/atol as well: * of 8 elements * exceed atol=1e-05"
        " rtol=1.3e-06; max abs err *",
        "  out: value; torch (4,2) float32, mindspore (4,2) float32; max abs *, * mismatched, cosine *",
    ])
    assert "XFAIL cases/demo.py::dense_known_bad[forward-pynative-cpu] - failed as expected (value)" in text
    # The failure is the diff, not a traceback into migcheck's internals.
    assert "Traceback" not in text
    assert "migcheck/running/pipeline.py" not in text and "migcheck/pytest_plugin.py" not in text
    assert "MigcheckFailure" not in text


def test_mode_option_selects_items(project):
    pytester = project({"demo.py": ONLY_OK})
    default = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q")
    default.stdout.fnmatch_lines(["cases/demo.py::dense_ok[[]forward-pynative-cpu[]]",
                                  "cases/demo.py::dense_ok[[]forward-graph-cpu[]]"])
    pynative = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    ids = [line for line in pynative.outlines if "::" in line]
    assert ids == ["cases/demo.py::dense_ok[forward-pynative-cpu]"]
    bad = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "eager")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--migcheck-mode: unknown mode 'eager'; choose from pynative, graph*"])


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_broken_case_definition_fails_alone(project):
    pytester = project({"demo.py": BROKEN_DEFINITION})
    result = pytester.runpytest_subprocess(*PLUGIN, "--migcheck-mode", "pynative", "-rA")
    assert outcome_lines(result) == {
        "cases/demo.py::bad_spec[definition]": "FAILED",
        "cases/demo.py::dense_ok[forward-pynative-cpu]": "PASSED",
    }
    result.stdout.fnmatch_lines(["bad case definition: input 'x': shape (4, -3) must be a tuple of non-negative"
                                 " integers (fix: correct the input spec)"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_syntax_error_is_a_collection_error_for_that_file_only(project):
    pytester = project({"good.py": ONLY_OK}, raw={"broken.py": "x = (\n"})
    collected = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert collected.ret == pytest.ExitCode.INTERRUPTED
    collected.stdout.fnmatch_lines(["cases/good.py::dense_ok[[]forward-pynative-cpu[]]",
                                    "*ERROR collecting cases/broken.py*",
                                    "syntax error at line 1: * fix the case file"])
    ran = pytester.runpytest_subprocess(*PLUGIN, "--migcheck-mode", "pynative", "-rA", "--continue-on-collection-errors")
    assert outcome_lines(ran) == {"cases/broken.py": "ERROR", "cases/good.py::dense_ok[forward-pynative-cpu]": "PASSED"}
    ran.assert_outcomes(passed=1, errors=1)


def _report(path):
    data = json.loads(path.read_text())
    verdicts = {(v["item"], v["status"], v["kind"], v["message"]) for v in data["verdicts"]}
    return data, verdicts


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_report_is_merged_and_the_same_under_xdist(project):
    pytester = project({"demo.py": DEMO, "other.py": ONLY_OK.replace("dense_ok", "other_ok")},
                       raw={"broken.py": "x = (\n"})
    common = (*PLUGIN, "--migcheck-mode", "pynative", "--continue-on-collection-errors", "-p", "no:cacheprovider")
    serial = pytester.runpytest_subprocess(*common, "--migcheck-report", "serial")
    assert serial.ret == pytest.ExitCode.TESTS_FAILED
    data, verdicts = _report(pytester.path / "serial" / "summary.json")
    assert data["counts"] == {"pass": 2, "fail": 1, "error": 0, "skip": 0, "xfail": 1, "xpass": 0, "crashed": 0,
                              "timeout": 0}
    assert data["all_as_expected"] is False
    assert [e.split(":")[0] for e in data["collection_errors"]] == ["cases/broken.py"]
    assert {(item, status) for item, status, _, _ in verdicts} == {
        ("dense_ok[forward-pynative-cpu]", "pass"), ("dense_relu[forward-pynative-cpu]", "fail"),
        ("dense_known_bad[forward-pynative-cpu]", "xfail"), ("other_ok[forward-pynative-cpu]", "pass")}
    cells = sorted(p.name for p in (pytester.path / "serial" / "cells").iterdir())
    assert cells == sorted(f"{c}.{e}" for c in ("dense_ok", "dense_relu", "dense_known_bad", "other_ok")
                           for e in ("json", "md", "html"))

    parallel = pytester.runpytest_subprocess(*common, "--migcheck-report", "parallel", "-n", "2",
                                             "--junitxml", "junit.xml")
    assert parallel.ret == pytest.ExitCode.TESTS_FAILED
    parallel_data, parallel_verdicts = _report(pytester.path / "parallel" / "summary.json")
    assert parallel_verdicts == verdicts  # same items, statuses, kinds and messages (same seeds)
    assert parallel_data["counts"] == data["counts"]
    assert parallel_data["collection_errors"] == data["collection_errors"]
    # The HTML report is the controller's merged one: every item, from both workers, in one index.
    index = (pytester.path / "parallel" / "index.html").read_text()
    assert sorted(re.findall(r'<td class="case"><a href="cells/(\w+)\.html', index)) == [
        "dense_known_bad", "dense_ok", "dense_relu", "other_ok"]
    assert '<b class="c-fail">1</b> fail' in index and "cases/broken.py" in index
    [relu] = json.loads((pytester.path / "parallel" / "cells" / "dense_relu.json").read_text())["verdicts"]
    assert relu["tensors"][0]["error_sample"]["hist_counts"]  # the plots' data reached the controller
    assert 'class="errplot" data-tensor="out"' in (pytester.path / "parallel" / "cells" / "dense_relu.html").read_text()
    # JUnit: the properties per item, a link to the case page, and the verdict without its error sample.
    props = {}
    for case in ET.parse(pytester.path / "junit.xml").iter("testcase"):
        props[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    relu_props = props["dense_relu[forward-pynative-cpu]"]
    assert relu_props["migcheck_status"] == "fail" and relu_props["migcheck_kind"] == "value"
    assert float(relu_props["max_abs_err"]) > 0
    assert relu_props["migcheck_page"] == str(Path("parallel") / "cells" / "dense_relu.html")
    junit_verdict = json.loads(relu_props["migcheck_verdict"])
    assert junit_verdict["status"] == "fail" and junit_verdict["tensors"][0]["error_sample"] is None


def test_plugin_registers_once_with_or_without_entry_points(project, monkeypatch):
    pytester = project({"demo.py": ONLY_OK})
    both = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert both.ret == pytest.ExitCode.OK
    assert "already registered" not in both.stderr.str()
    both.stdout.fnmatch_lines(["cases/demo.py::dense_ok[[]forward-pynative-cpu[]]"])
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    without_entry_points = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    without_entry_points.stdout.fnmatch_lines(["cases/demo.py::dense_ok[[]forward-pynative-cpu[]]"])
    nothing = pytester.runpytest_subprocess("--collect-only", "-q")
    assert nothing.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # the plugin is what collects case files


def test_only_case_files_in_case_folders_are_collected(project):
    pytester = project({"demo.py": ONLY_OK},
                       raw={"_helpers.py": "raise RuntimeError('not a case file')\n",
                            "conftest.py": "",
                            "test_unit.py": "def test_plain():\n    assert 1 + 1 == 2\n"})
    (pytester.path / "elsewhere.py").write_text("raise RuntimeError('outside cases/')\n")
    result = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert result.ret == pytest.ExitCode.OK
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["cases/demo.py::dense_ok[forward-pynative-cpu]", "cases/test_unit.py::test_plain"]


def test_case_dirs_ini_option(pytester, case_text):
    pytester.makeini("[pytest]\nmigcheck_case_dirs = ports\n")
    pytester.mkdir("ports")
    (pytester.path / "ports" / "dense.py").write_text(case_text(ONLY_OK))
    result = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "graph")
    assert [line for line in result.outlines if "::" in line] == ["ports/dense.py::dense_ok[forward-graph-cpu]"]


def test_a_checkout_inside_a_folder_named_cases_does_not_collect_its_helpers(pytester, case_text, monkeypatch):
    # e.g. /home/me/cases/my-port/: only folders below the rootdir decide what a case file is.
    proj = pytester.mkdir("cases") / "my-port"
    (proj / "cases").mkdir(parents=True)
    (proj / "lib").mkdir()
    (proj / "pytest.ini").write_text("[pytest]\n")
    (proj / "cases" / "demo.py").write_text(case_text(ONLY_OK))
    (proj / "lib" / "util.py").write_text("raise RuntimeError('a helper, not a case file')\n")
    monkeypatch.chdir(proj)
    result = pytester.runpytest_subprocess(*PLUGIN, "--collect-only", "-q", "--migcheck-mode", "pynative")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert [line for line in result.outlines if "::" in line] == ["cases/demo.py::dense_ok[forward-pynative-cpu]"]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_run_the_cli_and_pytest_give_the_same_verdicts_journal_and_report(project):
    """One session behind every front end: the same cases through migcheck.run(), `migcheck compare` and pytest
    give the same verdicts (status, kind, message), the same journal records and the same report pages."""
    import subprocess
    import sys

    from migcheck.report.journal import read_journal

    pytester = project({"demo.py": DEMO})
    root = pytester.path
    (root / "via_run.py").write_text("import migcheck\n"
                                     "migcheck.run('cases', modes=('pynative',), report='api')\n")
    subprocess.run([sys.executable, "via_run.py"], cwd=root, check=True, capture_output=True)
    cli = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "cases", "--mode", "pynative",
                          "--report", "cli"], cwd=root, capture_output=True, text=True)
    assert cli.returncode == 1, cli.stderr  # dense_relu fails: not as expected
    plugin = pytester.runpytest_subprocess(*PLUGIN, "--migcheck-mode", "pynative", "-p", "no:cacheprovider",
                                           "--migcheck-report", "pyt")
    assert plugin.ret == pytest.ExitCode.TESTS_FAILED
    reports = {name: _report(root / name / "summary.json") for name in ("api", "cli", "pyt")}
    assert reports["api"][1] == reports["cli"][1] == reports["pyt"][1]
    assert len(reports["api"][1]) == 3
    assert reports["api"][0]["counts"] == reports["cli"][0]["counts"] == reports["pyt"][0]["counts"]
    # The same order (the plan's), the same run record: planned items, ended, not partial.
    order = {name: [v["item"] for v in reports[name][0]["verdicts"]] for name in reports}
    assert order["api"] == order["cli"] == order["pyt"]
    runs = {name: read_journal(root / name) for name in ("api", "cli", "pyt")}
    journals = {name: {(v.item, v.status, v.kind, v.message) for v in run.verdicts} for name, run in runs.items()}
    assert journals["api"] == journals["cli"] == journals["pyt"] == reports["api"][1]
    assert [(run.planned, run.ended, run.partial, run.errors) for run in runs.values()] == [
        (tuple(order["api"]), True, False, ())] * 3
    for name in ("cli", "pyt"):
        assert sorted(p.name for p in (root / name / "cells").iterdir()) == sorted(
            p.name for p in (root / "api" / "cells").iterdir())
