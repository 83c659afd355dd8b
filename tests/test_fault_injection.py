"""Fault injection: each bad input a new user is likely to give (found by trying about 100 of them) gives a
verdict, or a one-line error with exit 2; never a traceback, and every other result is kept.

One `migcheck compare` run holds every case-level fault next to a good case (one framework start-up for all);
the command-level faults (report folder, tolerances, corrupt reports, journals, checkpoints) each run on their
own. test_counts adds them up: inputs tried, results lost (target 0), tracebacks (target 0).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore,
              pytest.mark.timeout(600), pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX")]

ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

FACTORIES = '''
from migcheck import PairedCase, Tolerance, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)
'''
GOOD = FACTORIES + '''
good = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",),
                  modes=("pynative",))
'''
# case file -> (its text, what the run must say about it: a verdict (case, status, kind, message start) or a
# collection error (its start))
CASE_FAULTS: Dict[str, tuple] = {
    "import_exit.py": ("import os\nos._exit(3)\n", ("error", "importing it ended the process with exit code 3")),
    "import_segv.py": ("import ctypes\nctypes.string_at(0)\n", ("error", "importing it killed the process (SIGSEGV")),
    "import_raises.py": ("raise RuntimeError('boom')\n", ("error", "importing it raised RuntimeError: boom")),
    "import_sys_exit.py": ("import sys\nsys.exit(1)\n", ("error", "importing it raised SystemExit: 1")),
    "syntax.py": ("x = (\n", ("error", "syntax error at line 1")),
    "bounds.py": (FACTORIES + 'bounds = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(2, 4, 0, 1)})\n',
                  ("error", "bounds: input 'x': shape (2, 4, 0, 1) has a zero-size dimension")),
    "instance.py": ("import torch\n" + FACTORIES + 'instance = PairedCase(torch=torch.nn.Linear(3, 2), mindspore=ms_dense,'
                    ' inputs={"x": uniform(4, 3)})\n', ("error", "instance: 'torch' is a Linear instance, not a factory")),
    "inf_tol.py": (FACTORIES + 'inf_tol = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)},'
                   ' tolerance=Tolerance(rtol=0.0, atol=float("inf")))\n', ("error", "inf_tol: tolerance: atol=inf is infinite")),
    "empty.py": (FACTORIES + '''
def torch_empty():
    import torch

    class Empty(torch.nn.Module):
        def forward(self, x):
            return x[:, :0]
    return Empty()


def ms_empty():
    import mindspore

    class Empty(mindspore.nn.Cell):
        def construct(self, x):
            return x[:, :0]
    return Empty()


empty = PairedCase(torch=torch_empty, mindspore=ms_empty, inputs={"x": uniform(2, 3)}, checks=("forward",),
                   modes=("pynative",))
''', ("verdict", "empty", "fail", "empty", "out: empty on both sides")),
    "nan_both.py": (FACTORIES + '''
def torch_nan():
    import torch

    class Nan(torch.nn.Module):
        def forward(self, x):
            return x * float("nan")
    return Nan()


def ms_nan():
    import mindspore

    class Nan(mindspore.nn.Cell):
        def construct(self, x):
            return x * float("nan")
    return Nan()


nan_both = PairedCase(torch=torch_nan, mindspore=ms_nan, inputs={"x": uniform(2, 3)}, checks=("forward",),
                      modes=("pynative",))
''', ("verdict", "nan_both", "fail", "nonfinite", "NaN on both sides in out")),
    "factory_raises.py": (FACTORIES + '''
def broken():
    raise ValueError("no such layer")


factory_raises = PairedCase(torch=torch_linear, mindspore=broken, inputs={"x": uniform(4, 3)}, checks=("forward",),
                            modes=("pynative",))
''', ("verdict", "factory_raises", "error", "error", "")),
    "long_name.py": (FACTORIES + 'long = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)},'
                     ' checks=("forward",), modes=("pynative",), name="n" * 300)\n',
                     ("verdict", "n" * 300, "pass", None, "")),
}


def _run(args: List[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "migcheck.cli"] + args, cwd=cwd, capture_output=True, text=True,
                          env=ENV, timeout=timeout)


def _one_line_error(result: subprocess.CompletedProcess) -> Optional[str]:
    """The error line when result is a clean usage error (exit 2, last stderr line 'migcheck...: error: ...')."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if result.returncode != 2 or not lines or not ("error: " in lines[-1] or lines[-1].startswith("migcheck: ")):
        return None
    own = [line for line in lines if not line.startswith(("usage:", " "))]  # argparse prints its usage first
    return lines[-1] if len(own) == 1 else None


TALLY: Dict[str, list] = {"tried": [], "lost": [], "tracebacks": []}


def _tally(name: str, result: subprocess.CompletedProcess, lost: int = 0) -> None:
    TALLY["tried"].append(name)
    if lost:
        TALLY["lost"].append(name)
    if "Traceback" in result.stdout + result.stderr:
        TALLY["tracebacks"].append(name)


