"""Robustness, signals and the journal: real SIGINT, SIGTERM and SIGKILL sent to a real `migcheck compare` and a
real `pytest -n 2` while MindSpore ops run (a forward that loops over Dense for seconds, after GRAPH compiles
have installed MindSpore's own SIGINT handler). Each stop keeps every finished verdict: in a partial report
(SIGINT 130, SIGTERM 143) and in the journal, from which `migcheck report DIR` renders a dead run's report.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from migcheck.report.journal import read_journal

pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(os.name != "posix" or not sys.platform.startswith("linux"), reason="POSIX signals")]

CASES = '''
import time

from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def ms_busy():
    import mindspore

    class Busy(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = mindspore.nn.Dense(3, 2)

        def construct(self, x):  # real MindSpore ops, for seconds
            end = time.monotonic() + 8
            y = self.dense(x)
            while time.monotonic() < end:
                y = self.dense(x) + 0 * y
            return y
    return Busy()


# Its GRAPH items compile, which installs MindSpore's SIGINT handler before the busy case runs.
first = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward", "backward"))
busy = PairedCase(torch=torch_linear, mindspore=ms_busy, inputs={"x": uniform(4, 3)}, checks=("forward",),
                  modes=("pynative",))
never = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
'''
FIRST = ["first[forward-pynative-cpu]", "first[forward-graph-cpu]", "first[backward-pynative-cpu]",
         "first[backward-graph-cpu]"]
# busy's GRAPH item is planned too (a skip verdict, had it been reached).
NOT_RUN = ["busy[forward-pynative-cpu]", "busy[forward-graph-cpu]", "never[forward-pynative-cpu]", "never[forward-graph-cpu]"]
ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "busy.py").write_text(CASES)
    return tmp_path


def _verdicts_in_journal(report: Path) -> int:
    return sum(p.read_text().count('{"verdict":') for p in report.glob("journal*.jsonl"))


def _compare(project: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "migcheck.cli", "compare", "-v", "cases", "--report", "report", "--color",
                             "never"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)


def _into_busy(proc: subprocess.Popen) -> list:
    lines = [proc.stdout.readline() for _ in FIRST]
    assert all(line.startswith("PASS") for line in lines), "".join(lines) + proc.stderr.read()
    time.sleep(1.5)  # inside busy's forward: MindSpore ops running
    return lines


@pytest.mark.parametrize("signum, code, said", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"),
                                                (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_compare_stopped_by_a_signal_writes_a_partial_report(project, signum, code, said):
    proc = _compare(project)
    try:
        _into_busy(proc)
        proc.send_signal(signum)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert time.monotonic() - sent < 30
    assert "Traceback" not in err
    assert f"== 4 pass: {said} after 4 of 8 item(s), partial results ==" in out
    data = json.loads((project / "report" / "summary.json").read_text())
    assert data["partial"] is True and data["all_as_expected"] is False
    assert [v["item"] for v in data["verdicts"]] == FIRST
    assert data["not_run"] == NOT_RUN
    run = read_journal(project / "report")
    assert [v.item for v in run.verdicts] == FIRST and run.ended and run.partial and run.reason == said


def test_sigkill_loses_only_the_item_in_flight_and_report_renders_the_journal(project):
    proc = _compare(project)
    try:
        _into_busy(proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    report = project / "report"
    assert not (report / "summary.json").exists()  # died before its end: only the journal is there
    run = read_journal(report)
    assert [v.item for v in run.verdicts] == FIRST and not run.ended and run.partial
    rendered = subprocess.run([sys.executable, "-m", "migcheck.cli", "report", "report"], cwd=project,
                              capture_output=True, text=True, env=ENV)
    assert rendered.returncode == 0, rendered.stderr
    assert "partial: 4 planned item(s) never ran" in rendered.stdout
    data = json.loads((report / "summary.json").read_text())
    assert data["partial"] is True and [v["item"] for v in data["verdicts"]] == FIRST
    assert data["not_run"] == NOT_RUN
    index = (report / "index.html").read_text()
    assert 'id="partial"' in index and "never[forward-graph-cpu]" in index


@pytest.mark.parametrize("signum, code, group", [(signal.SIGINT, 130, True), (signal.SIGTERM, 143, False)])
def test_pytest_xdist_stopped_by_a_signal_keeps_every_finished_verdict(project, signum, code, group):
    """SIGINT to the whole process group (a terminal's Ctrl-C), SIGTERM to pytest alone (a CI job cancelled)."""
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "-n", "2", "cases",
                             "--migcheck-report", "report", "-p", "no:cacheprovider", "-q"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
    report = project / "report"
    try:
        deadline = time.monotonic() + 120
        while _verdicts_in_journal(report) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        before = _verdicts_in_journal(report)
        assert before >= 3
        time.sleep(1.0)  # a worker is inside busy's forward by now
        if group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, out[-2000:] + err[-2000:]
    data = json.loads((report / "summary.json").read_text())
    assert data["partial"] is True and data["all_as_expected"] is False
    assert len(data["verdicts"]) >= before  # nothing finished is lost, whichever process held it
    assert {v["item"] for v in data["verdicts"]} == {v.item for v in read_journal(report).verdicts}
    assert set(data["verdicts"][0]) >= {"item", "status", "tensors"}


WATCHED = '''
import os, signal, time
from migcheck.running import signals
signals.install()
import mindspore, numpy as np
mindspore.set_context(mode=mindspore.GRAPH_MODE)
x = mindspore.Tensor(np.ones((2, 2), np.float32))
net = mindspore.nn.Dense(2, 2)
net(x)  # the compile installs MindSpore's SIGINT handler
print("replaced", signals._sigaction(signal.SIGINT).handler != signals._saved[signal.SIGINT].handler)
time.sleep(0.1)
print("restored", signals._sigaction(signal.SIGINT).handler == signals._saved[signal.SIGINT].handler)
try:
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100):
        net(x)
        time.sleep(0.01)
except KeyboardInterrupt as exc:
    print("caught", type(exc).__name__)
'''


def test_the_watcher_puts_python_s_sigint_handler_back_after_a_graph_compile(tmp_path):
    """No item boundary here (no reclaim()): only the watcher thread stands between Ctrl-C and exit 143."""
    (tmp_path / "watched.py").write_text(WATCHED)
    result = subprocess.run([sys.executable, "watched.py"], cwd=tmp_path, capture_output=True, text=True, env=ENV,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["replaced", "True", "restored", "True", "caught", "KeyboardInterrupt"]
