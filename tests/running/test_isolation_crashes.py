"""Robustness, crashes: a case that kills its process (os.abort, SIGSEGV) becomes a `crashed` verdict, and no
other result is lost: with `migcheck compare --isolate` (a child process per case), and under pytest-xdist
(which replaces a crashed worker).

Real crashes in real child processes: a torch module whose backward calls os.abort(), and a torch
optimizer whose factory sends its process SIGSEGV.
"""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import re

import pytest

from migcheck.cli import EXIT_UNEXPECTED, main
from migcheck.planning.discovery import load_file
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.report import render_report, write_report
from migcheck.report.jsonfile import read_run
from migcheck.report.terminal import render
from migcheck.judging.verdict import STATUSES, Verdict

pytestmark = pytest.mark.timeout(300)

LINEAR = '''
import os
import signal
import time

from migcheck import FrameworkPair, PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)
'''

FRAGILE = LINEAR + '''

def torch_fragile():
    """Linear(3, 2), except that its backward aborts."""
    import torch

    class AbortInBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            os.abort()

    class Fragile(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x):
            return AbortInBackward.apply(self.lin(x))

    return Fragile()


def ms_port():
    import mindspore

    class Port(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin = mindspore.nn.Dense(3, 2)

        def construct(self, x):
            return self.lin(x)

    return Port()


def torch_optimizer_segfaults(params):
    os.kill(os.getpid(), signal.SIGSEGV)


def ms_sgd(params):
    import mindspore
    return mindspore.nn.SGD(params, learning_rate=0.1)


fragile = PairedCase(torch=torch_fragile, mindspore=ms_port, inputs={"x": uniform(4, 3)},
                     checks=("forward", "backward", "train", "step"),
                     optimizer=FrameworkPair(torch=torch_optimizer_segfaults, mindspore=ms_sgd))
'''


def _comparable(v: Verdict) -> tuple:
    """A verdict without what may differ between two runs of the same item (time, process notes)."""
    return (v.item, v.status, v.kind, v.message, v.expected, v.tensors, v.mapping, v.reference, v.profile)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_isolated_crashes_become_verdicts_and_every_other_result_is_kept(tmp_path, capsys):
    path = tmp_path / "cases" / "crashy.py"
    path.parent.mkdir()
    path.write_text(FRAGILE)
    report = tmp_path / "report"
    code = main(["compare", str(path), "--isolate", "--mode", "pynative", "--report", str(report), "--color", "never"])
    out = capsys.readouterr().out
    assert code == EXIT_UNEXPECTED

    data = json.loads((report / "summary.json").read_text())
    verdicts = {v["item"]: v for v in data["verdicts"]}
    # 2 child processes. The first passes forward and aborts in backward; a new one runs what was left:
    # train passes, step segfaults. The verdict finished before each crash is kept, and so is the one after.
    assert [(v["item"], v["status"], v["kind"]) for v in data["verdicts"]] == [
        ("fragile[forward-pynative-cpu]", "pass", None),
        ("fragile[backward-pynative-cpu]", "crashed", "crashed"),
        ("fragile[train-pynative-cpu]", "pass", None),
        ("fragile[step-pynative-cpu]", "crashed", "crashed"),
    ]
    assert data["counts"]["crashed"] == 2 and data["counts"]["pass"] == 2 and data["all_as_expected"] is False

    aborted = verdicts["fragile[backward-pynative-cpu]"]
    assert aborted["message"].startswith("the child process running this case died from SIGABRT (signal 6) during"
                                         " this item; items finished before it keep their verdicts, the rest run in"
                                         " a new process")
    segv = verdicts["fragile[step-pynative-cpu]"]
    assert segv["message"].startswith("the child process running this case died from SIGSEGV (signal 11)")
    # The last lines of the child's stderr: faulthandler's report, down to the line of the case that crashed.
    for verdict, fatal, where in ((aborted, "Fatal Python error: Aborted", "in backward"),
                                  (segv, "Fatal Python error: Segmentation fault", "in torch_optimizer_segfaults")):
        lines = verdict["error"].splitlines()
        assert 3 <= len(lines) <= 20
        assert fatal in verdict["error"]
        assert re.search(rf'File "{re.escape(str(path.resolve()))}", line \d+ {where}', verdict["error"])
        assert verdict["file"] == str(path.resolve())

    # Shown on the terminal, in the HTML index and on the case's page.
    assert re.search(r"^CRASHED  fragile\[backward-pynative-cpu\]  the child process running this case died from"
                     r" SIGABRT", out, re.M)
    assert "        Fatal Python error: Segmentation fault" in out
    assert out.splitlines()[-1].startswith("== 2 pass, 2 crashed: 2 not as expected == ")
    index = (report / "index.html").read_text()
    assert '<b class="c-crashed">2</b> crashed' in index and 'class="badge s-crashed"' in index
    assert "Fatal Python error: Aborted" in (report / "cells" / "fragile.html").read_text()

    # The verdicts that crossed the process boundary lost nothing: the same as run here, in-process.
    cases = {c.name: c for c in load_file(path).cases}
    options = RunOptions(modes=("pynative",))
    for name, check in (("fragile", "forward"), ("fragile", "train")):
        here = run_item(Item(cases[name], check, "pynative", "cpu"), options)
        there = next(v for v in read_run(report).verdicts if v.item == here.item)
        assert _comparable(there) == _comparable(here)


