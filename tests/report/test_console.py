"""`migcheck compare`'s terminal output (migcheck.report.console): snapshots of a mixed run at the
default verbosity, -q and -v, the TTY progress bar, and a real run through the CLI.

Set MIGCHECK_UPDATE_SNAPSHOTS=1 to rewrite tests/report/snapshots/ after an intended change (then read the diff).
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

from migcheck.cli import main
from migcheck.judging.compare import compare_arrays
from migcheck.localization.rules import Finding
from migcheck.localization.locate import Localization
from migcheck.report.console import NORMAL, QUIET, VERBOSE, Console, bar
from migcheck.tolerance import Tolerance
from migcheck.judging.verdict import Verdict

SNAPSHOTS = Path(__file__).parent / "snapshots"
F32 = Tolerance(1.3e-6, 1e-5)
CWD = Path("/src")


def V(case, status, file, kind=None, tensors=(), mode="pynative", **kw) -> Verdict:
    message = kw.pop("message", tensors[0].message if tensors else "")
    return Verdict(case=case, check="forward", mode=mode, backend="cpu", status=status, kind=kind, message=message,
                   tensors=tuple(tensors), file=f"/src/cases/{file}", **kw)


def mixed_run() -> list:
    ok = compare_arrays("out", np.float32([1, 2]), np.float32([1, 2]), F32, "float32 default")
    value = compare_arrays("out", np.float32([[1, 2], [3, 4]]), np.float32([[1, 2], [3, 4.5]]), F32, "float32 default")
    finding = Finding(rule="batchnorm-momentum", where="torch 'bn' (BatchNorm2d) / MindSpore 'bn' (BatchNorm2d)",
                      cause="MindSpore's momentum is 1 - torch's.", fix="momentum=0.9 on the MindSpore side.",
                      confidence="high")
    where = Localization(rows=(), first_divergence="bn", first_divergence_ms="bn", findings=(finding,),
                         summary="first divergence at torch 'bn' / MindSpore 'bn'")
    return [
        V("conv_ok", "pass", "convolution.py", tensors=[ok]),
        V("conv_ok", "pass", "convolution.py", tensors=[ok], mode="graph"),
        V("conv_pad", "xfail", "convolution.py", "value", [value], expected="fail:value",
          message="failed as expected (value)"),
        V("conv_pad", "skip", "convolution.py", mode="graph", message="case runs only in pynative mode"),
        V("bn_momentum", "fail", "normalization.py", "value", [value], localization=where),
        V("bn_claimed", "xpass", "normalization.py", expected="fail:shape",
          message="expected a shape failure, but both sides agreed"),
        V("ln_ok", "pass", "normalization.py", tensors=[ok]),
    ]


def render_run(verbosity: int, live: bool = False) -> str:
    ticks = iter(range(100))
    out = io.StringIO()
    console = Console(out, 7, verbosity, colour=False, live=live, cwd=CWD, clock=lambda: float(next(ticks)))
    verdicts = mixed_run()
    for v in verdicts:
        console.start(v.item, v.file)
        console.finish(v)
    console.close()
    out.write(console.summary(verdicts, ["cases/broken.py: syntax error at line 3: invalid syntax; fix the case file"],
                              "reports/latest/index.html", elapsed=12.5) + "\n")
    return out.getvalue()


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("MIGCHECK_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text)
    # A missing snapshot fails: writing it here would let the test pass on whatever it printed.
    assert path.exists(), f"no snapshot {path}; create it with MIGCHECK_UPDATE_SNAPSHOTS=1, then read it"
    assert text == path.read_text()


@pytest.mark.parametrize("verbosity, name", [(NORMAL, "console_default.txt"), (QUIET, "console_quiet.txt"),
                                             (VERBOSE, "console_verbose.txt")])
def test_snapshot(verbosity, name):
    check_snapshot(name, render_run(verbosity))


def test_default_is_a_compact_line_per_file_and_failures_once_at_the_end():
    text = render_run(NORMAL)
    lines = text.splitlines()
    assert lines[:2] == ["cases/convolution.py ..xs", "cases/normalization.py FX."]
    assert sum("bn_momentum[forward-pynative-cpu]" in line for line in lines) == 1
    assert "        diagnosis (batchnorm-momentum, high): MindSpore's momentum is 1 - torch's." \
           " Fix: momentum=0.9 on the MindSpore side." in lines
    assert lines[-1] == ("== 3 pass, 1 fail, 1 skip, 1 xfail, 1 xpass, 1 collection error(s): 3 not as"
                         " expected == 12.50s; report: reports/latest/index.html")


def test_quiet_prints_no_progress_and_verbose_one_line_per_item():
    assert "cases/convolution.py" not in render_run(QUIET)
    verbose = render_run(VERBOSE).splitlines()
    assert verbose[0] == "PASS   conv_ok[forward-pynative-cpu]  out: max abs err 0"
    assert len([line for line in verbose[:7] if re.match(r"^[A-Z]+ +\w+\[", line)]) == 7


def test_live_progress_redraws_the_file_line_with_a_bar_and_an_eta():
    text = render_run(NORMAL, live=True)
    assert "\r\x1b[2Kcases/convolution.py ..x  [#########...........]  43% 3/7 ETA 0:" in text or \
           "\r\x1b[2Kcases/convolution.py ..x  [#########...........]  42% 3/7 ETA " in text
    # Once a file is done its line is written whole, without the bar.
    assert "\r\x1b[2Kcases/convolution.py ..xs\n" in text


def test_bar_eta_is_the_mean_item_time_times_the_items_left():
    assert bar(2, 10, 4.0, width=10) == "[##........]  20% 2/10 ETA 16.00s"
    assert bar(10, 10, 4.0, width=10) == "[##########] 100% 10/10"


MIXED = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value")
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
'''


def test_a_real_mixed_run_prints_the_compact_line_and_writes_the_default_report(write_case_file, tmp_path,
                                                                               capsys, monkeypatch):
    path = write_case_file("cases/mixed.py", MIXED)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MIGCHECK_REPORT_DIR")
    assert main(["compare", "cases/mixed.py", "--mode", "pynative", "--color", "never"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "cases/mixed.py .xF"
    assert lines[3].startswith("FAIL   dense_relu[forward-pynative-cpu]  error budget exceeded in out")
    assert re.fullmatch(r"== 1 pass, 1 fail, 1 xfail: 1 not as expected == (?:[0-9.]+s|[0-9]+(?::[0-9]{2}){1,2});"
                        r" report: reports/latest/index.html",  # a slow machine takes over a minute: '1:09'
                        lines[-1])
    index = (tmp_path / "reports" / "latest" / "index.html").read_text()
    assert "migcheck compare cases/mixed.py --mode pynative --color never" in index
    # A second run replaces the folder whole; --no-report writes nothing and says so.
    (tmp_path / "reports" / "latest" / "stale.txt").write_text("from an earlier run")
    assert main(["compare", "-q", str(path), "--mode", "pynative", "-k", "dense_ok"]) == 0
    assert not (tmp_path / "reports" / "latest" / "stale.txt").exists()
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == ["latest"]
    assert main(["compare", "-q", str(path), "--mode", "pynative", "-k", "dense_ok", "--no-report"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("no report (--no-report)")


def test_a_folder_that_is_not_a_report_is_written_into_not_replaced(write_case_file, tmp_path, capsys):
    path = write_case_file("cases/mixed.py", MIXED)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["compare", "-q", str(path), "--mode", "pynative", "-k", "dense_ok", "--report", str(mine)]) == 0
    assert (mine / "notes.txt").read_text() == "keep me" and (mine / "index.html").exists()
