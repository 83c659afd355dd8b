"""Fault injection, Ctrl-C: SIGINT sent to the whole process group (as a terminal's Ctrl-C) at four moments (the
MindSpore import, a GRAPH compile, PyNative ops, the report being written) under four front ends (`compare`,
`compare --isolate`, `pytest`, `pytest -n 2`). Every run must exit 130 with no traceback and lose no result:
each verdict that reached the journal is in the report (`migcheck report DIR` renders a journal left without
one). Event-driven: the case file (or, for the import, a meta-path hook on `mindspore.common`) creates a marker
file at the moment, and the test sends SIGINT once the marker exists; at the import the hook also waits until
the SIGINT is pending, so it lands inside the import. test_signal_counts adds the runs up.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore, pytest.mark.timeout(900),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals, process groups")]

ROOT = Path(__file__).resolve().parents[1]
CASES = '''
import os
import time

from migcheck import PairedCase, uniform

MOMENT, MARK = os.environ.get("MOMENT", ""), os.environ.get("MARK", "")


def mark(moment):
    if MOMENT == moment and MARK:
        with open(MARK, "a"):
            pass


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def torch_deep():
    import torch
    return torch.nn.Sequential(*[torch.nn.Linear(3, 3) for _ in range(24)])


def ms_deep():  # the GRAPH compile of 24 layers follows at once
    import mindspore
    mark("compile")
    return mindspore.nn.SequentialCell([mindspore.nn.Dense(3, 3) for _ in range(24)])


def ms_busy():
    import mindspore

    class Busy(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = mindspore.nn.Dense(3, 2)

        def construct(self, x):  # PyNative: real MindSpore ops until the Ctrl-C (60 s at most)
            y = self.dense(x)
            if MOMENT == "op":
                mark("op")
                end = time.monotonic() + 60
                while time.monotonic() < end:
                    y = self.dense(x) + 0 * y
            return y
    return Busy()


a_done = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",),
                    modes=("pynative",))
b_deep = PairedCase(torch=torch_deep, mindspore=ms_deep, inputs={"x": uniform(4, 3)}, checks=("forward",),
                    modes=("graph",))
c_busy = PairedCase(torch=torch_linear, mindspore=ms_busy, inputs={"x": uniform(4, 3)}, checks=("forward",),
                    modes=("pynative",))
'''
# Imported at start-up by every Python process of the run (sitecustomize on PYTHONPATH): at the import moment,
# the first import of mindspore.common marks, then waits until the SIGINT is pending (held back) or handled.
SITECUSTOMIZE = '''
import os, signal, sys, time

if os.environ.get("MOMENT") == "import":
    class _CtrlCMidImport:
        def find_spec(self, name, path=None, target=None):
            if name == "mindspore.common" and os.environ.get("MARK"):
                with open(os.environ["MARK"], "a"):
                    pass
                end = time.monotonic() + 60
                while signal.SIGINT not in signal.sigpending() and time.monotonic() < end:
                    time.sleep(0.005)  # a Ctrl-C not held back is raised right here instead
            return None

    sys.meta_path.insert(0, _CtrlCMidImport())
'''
FRONT_ENDS = {
    "compare": [sys.executable, "-m", "migcheck.cli", "compare", "cases", "--report", "report", "--color", "never"],
    "compare --isolate": [sys.executable, "-m", "migcheck.cli", "compare", "cases", "--isolate", "--report", "report",
                          "--color", "never"],
    "pytest": [sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "cases", "--migcheck-report", "report",
               "-q", "-p", "no:cacheprovider"],
    "pytest -n 2": [sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "cases", "-n", "2",
                    "--migcheck-report", "report", "-q", "-p", "no:cacheprovider"],
}
MOMENTS = ("import", "compile", "op", "report")
PLANNED = 6  # 3 cases x 2 modes (the other mode of each is a skip verdict)
TALLY: Dict[str, List[str]] = {"runs": [], "lost": [], "tracebacks": [], "not_130": []}


def _journaled(report: Path) -> set:
    items = set()
    for path in report.glob("journal*.jsonl"):
        for line in path.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("verdict"), dict):
                items.add(record["verdict"].get("item"))
    return items


def _wait_for(moment: str, mark: Path, report: Path, proc: subprocess.Popen) -> bool:
    """Until the moment's event (the marker; for the report, every verdict journaled), or the run ended."""
    end = time.monotonic() + 240
    while time.monotonic() < end and proc.poll() is None:
        if (len(_journaled(report)) >= PLANNED) if moment == "report" else mark.exists():
            return True
        time.sleep(0.005)
    return False


@pytest.mark.parametrize("front", list(FRONT_ENDS))
@pytest.mark.parametrize("moment", MOMENTS)
def test_ctrl_c_at_each_moment_exits_130_and_keeps_every_result(tmp_path, front, moment):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "cases.py").write_text(CASES)
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    mark, report = tmp_path / "mark", tmp_path / "report"
    env = {**os.environ, "GLOG_v": "3", "MOMENT": moment, "MARK": str(mark),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "hook"), str(ROOT)])}
    proc = subprocess.Popen(FRONT_ENDS[front], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        reached = _wait_for(moment, mark, report, proc)
        before = _journaled(report)  # finished before the Ctrl-C
        if reached:
            os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert reached, f"the run ended before the {moment} moment: {proc.returncode}\n{out[-2000:]}\n{err[-2000:]}"
    journaled = _journaled(report)
    if journaled and not (report / "summary.json").exists():  # a run that died: its journal renders
        subprocess.run([sys.executable, "-m", "migcheck.cli", "report", "report"], cwd=tmp_path, env=env,
                       capture_output=True, timeout=120)
    summary = report / "summary.json"
    reported = {v["item"] for v in json.loads(summary.read_text())["verdicts"]} if summary.exists() else set()
    name = f"{front} @ {moment}"
    TALLY["runs"].append(name)
    if journaled - reported:
        TALLY["lost"].append(name)
    if "Traceback" in out + err or "Fatal Python error" in out + err:
        TALLY["tracebacks"].append(name)
    if proc.returncode != 130:
        TALLY["not_130"].append(f"{name}: {proc.returncode}")
    assert proc.returncode == 130, (out[-3000:], err[-3000:])
    assert "Traceback" not in out + err and "Fatal Python error" not in err, (out[-3000:], err[-3000:])
    assert journaled <= reported, journaled - reported
    assert before <= reported, before - reported
    if moment == "report" or (moment == "op" and "-n" not in front):  # a_done finished before the Ctrl-C (under
        assert "a_done[forward-pynative-cpu]" in reported  # xdist another worker may still be running it)


def test_signal_counts():
    """Runs last (file order): the numbers for the note. All must be 0 but runs."""
    if len(TALLY["runs"]) < len(FRONT_ENDS) * len(MOMENTS):
        pytest.skip("the runs above did not all run in this process (-k, -n, or a failure)")
    print(f"\nSIGINT fault injection: {len(TALLY['runs'])} runs ({len(MOMENTS)} moments x {len(FRONT_ENDS)} front"
          f" ends), {len(TALLY['lost'])} results lost, {len(TALLY['tracebacks'])} tracebacks,"
          f" {len(TALLY['not_130'])} exit codes other than 130")
    assert TALLY["lost"] == [] and TALLY["tracebacks"] == [] and TALLY["not_130"] == []
