"""The HTML report (migcheck.report.html, plots, baseline), `migcheck report`, and the terminal progress.

Most tests render Verdicts built here; one runs a real failing case through `migcheck compare
--report` on a pretend terminal (MindSpore PYNATIVE on CPU, a tiny Linear). The browser test
needs Debian's `chromium` and skips, saying so, without it.
"""
from __future__ import annotations

import base64
import contextlib
import dataclasses
import io
import json
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from migcheck.cli import EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, main
from migcheck.judging.compare import ceil_sig, compare_arrays
from migcheck.mapping.transfer import map_weights
from migcheck.runners.base import ParamInfo
from migcheck.report import render_report, write_report
from migcheck.report.baseline import diff_runs, render_terminal
from migcheck.report.html import sort_rank
from migcheck.report.terminal import Progress, summary_table
from migcheck.tolerance import Tolerance
from migcheck.judging.verdict import Verdict

F32 = Tolerance(1.3e-6, 1e-5)
TORCH_PARAMS = [ParamInfo("fc.weight", (2, 3), "float32", "Linear", True, False),
                ParamInfo("bn.running_var", (3,), "float32", "BatchNorm2d", False, True),
                ParamInfo("bn.num_batches_tracked", (), "int64", "BatchNorm2d", False, True)]
MS_PARAMS = [ParamInfo("fc.weight", (2, 3), "float32", "Dense", True, False),
             ParamInfo("bn.moving_variance", (3,), "float32", "BatchNorm2d", False, True)]


def V(case, status, kind=None, tensors=(), check="forward", mode="pynative", **kw) -> Verdict:
    message = kw.pop("message", next((t.message for t in tensors if not t.ok), tensors[0].message if tensors else ""))
    return Verdict(case=case, check=check, mode=mode, backend="cpu", status=status, kind=kind, message=message,
                   tensors=tuple(tensors), file=f"/src/cases/{case}.py", **kw)


def run_verdicts():
    """A run with every status: passing, failing (2-D, 4-D, 1-D, NaN), erroring, skipped, xfail, xpass."""
    rng = np.random.default_rng(0)
    mapping = map_weights(TORCH_PARAMS, MS_PARAMS)
    ok = compare_arrays("out", np.float32([1, 2]), np.float32([1, 2]), F32, "float32 default")
    pt2 = rng.random((4, 2)).astype(np.float32)
    relu = compare_arrays("out", pt2, np.maximum(pt2 - 0.5, 0), F32, "float32 default")
    pt4 = rng.random((2, 3, 5, 5)).astype(np.float32)
    ms4 = pt4.copy()
    ms4[:, :, 0, :] += 0.25  # a wrong first row: the heat map shows it
    grad4 = compare_arrays("grad.input.x", pt4, ms4, Tolerance(1.3e-5, 1e-4), "float32 default x10 (backward)")
    bias = compare_arrays("grad.param.bias", np.float32([1, 2, 3]), np.float32([1, 2, 3.5]), F32)
    nan_out = compare_arrays("out", np.float32([[1, 2], [3, 4]]), np.float32([[1, np.nan], [3, 4]]), F32)
    shape = compare_arrays("out", np.zeros((2, 4, 9, 9), np.float32), np.zeros((2, 4, 12, 12), np.float32), F32)
    return [
        V("dense_ok", "pass", tensors=[ok], mapping=mapping.pairs, skipped_params=mapping.skipped, duration_s=0.5),
        V("dense_relu", "fail", "value", [ok, relu], mapping=mapping.pairs, skipped_params=mapping.skipped),
        V("conv_bias", "fail", "value", [grad4, bias], check="backward"),
        V("conv_bias", "fail", "nonfinite", [nan_out], check="forward"),
        V("conv_pad", "xfail", "shape", [shape], expected="fail:shape"),
        V("conv_pad", "skip", mode="graph", message="GRAPH <not> supported", expected="fail:shape"),
        V("crashes", "error", "error", message="MindSpore raised RuntimeError",
          error="Traceback (most recent call last):\nRuntimeError: boom <b>bold</b> & more"),
        V("claims_bad", "xpass", tensors=[ok], message="expected a value failure, but both sides agreed",
          expected="fail:value"),
    ]


