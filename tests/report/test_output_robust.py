"""Output that never raises on encoding, and a headline that says when a run was interrupted (issue 25).
Framework-free: the case's factories never run (every item is a skip verdict)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from migcheck.judging.verdict import Verdict
from migcheck.report import write_report

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
CASE = ("from migcheck import PairedCase, uniform\n"
        "c = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={'x': uniform(2)}, checks=('forward',),"
        " skip={'pynative': 'pas ici \u00e9', 'graph': 'not here'}, name='caf\u00e9_\u00fc')\n")


def test_a_non_ascii_case_name_under_an_ascii_locale_prints_escaped_and_keeps_the_report(tmp_path):
    (tmp_path / "c.py").write_text(CASE, encoding="utf-8")
    env = {**ENV, "LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "c.py", "--report", "r", "-v",
                             "--color", "never"], capture_output=True, env=env, cwd=tmp_path)
    out, err = result.stdout.decode("ascii"), result.stderr.decode("ascii")  # pure ASCII, or this raises
    assert result.returncode == 0 and "Traceback" not in err, err
    assert "caf\\xe9_\\xfc[forward-pynative-cpu]" in out and "2 skip: all as expected" in out
    data = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    assert {v["case"] for v in data["verdicts"]} == {"caf\u00e9_\u00fc"} and not data["partial"]
    again = subprocess.run([sys.executable, "-m", "migcheck.cli", "report", "r"], capture_output=True, env=env,
                           cwd=tmp_path)
    assert again.returncode == 0 and b"Traceback" not in again.stderr


def _verdict(case: str) -> Verdict:
    return Verdict(case=case, check="forward", mode="pynative", backend="cpu", status="pass", kind=None,
                   message="max abs err 0", file="/cases/a.py")


def test_the_html_headline_says_interrupted_for_a_partial_run_and_all_as_expected_only_for_a_whole_one(tmp_path):
    write_report(tmp_path / "partial", [_verdict("a")], partial=True, not_run=["b[forward-pynative-cpu]"])
    write_report(tmp_path / "whole", [_verdict("a")])
    partial = (tmp_path / "partial" / "index.html").read_text()
    whole = (tmp_path / "whole" / "index.html").read_text()
    assert "interrupted" in partial.split('id="counts"')[0] and "all as expected" not in partial
    assert "all as expected" in whole and 'id="headline"' not in whole
