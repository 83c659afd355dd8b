"""The edit-rerun loop: torch-side results cached on disk by the case's torch fingerprint, and --lf."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from migcheck.cli import main

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore, pytest.mark.timeout(300)]

CASES = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=("forward", "backward"))
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
'''
# torch cannot be imported: a run that still passes took the torch side from the cache.
NO_TORCH = '''
import sys
sys.modules["torch"] = None
from migcheck.cli import main
code = main(sys.argv[1:])
print("torch modules loaded:", sorted(m for m, v in sys.modules.items() if m.startswith("torch") and v is not None))
sys.exit(code)
'''


def _run(tmp_path, *argv, no_torch=False):
    script = tmp_path / "no_torch.py"
    script.write_text(NO_TORCH)
    cmd = [sys.executable, str(script)] if no_torch else [sys.executable, "-m", "migcheck.cli"]
    env = {**os.environ, "GLOG_v": "3", "MIGCHECK_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd()}
    env.pop("MIGCHECK_REPORT_DIR", None)
    return subprocess.run(cmd + list(argv), capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)


def test_a_rerun_after_editing_only_the_mindspore_side_takes_torch_from_the_cache(write_case_file, tmp_path):
    path = write_case_file("cases/dense.py", CASES)
    first = _run(tmp_path, "compare", "cases", "--mode", "pynative", "-k", "dense_ok")
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(list((tmp_path / "cache" / "torch").glob("*.npz"))) == 4  # forward and backward, float32 and float64
    # Edit the MindSpore side only (a comment in its factory): the torch fingerprint is unchanged.
    path.write_text(path.read_text().replace("return mindspore.nn.Dense(3, 2)\n", "return mindspore.nn.Dense(3, 2)  # edited\n"))
    again = _run(tmp_path, "compare", "cases", "--mode", "pynative", "-k", "dense_ok", no_torch=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "torch modules loaded: []" in again.stdout
    verdicts = json.loads((tmp_path / "reports" / "latest" / "summary.json").read_text())["verdicts"]
    assert {v["status"] for v in verdicts} == {"pass"} and len(verdicts) == 2
    # Editing the torch side changes the key: torch runs again (and cannot, here).
    path.write_text(path.read_text().replace("torch.nn.Linear(3, 2)", "torch.nn.Linear(3, 2, bias=True)"))
    edited = _run(tmp_path, "compare", "cases", "--mode", "pynative", "-k", "dense_ok", no_torch=True)
    assert edited.returncode == 1
    # --no-torch-cache never reads it.
    off = _run(tmp_path, "compare", "cases", "--mode", "pynative", "-k", "dense_ok", "--no-torch-cache", no_torch=True)
    assert off.returncode == 1


def test_last_failed_reruns_only_what_the_last_report_found_not_as_expected(write_case_file, tmp_path, capsys,
                                                                                monkeypatch):
    path = write_case_file("cases/dense.py", CASES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MIGCHECK_REPORT_DIR")
    monkeypatch.setenv("MIGCHECK_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["compare", "--lf", str(path), "--mode", "pynative", "-q"]) == 1  # no last report: all run
    out = capsys.readouterr().out
    assert "--lf: no last report to read" in out and out.splitlines()[-1].startswith("== 2 pass, 1 fail")
    assert main(["compare", "--lf", str(path), "--mode", "pynative", "-v"]) == 1
    out = capsys.readouterr().out
    assert "migcheck: --lf: running the 1 item(s) not as expected in reports/latest (2 deselected)" in out
    assert "dense_ok" not in out and "FAIL   dense_relu[forward-pynative-cpu]" in out


def test_a_report_rewritten_with_the_same_failures_reuses_the_drawn_plots(tmp_path, monkeypatch):
    import base64

    import numpy as np

    from migcheck.judging.compare import compare_arrays
    from migcheck.report import write_report
    from migcheck.tolerance import Tolerance
    from migcheck.judging.verdict import Verdict

    monkeypatch.setenv("MIGCHECK_CACHE_DIR", str(tmp_path / "cache"))
    t = compare_arrays("out", np.float32([[1, 2], [3, 4]]), np.float32([[1, 2], [3, 4.5]]), Tolerance(1.3e-6, 1e-5))
    assert t.error_sample is not None
    v = Verdict(case="c", check="forward", mode="pynative", backend="cpu", status="fail", kind="value",
                message=t.message, tensors=(t,))
    write_report(tmp_path / "r", [v])
    (cached,) = (tmp_path / "cache" / "plots").glob("*.png")
    drawn = cached.read_bytes()
    assert drawn.startswith(b"\x89PNG") and base64.b64encode(drawn).decode() in (tmp_path / "r" / "cells" / "c.html").read_text()
    marker = drawn[:-12] + b"\x00" * 12  # any bytes: the page must embed what the cache holds
    cached.write_bytes(marker)
    write_report(tmp_path / "r", [v])
    assert base64.b64encode(marker).decode() in (tmp_path / "r" / "cells" / "c.html").read_text()
