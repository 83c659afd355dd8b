"""Robustness, untrusted files: no pickle on any load path, goldens verified before use (tampered byte by
byte), atomic writes for goldens and every report file, and case names that try to escape the report
folder or rewrite the terminal.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

from migcheck.golden import store as golden
from migcheck.util.atomic import atomic_write, atomic_write_text
from migcheck.cli import main
from migcheck.planning.discovery import load_file
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.golden.fingerprint import case_fingerprint
from migcheck.running.record import record_case
from migcheck.report import write_report
from migcheck.judging.verdict import Verdict

pytestmark = pytest.mark.timeout(300)

PACKAGE = Path(__file__).resolve().parents[1] / "migcheck"

CASES = '''
from migcheck import PairedCase, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


dense = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, 3)}, checks=("forward",))
other = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(2, 3)}, checks=("forward",))
'''


# --- no pickle ------------------------------------------------------------------------------------

def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
            yield owner, name, {k.arg: k.value for k in node.keywords}


def test_no_load_path_can_unpickle():
    """Every np.load says allow_pickle=False, every torch.load weights_only=True; pickle is never imported."""
    loads = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if isinstance(node, ast.ImportFrom) else [])
                assert not any(n and n.split(".")[0] in ("pickle", "cPickle", "dill", "joblib") for n in names), path
        for owner, name, kwargs in _calls(tree):
            if name == "load" and owner in ("np", "numpy"):
                assert isinstance(kwargs.get("allow_pickle"), ast.Constant) and kwargs["allow_pickle"].value is False, path
                loads.append((path.name, "np.load"))
            if name == "load" and owner == "torch":
                assert isinstance(kwargs.get("weights_only"), ast.Constant) and kwargs["weights_only"].value is True, path
                loads.append((path.name, "torch.load"))
            assert name not in ("loads", "load") or owner not in ("pickle", "marshal", "shelve"), path
    assert ("store.py", "np.load") in loads and ("checkpoint.py", "torch.load") in loads


# --- goldens, tampered byte by byte -----------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("goldens")
    path = root / "cases" / "dense.py"
    path.parent.mkdir()
    path.write_text(CASES)
    cases = {c.name: c for c in load_file(path).cases}
    fixtures = root / "fixtures"
    for case in cases.values():
        assert [r.status for r in record_case(case, ("forward",), str(fixtures))] == ["recorded"]
    return cases, fixtures


def _load(fixtures, case):
    fingerprint, parts = case_fingerprint(case)
    return golden.load_check(fixtures, case.name, "forward", fingerprint, parts)


def _same_fields(a, b) -> bool:
    def same(x, y):
        if isinstance(x, np.ndarray):
            return isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y)
        if isinstance(x, dict):
            return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, (tuple, list)):
            return type(x) is type(y) and len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
        return x == y
    return same(a, b)


def _flipped(path: Path, data: bytes, position: int, mask: int) -> None:
    changed = bytearray(data)
    changed[position] ^= mask
    path.write_bytes(bytes(changed))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_golden_npz_with_any_byte_flipped_is_never_used(recorded):
    cases, fixtures = recorded
    case = cases["dense"]
    npz = golden.check_path(fixtures, "dense", "forward")
    pristine = npz.read_bytes()
    expected = _load(fixtures, case).fields
    positions = sorted({0, 1, len(pristine) - 1, *range(0, len(pristine), max(1, len(pristine) // 48))})
    tampered = []
    try:
        for position in positions:
            for mask in (0x01, 0x80):
                _flipped(npz, pristine, position, mask)
                with pytest.raises(golden.GoldenProblem) as problem:
                    _load(fixtures, case)
                assert problem.value.kind == "tampered-golden"
                assert "does not match the sha256 in its manifest" in str(problem.value)
                tampered.append(position)
        for cut in (pristine[:-1], pristine[: len(pristine) // 2], b"", pristine + b"\0"):
            npz.write_bytes(cut)
            with pytest.raises(golden.GoldenProblem, match="does not match the sha256"):
                _load(fixtures, case)
        # Through the engine: an error verdict naming the fix, and the untouched golden of the other case still works.
        _flipped(npz, pristine, len(pristine) // 2, 0x01)
        options = RunOptions(golden=str(fixtures), modes=("pynative",))
        verdict = run_item(Item(case, "forward", "pynative", "cpu"), options)
        assert (verdict.status, verdict.kind) == ("error", "tampered-golden") and "--update" in verdict.message
        assert run_item(Item(cases["other"], "forward", "pynative", "cpu"), options).status == "pass"
    finally:
        npz.write_bytes(pristine)
    assert _same_fields(_load(fixtures, case).fields, expected)
    assert len(tampered) == 2 * len(positions) >= 90


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_golden_manifest_with_any_byte_flipped_is_refused_or_means_the_same(recorded):
    """Each flip either makes the golden unusable (tampered, stale or missing, never another exception),
    or lands in a purely informational field and the golden reads back exactly as recorded."""
    cases, fixtures = recorded
    case = cases["dense"]
    manifest = golden.case_dir(fixtures, "dense") / golden.MANIFEST
    pristine = manifest.read_bytes()
    expected = _load(fixtures, case).fields
    outcomes = {}
    try:
        # Every third byte, flipped once: the lowest bit, or 0x20 ('{' <-> '[', letter case) on every other one.
        for position in range(0, len(pristine), 3):
            for mask in ((0x01,) if position % 2 == 0 else (0x20,)):
                _flipped(manifest, pristine, position, mask)
                try:
                    loaded = _load(fixtures, case)
                except golden.GoldenProblem as problem:
                    assert problem.kind in ("tampered-golden", "stale-golden", "missing-golden")
                    outcomes[problem.kind] = outcomes.get(problem.kind, 0) + 1
                else:
                    assert _same_fields(loaded.fields, expected), (position, mask)
                    outcomes["same data"] = outcomes.get("same data", 0) + 1
    finally:
        manifest.write_bytes(pristine)
    assert sum(outcomes.values()) == len(range(0, len(pristine), 3)) > 500
    # Most flips break the JSON or a checked field; the sha256 and the fingerprint catch the rest.
    assert outcomes["tampered-golden"] > sum(outcomes.values()) // 2 and outcomes["stale-golden"] > 0
    assert outcomes["missing-golden"] > 0


@pytest.mark.parametrize("entry, problem", [
    ({"file": "../../dense/forward.npz"}, "is not a file name in the case's folder"),
    ({"file": "/etc/passwd"}, "is not a file name in the case's folder"),
    ({"sha256": 5}, "sha256 is int 5, not str"),
    ({"oracle": "yes"}, "oracle is str 'yes', not bool"),
    ({"fingerprint_parts": ["torch"]}, "fingerprint_parts is list"),
])
@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_manifest_pointing_outside_its_folder_or_with_wrong_types_is_refused(recorded, entry, problem):
    cases, fixtures = recorded
    manifest = golden.case_dir(fixtures, "dense") / golden.MANIFEST
    pristine = manifest.read_text()
    data = json.loads(pristine)
    data["checks"]["forward"].update(entry)
    manifest.write_text(json.dumps(data))
    try:
        with pytest.raises(golden.GoldenProblem) as raised:
            _load(fixtures, cases["dense"])
    finally:
        manifest.write_text(pristine)
    assert raised.value.kind == "tampered-golden" and problem in str(raised.value)


# --- atomic writes ----------------------------------------------------------------------------------

def test_an_interrupted_write_leaves_the_old_file_whole(tmp_path):
    target = tmp_path / "summary.json"
    atomic_write_text(target, '{"old": true}')

    def half_then_interrupted(f):
        f.write(b'{"new": ')
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, half_then_interrupted)
    assert json.loads(target.read_text()) == {"old": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]  # no temporary file left


def _verdicts(*cases):
    return [Verdict(case=c, check="forward", mode="pynative", backend="cpu", status="pass", kind=None, message="ok")
            for c in cases]


def test_every_report_file_is_replaced_atomically_and_an_interrupted_report_leaves_whole_files(tmp_path, monkeypatch):
    write_report(tmp_path, _verdicts("a", "b"))
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert [p.relative_to(tmp_path).as_posix() for p in files] == [
        "cells/a.html", "cells/a.json", "cells/a.md", "cells/b.html", "cells/b.json", "cells/b.md",
        "index.html", "summary.json"]
    inodes = {p: p.stat().st_ino for p in files}
    write_report(tmp_path, _verdicts("a", "b"))
    # Each file was replaced by a new one (os.replace), never rewritten in place.
    assert all(p.stat().st_ino != inode for p, inode in inodes.items())

    # Ctrl-C while the HTML pages are written: every file on disk is whole (old or new), none half-written.
    import migcheck.report.html as html

    real = html.render_case_page
    calls = []

    def interrupted(case, items, *args, **kwargs):
        calls.append(case)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(case, items, *args, **kwargs)

    monkeypatch.setattr(html, "render_case_page", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_report(tmp_path, _verdicts("a", "b", "c"))
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    # The report folder is swapped in whole when done (migcheck.report.swap): the previous one stays.
    assert len(json.loads((tmp_path / "summary.json").read_text())["verdicts"]) == 2
    assert not list(tmp_path.rglob("c.*")) and not [p for p in tmp_path.parent.iterdir() if ".new-" in p.name]
    for page in tmp_path.rglob("*.html"):
        assert page.read_text().rstrip().endswith("</html>")


# --- malicious case names --------------------------------------------------------------------------

EVIL_NAMES = ["../../etc/passwd", "line one\nFAIL   forged[forward-pynative-cpu]", "\x1b[2J\x1b[31mred\x07", "a/b", "a_b"]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_malicious_case_names_stay_inside_the_report_and_cannot_rewrite_the_terminal(tmp_path, capsys):
    work = tmp_path / "work"
    cases_dir = work / "cases"
    cases_dir.mkdir(parents=True)
    body = CASES + "\n" + "\n".join(
        f"evil_{i} = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={{'x': uniform(4, 3)}},"
        f" checks=('forward',), name={name!r})" for i, name in enumerate(EVIL_NAMES))
    (cases_dir / "evil.py").write_text(body)
    before = {p for p in tmp_path.rglob("*")}
    report = work / "report"
    code = main(["compare", "-v", str(cases_dir), "--mode", "pynative", "-k", "not dense and not other",
                 "--report", str(report), "--color", "never"])
    out = capsys.readouterr().out
    assert code == 0

    created = {p for p in tmp_path.rglob("*")} - before
    assert created and all(p == report or report in p.parents for p in created)  # nothing outside the report
    cells = sorted(p.name for p in (report / "cells").iterdir())
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", name) and not name.startswith(".") for name in cells)
    assert len(cells) == 3 * len(EVIL_NAMES)  # distinct names keep distinct files ('a/b' and 'a_b')

    # The terminal shows each name with its control characters escaped, on one line.
    assert "\x1b" not in out and "\x07" not in out
    assert "PASS   line one\\nFAIL   forged[forward-pynative-cpu][forward-pynative-cpu]" in out
    assert "PASS   \\x1b[2J\\x1b[31mred\\x07[forward-pynative-cpu]" in out
    assert not any(line.startswith("FAIL") for line in out.splitlines())
    # The record keeps the real names.
    data = json.loads((report / "summary.json").read_text())
    assert sorted(v["case"] for v in data["verdicts"]) == sorted(EVIL_NAMES)
    # So does a golden recorded under such a name: inside the fixtures folder, under a cleaned name.
    case = next(c for c in load_file(cases_dir / "evil.py").cases if c.name == "../../etc/passwd")
    fixtures = work / "fixtures"
    assert [r.status for r in record_case(case, ("forward",), str(fixtures))] == ["recorded"]
    [folder] = list(fixtures.iterdir())
    assert folder.name.startswith("_.._etc_passwd-") and not (tmp_path / "etc").exists()
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(golden=str(fixtures)))
    assert verdict.status == "pass" and verdict.reference.startswith(f"golden {folder}")