class Page(HTMLParser):
    """The parts of a page the tests read: table rows by table id, <img> attributes, <body> attributes, text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict = {}
        self.images: list = []
        self.body: dict = {}
        self.text: list = []
        self._table = None
        self._row = None
        self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("id") or f"table{len(self.tables)}", [])
        elif tag == "tr" and self._table is not None:
            self._row = (attrs, [])
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "img":
            self.images.append(attrs)
        elif tag == "body":
            self.body = attrs

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row[1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._table.append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def rows(self, table: str) -> list:
        """Body rows of a table as {header: cell text}, with the <tr> attributes under '_attrs'."""
        (_, head), *body = self.tables[table]
        return [{**dict(zip(head, cells)), "_attrs": attrs} for attrs, cells in body]

    @property
    def all_text(self) -> str:
        return " ".join("".join(self.text).split())


def read(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def png_size(data: bytes) -> tuple:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    verdicts = run_verdicts()
    write_report(root, verdicts, ["cases/broken.py: syntax error at line 2: x"])
    return root, verdicts


# --- index.html ----------------------------------------------------------------------------------

def test_index_shows_counts_and_one_row_per_verdict(report):
    root, verdicts = report
    page = read(root / "index.html")
    text = page.all_text
    for count, status in ((1, "pass"), (3, "fail"), (1, "error"), (1, "skip"), (1, "xfail"), (1, "xpass")):
        assert f"{count} {status}" in text
    assert "8 verdict(s) over 6 case(s)" in text and "6 not as expected" in text
    assert "cases/broken.py: syntax error at line 2: x" in text
    listed = page.rows("verdicts")
    # Most severe first, run order within a status.
    assert [(r["case"], r["check"], r["mode"], r["status"]) for r in listed] == [
        (v.case, v.check, v.mode, v.status) for v in sorted(verdicts, key=lambda v: sort_rank(v.status))]
    assert [r["status"] for r in listed][:2] == ["error", "fail"] and listed[-1]["status"] == "pass"
    by_item = {(r["case"], r["check"], r["mode"]): r for r in listed}
    rows = [by_item[(v.case, v.check, v.mode)] for v in verdicts]  # in run order again, for the checks below
    relu = rows[1]
    assert relu["_attrs"]["data-status"] == "fail" and relu["_attrs"]["data-unexpected"] == "1"
    assert (relu["kind"], relu["tensor"], relu["max abs err"]) == ("value", "out", f"{verdicts[1].worst.max_abs_err:.3g}")
    assert relu["mismatched"] == str(verdicts[1].tensors[1].mismatched)
    assert relu["message"].startswith("value mismatch in out: ")
    assert rows[0]["_attrs"]["data-unexpected"] == "0" and rows[0]["max abs err"] == "0"
    assert (rows[4]["tensor"], rows[4]["max abs err"], rows[4]["mismatched"]) == ("out", "", "")  # shape: no error
    assert rows[5]["message"] == "GRAPH <not> supported"  # escaped in the HTML, text again when parsed
    assert 'href="cells/dense_relu.html#forward-pynative-cpu"' in (root / "index.html").read_text()


def test_pages_are_self_contained(report):
    root, _ = report
    for path in [root / "index.html", *sorted((root / "cells").glob("*.html"))]:
        html = path.read_text(encoding="utf-8")
        assert "default-src 'none'; img-src data:;" in html  # the browser may fetch nothing
        assert "<link" not in html and "@import" not in html and "url(" not in html
        for url in re.findall(r'(?:src|href)="([^"]*)"', html):
            assert not re.match(r"^[a-z]+://|^//", url), f"{path.name} refers to {url}"
            assert url.startswith(("#", "data:image/png;base64,", "cells/", "../index.html")) or \
                re.fullmatch(r"[\w.-]+\.(json|md)", url), url
        assert "<script>" in html and 'data-ready="0"' in html


# --- cells/<case>.html ---------------------------------------------------------------------------

def test_one_plot_per_failing_tensor(report):
    root, verdicts = report
    for case in ("dense_ok", "dense_relu", "conv_bias", "conv_pad", "crashes", "claims_bad"):
        page = read(root / "cells" / f"{case}.html")
        failing = [t.name for v in verdicts if v.case == case for t in v.tensors
                   if not t.ok and t.kind in ("value", "nonfinite")]
        plotted = [img["data-tensor"] for img in page.images if "errplot" in img.get("class", "")]
        assert plotted == failing, case
        for img in page.images:
            width, height = png_size(base64.b64decode(img["src"].split(",", 1)[1]))
            assert width > 300 and height > 200
            assert img["alt"].startswith("error histogram and error location of ")
    # A 4-D tensor gets three panels (histogram, map over the last two axes, per channel); 1-D two.
    conv = read(root / "cells" / "conv_bias.html")
    sizes = {img["data-tensor"]: png_size(base64.b64decode(img["src"].split(",", 1)[1])) for img in conv.images}
    assert sizes["grad.input.x"][0] > sizes["grad.param.bias"][0] * 1.3
    assert "map over axes 2 x 3 (max over axes 0..1); bars per channel along axis 1" in conv.all_text
    assert "shape mismatch in out: torch (2,4,9,9) vs mindspore (2,4,12,12)" in read(root / "cells" / "conv_pad.html").all_text


def test_case_page_has_verdicts_metrics_tolerance_and_mapping(report):
    root, verdicts = report
    page = read(root / "cells" / "dense_relu.html")
    text = page.all_text
    [verdict_row] = page.rows("case-verdicts")
    assert (verdict_row["check"], verdict_row["status"], verdict_row["expected"]) == ("forward", "fail", "pass")
    relu = verdicts[1].tensors[1]
    metrics = page.rows("table1")  # the verdict's metrics table
    assert [(r["tensor"], r["ok"]) for r in metrics] == [("out", "yes"), ("out", "no: value")]
    assert metrics[1]["mismatched"] == f"{relu.mismatched}/{relu.total}"
    assert metrics[1]["min atol"] == ceil_sig(relu.min_atol) and metrics[1]["min rtol"] == ceil_sig(relu.min_rtol)
    assert metrics[1]["tolerance"] == "rtol 1.3e-06, atol 1e-05 (float32 default)"
    assert (f"Smallest passing tolerance: Would pass with --atol {ceil_sig(relu.min_atol)} (each tensor's rtol kept)"
            in text)
    mapping = page.rows("mapping")
    assert [(r["torch"], r["mindspore"], r["how"]) for r in mapping] == [
        ("fc.weight", "fc.weight", "same name"),
        ("bn.running_var", "bn.moving_variance", "rule BatchNorm.running_var->moving_variance"),
        ("bn.num_batches_tracked", "(not transferred)",
         "torch BatchNorm step counter; MindSpore keeps none (it only matters with momentum=None)")]
    nonfinite = read(root / "cells" / "conv_bias.html").all_text
    assert "No tolerance makes this pass: nonfinite mismatch." in nonfinite


def test_error_text_is_escaped(report):
    root, _ = report
    html = (root / "cells" / "crashes.html").read_text()
    assert "RuntimeError: boom &lt;b&gt;bold&lt;/b&gt; &amp; more</pre>" in html
    assert "<b>bold</b>" not in html


def test_a_schema_1_report_renders_without_plots(report, tmp_path):
    root, verdicts = report
    from migcheck.serialize import verdict_to_json

    data = json.loads((root / "summary.json").read_text())
    data["schema_version"] = 1
    data["verdicts"] = [verdict_to_json(v) for v in verdicts]  # schema 1 held every tensor in summary.json
    for v in data["verdicts"]:
        for t in v["tensors"]:
            del t["error_sample"]  # what migcheck 0.1 wrote
    (tmp_path / "summary.json").write_text(json.dumps(data))
    index, run, diff = render_report(tmp_path)
    assert run.schema_version == 1 and len(run.verdicts) == len(verdicts) and diff is None
    page = read(tmp_path / "cells" / "dense_relu.html")
    assert page.images == []
    assert "No plot: this report has no error sample for the tensor (written by a migcheck before schema 2)." \
        in page.all_text
    assert "fail" in [r["status"] for r in read(index).rows("verdicts")]


def test_without_matplotlib_the_pages_say_why(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    write_report(tmp_path, run_verdicts())
    page = read(tmp_path / "cells" / "conv_bias.html")
    assert page.images == []
    assert "plots need matplotlib" in page.all_text and "pip install matplotlib" in page.all_text
    assert len(page.rows("table1")) == 2  # the metrics are all there


# --- baseline ------------------------------------------------------------------------------------

def test_baseline_classification():
    t = lambda err, atol=1e-5: dataclasses.replace(  # noqa: E731
        compare_arrays("out", np.float32([1.0]), np.float32([1.0 + err]), Tolerance(0.0, atol)))
    old = [V("steady", "pass", tensors=[t(1e-7)]), V("breaks", "pass", tensors=[t(0)]),
           V("fixed", "fail", "value", [t(0.5)]), V("drifts", "xfail", "value", [t(0.01)], expected="fail:value"),
           V("heals", "xfail", "value", [t(0.5)], expected="fail:value"), V("noise", "pass", tensors=[t(1e-8)]),
           V("skipped", "pass", tensors=[t(0)]), V("gone", "pass")]
    new = [V("steady", "pass", tensors=[t(1e-7)]), V("breaks", "fail", "value", [t(0.5)]),
           V("fixed", "pass", tensors=[t(0)]), V("drifts", "xfail", "value", [t(0.5)], expected="fail:value"),
           V("heals", "xfail", "value", [t(0.01)], expected="fail:value"), V("noise", "pass", tensors=[t(5e-8)]),
           V("skipped", "skip", message="GRAPH not supported"), V("born", "error", "error", message="boom")]
    diff = diff_runs(old, new, "old/summary.json", "2026-01-01T00:00:00")
    got = {c.item.split("[")[0]: c.category for c in diff.changes}
    assert got == {"breaks": "newly-failing", "fixed": "newly-passing", "drifts": "worse", "heals": "better",
                   "skipped": "changed", "born": "added", "gone": "removed"}
    assert diff.unchanged == 2  # steady, and noise: 5x larger but far below its atol
    assert [c.category for c in diff.changes] == ["newly-failing", "worse", "newly-passing", "better", "changed",
                                                  "added", "removed"]
    drift = diff.of("worse")[0]
    assert drift.detail == "max abs err 0.01 -> 0.5; mismatched 1 -> 1"
    text = render_terminal(diff)
    assert text.splitlines()[0] == "baseline: old/summary.json (created 2026-01-01T00:00:00)"
    assert "NEWLY-FAILING  breaks[forward-pynative-cpu]  pass -> fail: value mismatch in out" in text
    assert "CHANGED        skipped[forward-pynative-cpu]  pass -> skip: GRAPH not supported" in text
    assert text.splitlines()[-1] == ("== against the baseline: 1 newly failing, 1 worse, 1 newly passing, 1 better,"
                                     " 1 changed, 1 added, 1 removed, 2 unchanged ==")


def test_report_command_with_a_baseline(report, tmp_path, capsys):
    root, verdicts = report
    old = tmp_path / "old"
    was = [dataclasses.replace(v, status="pass", kind=None, message="fine", tensors=v.tensors[:1])
           if v.case == "dense_relu" else v for v in verdicts if v.case != "claims_bad"]
    write_report(old, was)
    new = tmp_path / "new"
    shutil.copytree(root, new)
    for page in [new / "index.html", *(new / "cells").glob("*.html")]:
        page.unlink()
    code = main(["report", str(new), "--baseline", str(old), "--color", "never"])
    captured = capsys.readouterr()
    out = captured.out
    assert code == EXIT_UNEXPECTED  # something got worse: a CI gate fails
    assert captured.err == "migcheck: 1 item(s) got worse than the baseline (--allow-worse accepts that)\n"
    assert "NEWLY-FAILING  dense_relu[forward-pynative-cpu]  pass -> fail: value mismatch in out" in out
    assert "ADDED          claims_bad[forward-pynative-cpu]  new item: xpass" in out
    assert ", 6 unchanged ==" in out and out.rstrip().endswith(f"report: {new / 'index.html'} (8 verdict(s), schema 4)")
    page = read(new / "index.html")
    changes = page.rows("changes")
    assert [(r["_attrs"]["data-category"], r["item"], r["status was"], r["status now"]) for r in changes] == [
        ("newly-failing", "dense_relu[forward-pynative-cpu]", "pass", "fail"),
        ("added", "claims_bad[forward-pynative-cpu]", "-", "xpass")]
    assert (changes[0]["max abs err was"], changes[0]["max abs err now"]) == ("0", f"{verdicts[1].worst.max_abs_err:.3g}")
    assert len(page.rows("verdicts")) == 8 and sorted(p.name for p in (new / "cells").glob("*.html")) == [
        "claims_bad.html", "conv_bias.html", "conv_pad.html", "crashes.html", "dense_ok.html", "dense_relu.html"]
    assert main(["report", str(tmp_path / "missing")]) == EXIT_USAGE
    assert "migcheck: error: cannot read the report: " in capsys.readouterr().err
    assert main(["report", str(new), "--baseline", str(old), "--color", "never", "--allow-worse"]) == EXIT_OK
    assert main(["report", str(new), "--baseline", str(new), "--color", "never"]) == EXIT_OK  # nothing worse


BLOCKER = textwrap.dedent('''
    """Run migcheck's CLI on a machine where neither framework can be imported."""
    import sys

    sys.modules["torch"] = None  # `import torch` now raises ImportError
    sys.modules["mindspore"] = None
    try:
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("the blocker does not work")
    from migcheck.cli import main

    code = main(sys.argv[1:])
    loaded = sorted(m for m in ("torch", "mindspore") if sys.modules.get(m) is not None)
    print("frameworks loaded:", loaded or "none")
    sys.exit(code)