XDIST_CASES = LINEAR + '''

def torch_aborts():
    os.abort()


def torch_hangs():
    time.sleep(1000)


ok_one = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
aborts = PairedCase(torch=torch_aborts, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
ok_two = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(2, 3)}, checks=("forward",))
hangs = PairedCase(torch=torch_hangs, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",), timeout=1)
'''


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_crashed_xdist_worker_loses_no_other_result_in_the_merged_report(pytester):
    pytester.mkdir("cases")
    (pytester.path / "cases" / "demo.py").write_text(XDIST_CASES)
    result = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "--migcheck-mode", "pynative", "-n", "2",
                                           "--migcheck-report", "report", "-rA", "-p", "no:cacheprovider",
                                           "--junitxml", "junit.xml")
    outcomes = {}
    for line in result.outlines:
        m = re.match(r"^(PASSED|FAILED|ERROR) (\S+)", line)
        if m:
            outcomes[m.group(2)] = m.group(1)
    # pytest's own output: the crashed item failed (xdist says the worker crashed), the rest ran.
    assert outcomes == {"cases/demo.py::ok_one[forward-pynative-cpu]": "PASSED",
                        "cases/demo.py::aborts[forward-pynative-cpu]": "FAILED",
                        "cases/demo.py::ok_two[forward-pynative-cpu]": "PASSED",
                        "cases/demo.py::hangs[forward-pynative-cpu]": "ERROR"}, result.stdout.str()
    result.stdout.fnmatch_lines(["*worker 'gw*' crashed while running 'cases/demo.py::aborts[[]forward-pynative-cpu[]]'*"])
    # The merged report: every result, the crashed item as `crashed`, the hung one (pytest-timeout) as `timeout`.
    data = json.loads((pytester.path / "report" / "summary.json").read_text())
    assert {v["item"]: v["status"] for v in data["verdicts"]} == {
        "ok_one[forward-pynative-cpu]": "pass", "ok_two[forward-pynative-cpu]": "pass",
        "aborts[forward-pynative-cpu]": "crashed", "hangs[forward-pynative-cpu]": "timeout"}
    crashed = next(v for v in data["verdicts"] if v["status"] == "crashed")
    assert crashed["message"].startswith("the pytest-xdist worker running this item died (worker 'gw")
    assert crashed["file"].endswith("cases/demo.py") and crashed["expected"] == "pass"
    timed_out = next(v for v in data["verdicts"] if v["status"] == "timeout")
    assert timed_out["message"].startswith("timed out: Timeout (>1.0s) from pytest-timeout.")
    assert data["counts"]["crashed"] == 1 and data["counts"]["timeout"] == 1 and data["counts"]["pass"] == 2
    # JUnit: the crashed and the hung item are errors, and carry migcheck's properties like the others.
    junit = {tc.get("name"): tc for tc in ET.parse(pytester.path / "junit.xml").iter("testcase")}
    for name, status in (("aborts", "crashed"), ("hangs", "timeout"), ("ok_one", "pass")):
        tc = junit[f"{name}[forward-pynative-cpu]"]
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        assert props["migcheck_status"] == status and json.loads(props["migcheck_verdict"])["status"] == status
        assert (tc.find("error") is not None) == (status != "pass")


def test_reports_show_crashed_and_timeout_and_survive_a_status_they_do_not_know(tmp_path):
    base = dict(check="forward", mode="pynative", backend="cpu", kind=None, message="")
    verdicts = [Verdict(case="a", status="crashed", **{**base, "kind": "crashed", "message": "died from SIGSEGV"}),
                Verdict(case="b", status="timeout", **{**base, "kind": "timeout", "message": "timed out"}),
                Verdict(case="c", status="pass", **base)]
    assert {"crashed", "timeout"} <= set(STATUSES) and not any(v.as_expected for v in verdicts[:2])
    write_report(tmp_path, verdicts)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert (data["counts"]["crashed"], data["counts"]["timeout"], data["counts"]["pass"]) == (1, 1, 1)
    index = (tmp_path / "index.html").read_text()
    # Sorted as the most severe statuses, before error (0).
    assert re.search(r'<td data-sort="-2"><span class="badge s-crashed">crashed</span>', index)
    assert re.search(r'<td data-sort="-1"><span class="badge s-timeout">timeout</span>', index)
    assert "| forward | pynative | cpu | **timeout** |" in (tmp_path / "cells" / "b.md").read_text()
    # A report from a later migcheck, with a status this one does not know, still renders.
    data["verdicts"][2]["status"] = "flaky<script>"
    (tmp_path / "summary.json").write_text(json.dumps(data))
    index_path, run, _ = render_report(tmp_path)
    html = index_path.read_text()
    assert '<td data-sort="9"><span class="badge s-flaky&lt;script&gt;">flaky&lt;script&gt;</span>' in html
    assert 'data-status="flaky&lt;script&gt;"' in html and "<script>flaky" not in html
    assert render(run.verdicts).splitlines()[-1] == "== 1 crashed, 1 timeout, 1 flaky<script>: 3 not as expected =="


def test_an_item_whose_case_cannot_load_gets_its_verdict_from_the_one_builder():
    from migcheck.running.outcome import Outcome, unloaded_verdict
    from migcheck.vocab import Kind, Status

    outcome = Outcome("crashed", "the pytest-xdist worker running this item died (Segmentation fault)",
                      notes=("reported by pytest-xdist",))
    verdict = unloaded_verdict("net", "forward", "pynative", "cpu", "cases/net.py", outcome, "crashed")
    assert (verdict.item, verdict.status, verdict.kind) == ("net[forward-pynative-cpu]", Status.CRASHED, Kind.CRASHED)
    assert verdict.message.endswith("(Segmentation fault)") and verdict.notes == ("reported by pytest-xdist",)
