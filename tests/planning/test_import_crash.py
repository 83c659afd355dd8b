"""Robustness, case files whose import ends the process (os._exit, a segfault): a collection error naming
the file and the signal or exit code, every other file still runs (CLI, --isolate and pytest -n 2), and no
report says "all as expected"."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore,
              pytest.mark.timeout(300), pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")]

GOOD = '''
from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


good = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",),
                  modes=("pynative",))
'''
ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
EXITS = "cases/exits.py: importing it ended the process with exit code 3 (os._exit?); the other files still run."
SEGV = "cases/segv.py: importing it killed the process (SIGSEGV, signal 11); the other files still run."


@pytest.fixture
def project(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "a_good.py").write_text(GOOD)
    (tmp_path / "cases" / "exits.py").write_text("import os\nos._exit(3)\n")
    (tmp_path / "cases" / "segv.py").write_text("import ctypes\nctypes.string_at(0)\n")
    return tmp_path


@pytest.mark.parametrize("isolate", [False, True])
def test_compare_names_the_file_and_runs_the_others(project, isolate):
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "-v", "cases", "--mode", "pynative", "--report",
                             "report", "--color", "never"] + (["--isolate"] if isolate else []),
                            cwd=project, capture_output=True, text=True, env=ENV, timeout=240)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "PASS   good[forward-pynative-cpu]" in result.stdout
    assert f"ERROR  {EXITS}" in result.stdout and f"ERROR  {SEGV}" in result.stdout
    data = json.loads((project / "report" / "summary.json").read_text())
    assert data["all_as_expected"] is False and data["counts"]["pass"] == 1
    assert [e.split(" Fix")[0] for e in data["collection_errors"]] == [EXITS, SEGV]


def test_pytest_xdist_reports_the_files_and_never_all_as_expected(project):
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "migcheck.pytest_plugin", "-n", "2", "cases",
                             "--migcheck-report", "report", "-p", "no:cacheprovider", "-q"],
                            cwd=project, capture_output=True, text=True, env=ENV, timeout=240)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 passed, 1 skipped, 2 errors" in result.stdout  # skipped: good's GRAPH item
    assert "Fatal Python error" not in result.stderr
    assert "importing it killed the process (SIGSEGV, signal 11)" in result.stdout
    data = json.loads((project / "report" / "summary.json").read_text())
    assert data["all_as_expected"] is False and data["counts"]["pass"] == 1
    assert sorted(e.split(" Fix")[0] for e in data["collection_errors"]) == [EXITS, SEGV]