''')


def test_report_command_needs_neither_framework(report, tmp_path):
    root, verdicts = report
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    for page in [copy / "index.html", *(copy / "cells").glob("*.html")]:
        page.unlink()
    script = tmp_path / "no_frameworks.py"
    script.write_text(BLOCKER)
    proc = subprocess.run([sys.executable, str(script), "report", str(copy), "--baseline", str(root)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "frameworks loaded: none" in proc.stdout
    assert "0 newly failing, 0 worse, 0 newly passing, 0 better, 0 changed, 0 added, 0 removed, 8 unchanged" \
        in proc.stdout
    assert (copy / "index.html").read_text() != ""
    assert len(read(copy / "cells" / "conv_bias.html").images) == 3  # plots drawn from the JSON alone


# --- a real failing run through the CLI, on a terminal -------------------------------------------

REAL = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
'''


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_real_failing_run_on_a_terminal(write_case_file, tmp_path, monkeypatch):
    """`migcheck compare --report` on a right and a wrong port of Linear, with stdout claiming to be a TTY."""
    monkeypatch.setenv("COLUMNS", "160")  # the status line is cut to the terminal's width: fix the width
    path = write_case_file("cases/demo.py", REAL)
    terminal = FakeTerminal()
    with contextlib.redirect_stdout(terminal):
        code = main(["compare", "-v", str(path), "--mode", "pynative", "--color", "always", "--report", str(tmp_path / "r")])
    assert code == EXIT_UNEXPECTED
    # The terminal (-v): a status line naming the running item with a progress bar, redrawn in place,
    # then each verdict line.
    out = terminal.getvalue()
    assert "\r\x1b[2Krunning dense_ok[forward-pynative-cpu]  [....................]   0% 0/2" in out
    assert "\r\x1b[2Krunning dense_relu[forward-pynative-cpu]  [##########..........]  50% 1/2 ETA " in out
    assert "\r\x1b[2K\x1b[32mPASS \x1b[0m  dense_ok[forward-pynative-cpu]" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("check    mode      backend"))
    assert lines[header].split() == ["check", "mode", "backend", "pass", "fail", "error", "skip", "xfail", "xpass"]
    assert lines[header + 2] == "forward  pynative  cpu      \x1b[32m   1\x1b[0m  \x1b[31m   1\x1b[0m      0     0      0      0"
    assert lines[-1].startswith("== 1 pass, 1 fail: 1 not as expected ==")
    # The report: the failing tensor's plot, from arrays the engine compared; the weight mapping.
    root = tmp_path / "r"
    index = read(root / "index.html")
    assert [(r["case"], r["status"]) for r in index.rows("verdicts")] == [("dense_relu", "fail"), ("dense_ok", "pass")]
    page = read(root / "cells" / "dense_relu.html")
    assert [img["data-tensor"] for img in page.images] == ["out"]
    assert png_size(base64.b64decode(page.images[0]["src"].split(",", 1)[1]))[0] > 300
    assert [(r["torch"], r["mindspore"]) for r in page.rows("mapping")] == [("weight", "weight"), ("bias", "bias")]
    cell = json.loads((root / "cells" / "dense_relu.json").read_text())
    sample = cell["verdicts"][0]["tensors"][0]["error_sample"]
    assert sample["map_axes"] == [0, 1] and len(sample["map"]) == 4 and len(sample["map"][0]) == 2