@pytest.fixture(scope="module")
def case_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    (root / "cases").mkdir()
    (root / "cases" / "a_good.py").write_text(GOOD)
    for name, (text, _) in CASE_FAULTS.items():
        (root / "cases" / name).write_text(text)
    result = _run(["compare", "cases", "--mode", "pynative", "--report", "report", "--color", "never"], root)
    return root, result, json.loads((root / "report" / "summary.json").read_text())


@pytest.mark.parametrize("name", list(CASE_FAULTS))
def test_case_level_fault(case_run, name):
    root, result, data = case_run
    kind, *expected = CASE_FAULTS[name][1]
    good = [v for v in data["verdicts"] if v["case"] == "good"]
    _tally(name, result, lost=0 if [v["status"] for v in good] == ["pass"] else 1)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 2  # collection errors among them
    if kind == "error":
        errors = [e for e in data["collection_errors"] if e.split(":", 1)[0].endswith(name)]
        assert len(errors) == 1 and expected[0] in errors[0], data["collection_errors"]
        assert len(errors[0].splitlines()) == 1
    else:
        case, status, verdict_kind, message = expected
        [verdict] = [v for v in data["verdicts"] if v["case"] == case]
        assert (verdict["status"], verdict["kind"]) == (status, verdict_kind), verdict["message"]
        assert verdict["message"].startswith(message)
    assert [v["status"] for v in good] == ["pass"]  # every other result kept
    if name == "long_name.py":
        assert all(len(p.name) < 120 for p in (root / "report" / "cells").iterdir())


def _good_report(root: Path) -> Path:
    """A small finished report to corrupt (framework-free: lambdas that never run, a skip verdict)."""
    (root / "c.py").write_text("from migcheck import PairedCase, uniform\n"
                               "c = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={'x': uniform(2)},"
                               " checks=('forward',), skip={'pynative': 'not here', 'graph': 'not here'})\n")
    result = _run(["compare", "c.py", "--report", "good"], root)
    assert result.returncode == 0, result.stderr
    return root / "good"


def _corrupt(field: str):
    def apply(summary: Path) -> None:
        data = json.loads(summary.read_text())
        if field == "truncated":
            summary.write_text(summary.read_text()[:40])
        elif field == "verdicts-not-a-list":
            data["verdicts"] = {"a": 1}
            summary.write_text(json.dumps(data))
        elif field == "verdict-without-case":
            del data["verdicts"][0]["case"]
            summary.write_text(json.dumps(data))
        elif field == "schema":
            data["schema_version"] = 99
            summary.write_text(json.dumps(data))
        elif field == "binary":
            summary.write_bytes(b"\xff\xfe\x00garbage")
    return apply


CORRUPTIONS = {"truncated": "not valid JSON at line", "verdicts-not-a-list": "field 'verdicts' is a dict, not a list",
               "verdict-without-case": "verdicts[0] (c[forward-pynative-cpu]): missing field 'case'",
               "schema": "schema_version 99, this migcheck reads", "binary": "not a text file"}


@pytest.mark.parametrize("command", ["report", "baseline", "merge"])
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupt_report_is_named_with_file_and_field(tmp_path, command, corruption):
    good = _good_report(tmp_path)
    bad = tmp_path / "bad"
    shutil.copytree(good, bad)
    (bad / "journal.jsonl").unlink()  # the summary alone is what is read
    _corrupt(corruption)(bad / "summary.json")
    args = {"report": ["report", "bad"], "baseline": ["report", "good", "--baseline", "bad"],
            "merge": ["merge", "merged", "good", "bad"]}[command]
    before = (good / "summary.json").read_text()
    result = _run(args, tmp_path)
    _tally(f"{command}:{corruption}", result, lost=int((good / "summary.json").read_text() != before))
    line = _one_line_error(result)
    assert line is not None, result.stderr
    assert str(Path("bad") / "summary.json") in line and CORRUPTIONS[corruption] in line
    assert "Traceback" not in result.stderr


def test_report_folder_faults(tmp_path):
    good = _good_report(tmp_path)
    before = (good / "summary.json").read_text()
    (tmp_path / "afile").write_text("")
    cases = ["compare", "c.py"]
    runs = {
        "report-is-a-file": (_run(cases + ["--report", "afile"], tmp_path), "--report afile: is a file, not a folder"),
        "keyword-matches-nothing": (_run(cases + ["--report", "good", "-k", "zzz"], tmp_path),
                                    "no items selected (-k 'zzz' matched nothing)"),
        "atol-inf": (_run(cases + ["--atol", "inf"], tmp_path), "argument --atol: 'inf' is infinite"),
        "rtol-nan": (_run(cases + ["--rtol", "nan"], tmp_path), "argument --rtol: 'nan' must be a finite non-negative number"),
        "no-such-report": (_run(["report", "nowhere"], tmp_path), "cannot read the report"),
    }
    if os.geteuid() != 0:  # root writes anywhere
        (tmp_path / "ro").mkdir(mode=0o500)
        runs["read-only-report"] = (_run(cases + ["--report", "ro/out"], tmp_path), "cannot write there")
    # A second writer while the first holds the lock: the lock is held by a process that sleeps.
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from migcheck.report.outdir import prepare;"
                               " prepare(sys.argv[1]); print('locked', flush=True); time.sleep(60)", "good"],
                              cwd=tmp_path, env=ENV, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        runs["second-writer"] = (_run(cases + ["--report", "good"], tmp_path), "another migcheck run (pid")
        runs["report-while-running"] = (_run(["report", "good"], tmp_path), "another migcheck run (pid")
    finally:
        holder.kill()
        holder.wait()
    for name, (result, expected) in runs.items():
        _tally(name, result, lost=int((good / "summary.json").read_text() != before))
        line = _one_line_error(result)
        assert line is not None and expected in line, (name, result.stderr)
    assert (good / "summary.json").read_text() == before


