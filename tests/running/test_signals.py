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

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore, pytest.mark.timeout(300),
              pytest.mark.skipif(os.name != "posix" or not sys.platform.startswith("linux"), reason="POSIX signals")]

CASES = '''
import os
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
            open(os.environ["MIGCHECK_TEST_MARK"], "w").close()  # the test's cue: MindSpore ops are running
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
ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "busy.py").write_text(CASES)
    return tmp_path


def _verdicts_in_journal(report: Path) -> int:
    return sum(p.read_text().count('{"verdict":') for p in report.glob("journal*.jsonl"))


def _compare(project: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "migcheck.cli", "compare", "-v", "cases", "--report", "report", "--color",
                             "never"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(project))


def _env(project: Path) -> dict:
    return {**ENV, "MIGCHECK_TEST_MARK": str(project / "busy-running")}


def _wait_for_busy(project: Path) -> None:
    """Until busy's forward is running MindSpore ops (it writes the mark): an event, not a fixed wait."""
    deadline = time.monotonic() + 120
    while not (project / "busy-running").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert (project / "busy-running").exists(), "the busy case never started"


def _into_busy(proc: subprocess.Popen, project: Path) -> list:
    lines = [proc.stdout.readline() for _ in FIRST]
    assert all(line.startswith("PASS") for line in lines), "".join(lines) + proc.stderr.read()
    _wait_for_busy(project)
    return lines


@pytest.mark.parametrize("signum, code, said", [(signal.SIGINT, 130, "interrupted (Ctrl-C)"),
                                                (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_compare_stopped_by_a_signal_writes_a_partial_report(project, signum, code, said):
    proc = _compare(project)
    try:
        _into_busy(proc, project)
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
        _into_busy(proc, project)
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
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(project),
                            start_new_session=True)
    report = project / "report"
    try:
        deadline = time.monotonic() + 120
        while _verdicts_in_journal(report) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        before = _verdicts_in_journal(report)
        assert before >= 3
        _wait_for_busy(project)  # a worker is inside busy's forward
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


AROUND = '''
import os, signal
from migcheck.util import signals
signals.install()
import mindspore, numpy as np
mindspore.set_context(mode=mindspore.GRAPH_MODE)
x = mindspore.Tensor(np.ones((2, 2), np.float32))
net = mindspore.nn.Dense(2, 2)
with signals.around_mindspore():
    net(x)  # the GRAPH run installs MindSpore's SIGINT handler
    print("inside", signals.mindspore_holds_sigint())
print("after", signals.mindspore_holds_sigint())  # put back as the call ended: no thread, no wait


def ctrl_c_inside(wrap):
    with signals.around_mindspore():
        try:
            net(x)  # MindSpore's handler holds SIGINT again
            os.kill(os.getpid(), signal.SIGINT)  # answered by MindSpore with SIGTERM
            for _ in range(10000):
                net(x)
        except KeyboardInterrupt as exc:
            if wrap:  # what MindSpore makes of an interrupt raised while it calls back into Python
                raise RuntimeError("wrapped by the framework") from exc
            raise
    print("not reached")


for wrap in (False, True):
    try:
        ctrl_c_inside(wrap)
    except KeyboardInterrupt as exc:
        print("ctrl-c", type(exc).__name__)
try:
    os.kill(os.getpid(), signal.SIGTERM)  # a real SIGTERM outside MindSpore's calls stays one
    for _ in range(10000):
        net(x)
except KeyboardInterrupt as exc:
    print("sigterm", type(exc).__name__)
'''


def test_handlers_are_put_back_around_mindspore_calls_and_every_ctrl_c_is_a_keyboard_interrupt(tmp_path):
    """No watcher thread: Python's handlers come back as each MindSpore call ends; a Ctrl-C that MindSpore turns
    into SIGTERM, or wraps in its own exception, still comes out as KeyboardInterrupt (exit 130)."""
    (tmp_path / "around.py").write_text(AROUND)
    result = subprocess.run([sys.executable, "around.py"], cwd=tmp_path, capture_output=True, text=True, env=ENV,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:-1] == ["inside True", "after False", "ctrl-c KeyboardInterrupt",
                                              "ctrl-c KeyboardInterrupt", "sigterm Terminated"]


DURING_IMPORT = '''
import os, signal, sys
from migcheck.util import signals
signals.install()


class CtrlCMidImport:  # sends Ctrl-C to this process exactly while mindspore's package imports its parts
    def find_spec(self, name, path=None, target=None):
        if name == "mindspore.common" and not getattr(self, "sent", False):
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
            print("pending", signal.SIGINT in signal.sigpending(), flush=True)  # held back, not raised here
        return None


sys.meta_path.insert(0, CtrlCMidImport())
import mindspore  # completes: the Ctrl-C is held back

print("imported", "mindspore.nn" in sys.modules)
try:
    signals.check()  # the next safe point
except KeyboardInterrupt:
    print("interrupted after the import")
import numpy as np
print("usable", float(mindspore.ops.add(mindspore.Tensor(np.ones(1, np.float32)), 1)[0]))
'''


def test_ctrl_c_during_the_mindspore_import_is_raised_after_it_cleanly(tmp_path):
    (tmp_path / "during_import.py").write_text(DURING_IMPORT)
    result = subprocess.run([sys.executable, "during_import.py"], cwd=tmp_path, capture_output=True, text=True,
                            env=ENV, timeout=120)
    assert result.returncode == 0 and "Fatal Python error" not in result.stderr, result.stderr[-2000:]
    assert result.stdout.split("\n")[:-1] == ["pending True", "imported True", "interrupted after the import",
                                              "usable 2.0"]


AT_THE_END = '''
import os, signal
import migcheck
from migcheck.report import journal
from migcheck.util import signals

compact = journal.compact


def compact_then_ctrl_c(report):  # a real Ctrl-C while the report is being finished (after its HTML is written)
    compact(report)
    os.kill(os.getpid(), signal.SIGINT)


journal.compact = compact_then_ctrl_c
result = migcheck.run("cases/busy.py", keyword="first", checks=("forward",), modes=("pynative",), report="report")
print("returned", result.interrupted, [v.item for v in result.verdicts])
print("summary", os.path.exists("report/summary.json"))
try:  # signals raise again after run(): the caller's own code can be stopped
    os.kill(os.getpid(), signal.SIGINT)
    print("not raised")
except KeyboardInterrupt:
    print("raised after run")
signals.hold()  # the end of a run: one that comes now is held, and raised where the run lets go
os.kill(os.getpid(), signal.SIGINT)
print("held")
try:
    signals.release()
    print("not raised")
except KeyboardInterrupt:
    print("raised at release")
'''


def test_a_ctrl_c_while_run_writes_the_report_marks_the_result_and_signals_raise_after_it(project):
    """migcheck.run() holds signals from the end of its loop until the report is whole: a Ctrl-C meanwhile marks
    the result interrupted (it used to escape run() from the report's last steps: a traceback, exit -2); after
    run() they raise again for the caller's own code, a held one at once."""
    (project / "at_the_end.py").write_text(AT_THE_END)
    result = subprocess.run([sys.executable, "at_the_end.py"], cwd=project, capture_output=True, text=True,
                            env=ENV, timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:-1] == ["returned True ['first[forward-pynative-cpu]']", "summary True",
                                              "raised after run", "held", "raised at release"], result.stdout
