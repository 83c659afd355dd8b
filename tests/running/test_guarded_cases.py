"""Each item runs in a guarded scope (migcheck.running.guard): what a case changes process-wide is put back
after it and named in its own verdict, so it poisons no other case. Real frameworks, one CLI run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

CASES = '''
import os
import threading

from migcheck import PairedCase, uniform


def linear():
    import torch
    return torch.nn.Linear(3, 2)


def dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def float64_default():
    import torch
    torch.set_default_dtype(torch.float64)
    return linear()


def chdir_away():
    os.makedirs("elsewhere", exist_ok=True)
    os.chdir("elsewhere")
    return linear()


def set_env():
    os.environ["MIGCHECK_TEST_POISON"] = "1"
    return linear()


def no_grad():
    import torch
    torch.set_grad_enabled(False)
    return linear()


def leave_a_thread():
    threading.Thread(target=threading.Event().wait, name="stuck-worker").start()  # never ends, not a daemon
    return linear()


def _case(name, factory):
    return PairedCase(torch=factory, mindspore=dense, inputs={"x": uniform(4, 3)}, checks=("forward",),
                      modes=("pynative",), name=name)


first = _case("first", linear)
dtype = _case("dtype", float64_default)
after_dtype = _case("after_dtype", linear)
cwd = _case("cwd", chdir_away)
env = _case("env", set_env)
grad = _case("grad", no_grad)
thread = _case("thread", leave_a_thread)
last = PairedCase(torch=linear, mindspore=dense, inputs={"x": uniform(4, 3)}, checks=("forward", "backward"),
                  modes=("pynative",), name="last")
'''


def test_a_case_that_changes_process_state_is_named_and_poisons_nothing_after_it(tmp_path):
    (tmp_path / "cases.py").write_text(CASES)
    # A thread left running used to keep the process alive: the timeout is the failure here.
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "cases.py", "--report", "r",
                             "--color", "never"], capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=240)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    data = json.loads((tmp_path / "r" / "summary.json").read_text())  # the report went where it was asked to
    verdicts = {v["case"]: v for v in data["verdicts"]}
    cells = {case: json.loads((tmp_path / "r" / "cells" / f"{case}.json").read_text())["verdicts"]
             for case in verdicts}
    warnings = {case: [n for v in vs for n in v.get("notes", ()) if n.startswith("warning: this item changed")]
                for case, vs in cells.items()}
    assert "torch default dtype torch.float32 -> torch.float64" in warnings["dtype"][0]
    assert "working directory" in warnings["cwd"][0] and warnings["cwd"][0].rstrip().endswith("elsewhere")
    assert "environment variable(s) MIGCHECK_TEST_POISON" in warnings["env"][0]
    assert "torch grad mode True -> False" in warnings["grad"][0]
    assert "left thread(s) running: stuck-worker (non-daemon)" in warnings["thread"][0]
    # The correct twins: nothing changed, no warning, and every innocent item after a culprit passes.
    assert warnings["first"] == warnings["after_dtype"] == warnings["last"] == []
    assert [v["status"] for case in ("first", "after_dtype", "last") for v in cells[case]
            if v["mode"] == "pynative"] == ["pass"] * 4
    assert "== warnings ==" in result.stdout and "WARNING  dtype[forward-pynative-cpu]" in result.stdout
    assert not (tmp_path / "elsewhere" / "r").exists()