def _listing(root: Path) -> Dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(errors="replace") for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".migcheck.lock"}


def test_a_run_that_planned_nothing_leaves_the_report_folder_alone(tmp_path):
    good = _good_report(tmp_path)
    before = _listing(good)
    assert "summary.json" in before and any(name.startswith("cells") for name in before)
    for name, args in {"mistyped-path": ["compare", "c_typo.py", "--report", "good"],
                       "empty-folder": ["compare", "nothing_here", "--report", "good"]}.items():
        (tmp_path / "nothing_here").mkdir(exist_ok=True)
        result = _run(args, tmp_path)
        _tally(name, result, lost=int(_listing(good) != before))
        assert result.returncode == 2 and "Traceback" not in result.stderr, (name, result.stderr)
        assert _listing(good) == before, name  # summary, journal and cell pages as they were


def test_journal_faults(tmp_path):
    good = _good_report(tmp_path)
    # A run that died: no summary.json, a torn last line. `report` renders what the journal holds.
    dead = tmp_path / "dead"
    shutil.copytree(good, dead)
    (dead / "summary.json").unlink()
    text = (dead / "journal.jsonl").read_text()
    end = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"  # drop the end record: the run never finished
    (dead / "journal.jsonl").write_text(end + '{"verdict": {"case": "x", "ch')
    result = _run(["report", "dead"], tmp_path)
    _tally("journal-torn-last-line", result)
    assert result.returncode == 0 and "partial" in result.stdout, result.stderr
    assert json.loads((dead / "summary.json").read_text())["partial"] is True
    # A corrupt line in the middle is skipped and named with file and line; every intact verdict renders.
    (dead / "summary.json").unlink()
    (dead / "journal.jsonl").write_text(end.replace('{"verdict"', 'garbage\n{"verdict"', 1))
    result = _run(["report", "dead"], tmp_path)
    rendered = json.loads((dead / "summary.json").read_text())["verdicts"] if (dead / "summary.json").is_file() else []
    _tally("journal-corrupt-line", result, lost=int(len(rendered) != end.count('{"verdict"')))
    assert result.returncode == 0, result.stderr
    assert "migcheck: warning: " in result.stderr and "journal.jsonl: line 2 was skipped" in result.stderr


def test_convert_faults(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    from migcheck.cli import main

    cases = str(Path(__file__).resolve().parents[1] / "cases" / "mapping.py")
    import importlib.util

    spec = importlib.util.spec_from_file_location("mapping_cases_for_faults", cases)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    state = module.TinyResNetPt().state_dict()
    torch.save({"model": state, "epoch": 3}, tmp_path / "train.pt")
    wrong = dict(state, **{"fc.weight": torch.zeros(3, 3)})
    torch.save(wrong, tmp_path / "wrong.pt")
    import pickle

    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"fc.weight": _Evil()}))
    (tmp_path / "garbage.ckpt").write_bytes(b"not a checkpoint")
    faults = {"nested-without-key": ("train.pt", "x.ckpt", "a training checkpoint? pass --key model"),
              "wrong-shape": ("wrong.pt", "x.ckpt", "tensor(s) of the wrong shape, nothing written"),
              "pickle": ("evil.pt", "x.ckpt", "refused: not a plain tensor checkpoint"),
              "corrupt-ckpt": ("garbage.ckpt", "x.pt", "not a readable MindSpore checkpoint")}
    for name, (src, dst, expected) in faults.items():
        code = main(["convert", "resnet_renamed", str(tmp_path / src), str(tmp_path / dst), "--cases", cases])
        err = capsys.readouterr().err
        result = subprocess.CompletedProcess([], code, "", err)
        _tally(f"convert:{name}", result, lost=int((tmp_path / dst).exists()))
        assert code == 2 and len(err.strip().splitlines()) == 1 and expected in err, (name, err)


class _Evil:
    def __reduce__(self):  # unpickling it would run a shell command
        return (os.system, ("true",))


def test_counts():
    """Runs last (file order): the note's numbers. Results lost and tracebacks must both be 0."""
    if len(TALLY["tried"]) < len(CASE_FAULTS):
        pytest.skip("run with the whole module: it adds up the other tests' inputs")
    tried, lost, tracebacks = (len(TALLY[k]) for k in ("tried", "lost", "tracebacks"))
    print(f"\nfault injection: {tried} inputs tried, {lost} results lost, {tracebacks} tracebacks")
    assert TALLY["lost"] == [] and TALLY["tracebacks"] == []