def test_progress_line_fits_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    stream = FakeTerminal()
    progress = Progress(stream, 3)
    progress.start("a_very_long_case_name_that_does_not_fit[forward-pynative-cpu]")
    progress.finish(V("short", "pass", message="ok"))
    progress.close()
    text = stream.getvalue()
    first = text.split("\r\x1b[2K")[1]
    assert first == "[1/3] a_very_long_case_name_that_doe..." and len(first) == 39  # COLUMNS - 1
    assert "\r\x1b[2KPASS   short[forward-pynative-cpu]  ok\n" in text and text.endswith("\r\x1b[2K")
    table = summary_table(run_verdicts())
    assert table.splitlines()[-1].split() == ["total", "1", "3", "1", "1", "1", "1"]


def test_help_stays_light(repo_root):
    code = ("import sys; from migcheck.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('matplotlib', 'torch', 'mindspore') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=repo_root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
    assert "report" in proc.stdout  # the subcommand is listed


# --- in a real browser ---------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")


def browse(url: str, profile: Path, *action: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0"]
    return subprocess.run([CHROMIUM, *flags, *action, url], capture_output=True, text=True, timeout=120)


def console_messages(stderr: str) -> list:
    """What the page's JavaScript said or threw (Chromium logs page console output as CONSOLE lines)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium);"
                                             " .ci/run installs it")
def test_pages_render_in_chromium_without_errors(report, tmp_path):
    root, verdicts = report
    # The index opened as a link that filters to failures and sorts by max abs err, largest first.
    index = browse((root / "index.html").as_uri() + "?status=fail&sort=max-abs-err&order=desc", tmp_path / "p1",
                   "--dump-dom")
    assert index.returncode == 0, index.stderr[-2000:]
    assert console_messages(index.stderr) == []
    dom = Page(index.stdout)
    assert dom.body.get("data-ready") == "1"
    shown = [r for r in dom.rows("verdicts") if "hidden" not in r["_attrs"]]
    failing = sorted((v for v in verdicts if v.status == "fail"), key=lambda v: -v.worst.max_abs_err)
    assert [(r["case"], r["check"]) for r in shown] == [(v.case, v.check) for v in failing]
    assert "3 of 8 shown" in dom.all_text
    # A cell page with three failing tensors: scripts ran, every plot decoded.
    cell = browse((root / "cells" / "conv_bias.html").as_uri(), tmp_path / "p2", "--dump-dom")
    assert console_messages(cell.stderr) == []
    dom = Page(cell.stdout)
    assert dom.body.get("data-ready") == "1" and dom.body.get("data-images") == "3 shown, 0 broken"
    shot = tmp_path / "shot.png"
    browse((root / "cells" / "conv_bias.html").as_uri(), tmp_path / "p3", f"--screenshot={shot}",
           "--window-size=1200,900", "--hide-scrollbars")
    assert png_size(shot.read_bytes()) == (1200, 900)
