"""Robustness, interrupts: Ctrl-C (a real SIGINT to a real `migcheck compare` process) while a case hangs
stops the run promptly, keeps the verdicts finished so far in a report marked partial, and exits 130.
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

from migcheck.cli import EXIT_INTERRUPTED
from migcheck.report import render_report

pytestmark = [pytest.mark.timeout(300),
              pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")]

CASES = '''
import os
import time

from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def torch_sleeps():
    open(os.environ["MIGCHECK_TEST_MARK"], "w").close()  # tells the test the case is under way
    time.sleep(1000)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


first = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
sleeper = PairedCase(torch=torch_sleeps, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
never = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
'''


def _children(pid: int) -> set:
    """Live child processes of pid (Linux /proc; empty elsewhere)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(stat.parent.name))
    return out


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_ctrl_c_keeps_the_results_so_far_in_a_partial_report(tmp_path):
    isolate = False  # the default: cases run in the CLI's own process; isolated children: the test below
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "sleepy.py").write_text(CASES)
    cmd = [sys.executable, "-m", "migcheck.cli", "compare", "-v", "cases", "--mode", "pynative", "--report", "report",
           "--color", "never"] + (["--isolate"] if isolate else [])
    mark = tmp_path / "sleeping"
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "GLOG_v": "3", "MIGCHECK_TEST_MARK": str(mark)})
    try:
        first_line = proc.stdout.readline()
        assert first_line.startswith("PASS   first[forward-pynative-cpu]"), first_line + proc.stderr.read()
        # Into the sleeping case: it writes the mark once it runs (a poll on that event, not a fixed wait).
        deadline = time.monotonic() + 60
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mark.exists(), "the sleeping case never started"
        children = _children(proc.pid)
        assert bool(children) == isolate  # the sleeping case's child process, when isolated
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        rest, err = proc.communicate(timeout=60)
        stopped_in = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == EXIT_INTERRUPTED == 130, err
    assert stopped_in < 10  # promptly: the sleeping case is abandoned, not waited for
    assert "Traceback" not in err
    assert "== 1 pass: interrupted (Ctrl-C) after 1 of 3 item(s), partial results ==" in rest
    assert "report: report/index.html (partial)" in rest
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)  # the child was killed, not orphaned

    report = tmp_path / "report"
    data = json.loads((report / "summary.json").read_text())
    assert data["partial"] is True and data["all_as_expected"] is False
    assert [(v["item"], v["status"]) for v in data["verdicts"]] == [("first[forward-pynative-cpu]", "pass")]
    assert sorted(p.name for p in (report / "cells").iterdir()) == ["first.html", "first.json", "first.md"]
    assert not [p for p in report.rglob("*") if p.name.endswith(".tmp")]
    assert 'id="partial"><b>Partial report</b>: the run was interrupted' in (report / "index.html").read_text()
    # Re-rendered from the JSON alone, the report still says it is partial.
    (report / "index.html").unlink()
    index, run, _ = render_report(report)
    assert run.partial and 'id="partial"' in index.read_text()


HANGS_WHILE_LOADING = """
import sys
import time

from migcheck import PairedCase, uniform

if sys.argv[0].endswith("worker.py"):  # only in the isolated child: it hangs before its case is ready
    time.sleep(1000)

hangs = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={"x": uniform(2)}, checks=("forward",))
"""


def test_ctrl_c_kills_an_isolated_child_at_once(tmp_path):
    import _thread
    import threading

    from migcheck.planning.discovery import load_file
    from migcheck.options import RunOptions
    from migcheck.running.pipeline import Item
    from migcheck.running.isolation import run_case_isolated

    path = tmp_path / "cases" / "hangs.py"
    path.parent.mkdir()
    path.write_text(HANGS_WHILE_LOADING)
    [case] = load_file(path).cases
    found = []

    def interrupt_once_the_child_runs():
        deadline = time.monotonic() + 60
        while not found and time.monotonic() < deadline:
            found.extend(pid for pid in _children(os.getpid())
                         if b"migcheck.running.worker" in Path(f"/proc/{pid}/cmdline").read_bytes())
            time.sleep(0.05)
        time.sleep(0.3)
        _thread.interrupt_main()  # what Ctrl-C does: KeyboardInterrupt in the main thread

    threading.Thread(target=interrupt_once_the_child_runs, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        list(run_case_isolated(case, [Item(case, "forward", "pynative", "cpu")], RunOptions()))
    assert time.monotonic() - started < 30
    assert found and not any(Path(f"/proc/{pid}").exists() for pid in found)  # killed and reaped, not orphaned


STOPPED_IN_THE_LOOP = '''
import threading
import migcheck
from migcheck.report import journal

write = journal.Journal.verdict


def ctrl_c_while_journaling(self, verdict):  # a Ctrl-C while the first verdict of an isolated case is journaled
    write(self, verdict)
    raise KeyboardInterrupt


journal.Journal.verdict = ctrl_c_while_journaling
result = migcheck.run("cases/two.py", isolate=True, checks=("forward",), modes=("pynative",), report="report")
readers = [t for t in threading.enumerate() if "_read" in t.name and t.is_alive()]
print("interrupted", result.interrupted, "verdicts", len(result.verdicts), "readers", len(readers))
'''
TWO = '''
from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


two = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward", "backward"),
                 modes=("pynative",))
'''


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_ctrl_c_while_an_isolated_cases_verdict_is_journaled_stops_its_child_before_run_returns(tmp_path):
    """The child's pipe readers are done when run() returns: left to the interpreter's exit (the stopped loop's
    traceback kept the case's generator alive), they made the parent abort ("could not acquire lock ... daemon
    threads", exit -6) on a Ctrl-C at the end of an isolated run."""
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "two.py").write_text(TWO)
    (tmp_path / "stop.py").write_text(STOPPED_IN_THE_LOOP)
    env = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "stop.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[-2] == "interrupted True verdicts 1 readers 0", done.stdout
