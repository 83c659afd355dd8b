"""Golden fixtures (migcheck.golden.store, migcheck record, compare --golden): record the torch side once,
compare MindSpore against it without torch; stale, tampered and missing goldens are never used."""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from migcheck.golden import store as golden
from migcheck.cli import EXIT_OK, EXIT_UNEXPECTED, main
from migcheck.planning.discovery import load_file
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.golden.fingerprint import case_fingerprint
from migcheck.runners.base import ParamInfo
from migcheck.running.record import record_case

pytestmark = pytest.mark.timeout(300)

LINEAR = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=("forward", "backward"))
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value")
'''

# Runs migcheck.cli.main in a process where `import torch` fails, and says whether torch got in.
NO_TORCH = '''
import sys
sys.modules["torch"] = None  # any `import torch` now raises ImportError
from migcheck.cli import main
code = main(sys.argv[1:])
print("torch modules loaded:", sorted(m for m, v in sys.modules.items() if m.startswith("torch") and v is not None))
sys.exit(code)
'''


def _run(*argv, cwd, no_torch=False):
    if no_torch:
        script = cwd / "no_torch.py"
        script.write_text(NO_TORCH)
        cmd = [sys.executable, str(script), *argv]
    else:
        cmd = [sys.executable, "-m", "migcheck.cli", *argv]
    env = {**os.environ, "GLOG_v": "3"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_record_then_compare_without_torch_in_separate_processes(write_case_file, tmp_path):
    path = write_case_file("cases/linear.py", LINEAR)
    edited = write_case_file("cases/edited.py", "edited = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)\n")
    fixtures = tmp_path / "fixtures"
    rec = _run("record", str(path), str(edited), "--check", "forward,backward", "--fixtures", str(fixtures), cwd=tmp_path)
    assert rec.returncode == EXIT_OK, rec.stdout + rec.stderr
    assert "RECORD dense_ok[forward]" in rec.stdout and "RECORD dense_known_bad[forward]" in rec.stdout
    assert rec.stdout.splitlines()[-1] == "== 4 recorded =="

    manifest = json.loads((fixtures / "dense_ok" / "manifest.json").read_text())
    assert manifest["recorded_with"]["torch_device"] == "cpu" and manifest["recorded_with"]["torch"]
    assert set(manifest["checks"]) == {"forward", "backward"}
    for entry in manifest["checks"].values():
        data = (fixtures / "dense_ok" / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and entry["oracle"]
    forward = manifest["checks"]["forward"]["tensors"]
    assert {"role": "result", "name": "out", "shape": [4, 2], "dtype": "float32"} in forward
    assert {"role": "oracle", "name": "out", "shape": [4, 2], "dtype": "float64"} in forward

    # Between recording and comparing, one case's torch side changes: its golden is stale.
    edited.write_text(edited.read_text().replace("torch.nn.Linear(3, 2)", "torch.nn.Linear(3, 2, bias=True)"))
    # Another process, torch unimportable: the goldens stand in, budget mode uses their stored oracle.
    cmp = _run("compare", "-v", str(path), str(edited), "--golden", str(fixtures), "--mode", "pynative",
               "--tolerance-mode", "budget", "--report", str(tmp_path / "report"), cwd=tmp_path, no_torch=True)
    assert "torch modules loaded: []" in cmp.stdout, cmp.stdout + cmp.stderr
    assert "PASS   dense_ok[forward-pynative-cpu]" in cmp.stdout
    assert "PASS   dense_ok[backward-pynative-cpu]" in cmp.stdout
    assert "XFAIL  dense_known_bad[forward-pynative-cpu]  failed as expected (value): error budget exceeded" in cmp.stdout
    line = next(ln for ln in cmp.stdout.splitlines() if ln.startswith("ERROR  edited[forward-pynative-cpu]"))
    assert "forward.npz is stale: the case's torch changed since it was recorded" in line
    assert f"migcheck record cases/edited.py -k edited --fixtures {fixtures} --update" in line
    assert any(ln.startswith("== 2 pass, 1 error, 1 xfail: 1 not as expected ==") for ln in cmp.stdout.splitlines())
    assert cmp.returncode == EXIT_UNEXPECTED  # a stale golden is never used, so never as expected
    verdicts = json.loads((tmp_path / "report" / "summary.json").read_text())["verdicts"]
    fresh = [v for v in verdicts if v["case"] != "edited"]
    assert all(v["reference"].startswith(f"golden {fixtures}") for v in fresh)
    from migcheck.report.jsonfile import read_summary  # tensors live in the cell files (schema 4)

    full = [v for v in read_summary(tmp_path / "report" / "summary.json") if v.case != "edited"]
    assert all(v.tensors for v in full) and all(t.oracle_err_pt is not None for v in full for t in v.tensors)
    assert [(v["status"], v["kind"]) for v in verdicts if v["case"] == "edited"] == [("error", "stale-golden")]


def _record(path, fixtures, **kwargs):
    (case,) = [c for c in load_file(path).cases if c.name == kwargs.pop("name", "dense_ok")]
    return case, record_case(case, kwargs.pop("checks", ("forward",)), str(fixtures), **kwargs)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_tampered_golden_is_rejected(write_case_file, tmp_path):
    path = write_case_file("cases/tamper.py", LINEAR)
    case, results = _record(path, tmp_path / "fx")
    assert [r.status for r in results] == ["recorded"]
    options = RunOptions(golden=str(tmp_path / "fx"))
    assert run_item(Item(case, "forward", "pynative", "cpu"), options).status == "pass"

    npz = tmp_path / "fx" / "dense_ok" / "forward.npz"
    data = bytearray(npz.read_bytes())
    data[len(data) // 2] ^= 0x01
    npz.write_bytes(bytes(data))
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), options)
    assert (verdict.status, verdict.kind) == ("error", "tampered-golden")
    assert "does not match the sha256 in its manifest" in verdict.message and "--update" in verdict.message


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_golden_holding_a_pickle_is_refused_even_with_a_matching_sha256(write_case_file, tmp_path):
    path = write_case_file("cases/pickled.py", LINEAR)
    case, _ = _record(path, tmp_path / "fx")
    npz = tmp_path / "fx" / "dense_ok" / "forward.npz"
    with np.load(npz) as f:
        entries = {k: f[k] for k in f.files}
    entries["a0"] = np.array([{"evil": 1}], dtype=object)  # np.savez pickles object arrays
    buffer = io.BytesIO()
    np.savez(buffer, **entries)
    npz.write_bytes(buffer.getvalue())
    manifest = golden.read_manifest(tmp_path / "fx", "dense_ok")
    entry = manifest.checks["forward"]
    fixed = {**manifest.checks, "forward": type(entry)(**{**entry.__dict__, "sha256": golden.file_sha256(npz)})}
    golden.write_manifest(tmp_path / "fx", type(manifest)(**{**manifest.__dict__, "checks": fixed}))
    verdict = run_item(Item(case, "forward", "pynative", "cpu"), RunOptions(golden=str(tmp_path / "fx")))
    assert (verdict.status, verdict.kind) == ("error", "tampered-golden")
    assert "cannot be read without pickle" in verdict.message


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_missing_golden_is_an_error_that_names_the_fix(write_case_file, tmp_path):
    path = write_case_file("cases/missing.py", LINEAR)
    case, _ = _record(path, tmp_path / "fx", checks=("forward",))
    options = RunOptions(golden=str(tmp_path / "fx"))
    no_check = run_item(Item(case, "backward", "pynative", "cpu"), options)
    assert (no_check.status, no_check.kind) == ("error", "missing-golden")
    assert "no golden for dense_ok[backward]" in no_check.message
    assert f"migcheck record {path} -k dense_ok --fixtures {tmp_path / 'fx'} --check backward" in no_check.message
    (bad,) = [c for c in load_file(path).cases if c.name == "dense_known_bad"]
    no_case = run_item(Item(bad, "forward", "pynative", "cpu"), options)
    assert (no_case.status, no_case.kind) == ("error", "missing-golden")  # not an xfail: nothing was compared
    # Budget mode needs the oracle, which --no-oracle leaves out.
    bare, _ = _record(path, tmp_path / "bare", oracle=False)
    no_oracle = run_item(Item(bare, "forward", "pynative", "cpu"), RunOptions(golden=str(tmp_path / "bare"),
                                                                             tolerance_mode="budget"))
    assert no_oracle.kind == "missing-golden" and "no float64 oracle (recorded with --no-oracle)" in no_oracle.message
    # By default the judge falls back to rtol/atol there, and the verdict names it and why.
    fallback = run_item(Item(bare, "forward", "pynative", "cpu"), RunOptions(golden=str(tmp_path / "bare")))
    assert fallback.status == "pass" and fallback.tolerance_mode == "budget"
    assert fallback.judged_by.startswith("rtol/atol (the golden has no float64 re-run of torch")
    assert "judged by rtol/atol (the golden has no float64 re-run" in fallback.message
    assert all(t.oracle_err_ms is None for t in fallback.tensors)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_record_keeps_existing_goldens_unless_update(write_case_file, tmp_path, capsys):
    path = write_case_file("cases/upd.py", LINEAR)
    fixtures = tmp_path / "fx"
    argv = ["record", str(path), "-k", "dense_ok and forward", "--fixtures", str(fixtures)]
    assert main(argv) == EXIT_OK
    npz = fixtures / "dense_ok" / "forward.npz"
    first = os.stat(npz)
    capsys.readouterr()
    assert main(argv) == EXIT_OK
    out = capsys.readouterr().out
    assert f"EXISTS dense_ok[forward]  {npz} exists, use --update" in out
    assert os.stat(npz).st_ino == first.st_ino  # untouched
    assert main(argv + ["--update"]) == EXIT_OK
    assert "RECORD dense_ok[forward]" in capsys.readouterr().out
    assert os.stat(npz).st_ino != first.st_ino  # replaced by a new file (os.replace)
    assert golden.file_sha256(npz) == golden.read_manifest(fixtures, "dense_ok").checks["forward"].sha256
    assert sorted(p.name for p in npz.parent.iterdir()) == ["forward.npz", "manifest.json"]

    # The same case, its torch side changed: the existing golden is stale, and record says so.
    changed = write_case_file("cases2/upd.py", LINEAR.replace("torch=torch_linear, mindspore=ms_dense,",
                                                              "torch=lambda: torch_linear(), mindspore=ms_dense,"))
    assert main(["record", str(changed), "-k", "dense_ok and forward", "--fixtures", str(fixtures)]) == EXIT_UNEXPECTED
    assert "exists and is stale (the case changed), use --update" in capsys.readouterr().out


def test_a_failed_write_leaves_the_old_golden_and_no_partial_file(tmp_path):
    good = _fields({"out": np.arange(6, dtype=np.float32).reshape(2, 3)})
    path, sha, _, _ = golden.write_check(tmp_path, "c", "forward", good)
    # The third array cannot be written without pickle: the write fails part-way through the file.
    bad = _fields({"out": np.zeros(3, np.float32), "extra": np.array([object()], dtype=object)})
    with pytest.raises(ValueError, match="allow_pickle=False"):
        golden.write_check(tmp_path, "c", "forward", bad)
    assert golden.file_sha256(path) == sha
    assert sorted(p.name for p in path.parent.iterdir()) == ["forward.npz"]  # no temporary file left


def test_result_trees_round_trip_exactly(tmp_path):
    tree = {"out": (np.float16([1.5, -2]), [np.array(3, np.int64), {"mask": np.array([True, False]), 7: np.complex64([1j])}]),
            "grad.param.fc.weight": np.ones((2, 0), np.float32)}
    fields = _fields(tree)
    path, sha, size, entries = golden.write_check(tmp_path, "odd name/../x", "forward", fields)
    assert path.parent.name.startswith("odd_name_.._x-") and path.parent.parent == tmp_path  # cannot escape DIR
    assert [e.name for e in entries if e.role == "result"] == [
        "out[0]", "out[1][0]", "out[1][1].mask", "out[1][1].7", "grad.param.fc.weight"]
    with np.load(path, allow_pickle=False) as npz:
        back = golden.decode(npz)
    assert isinstance(back["results"]["out"], tuple) and isinstance(back["results"]["out"][1], list)
    assert list(back["results"]["out"][1][1]) == ["mask", 7]
    for a, b in [(tree["out"][0], back["results"]["out"][0]), (tree["out"][1][1][7], back["results"]["out"][1][1][7]),
                 (tree["grad.param.fc.weight"], back["results"]["grad.param.fc.weight"])]:
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    assert back["params"] == fields["params"] and back["input_dtypes"] == ("bfloat16",)
    # The same reference always gives the same bytes.
    again, sha2, _, _ = golden.write_check(tmp_path / "again", "odd name/../x", "forward", fields)
    assert sha2 == sha


def _fields(results):
    return {"inputs": (np.ones((2, 3), np.float32),), "input_names": ("x",), "input_dtypes": ("bfloat16",),
            "params": (ParamInfo("fc.weight", (2, 3), "float32", "Linear", True, False),),
            "weights": {"fc.weight": np.zeros((2, 3), np.float32)}, "results": results, "objective": None,
            "oracle": None}


FINGERPRINTED = '''
from migcheck import FrameworkPair, PairedCase, uniform

SCALE = 2.0


def helper(x):
    return x * SCALE


def torch_net():
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return helper(x)

    return Net()


def ms_net():
    import mindspore

    class Net(mindspore.nn.Cell):
        def construct(self, x):
            return x * 2.0

    return Net()


doubled = PairedCase(torch=torch_net, mindspore=ms_net, inputs={"x": uniform(2, 3)}, tolerance=None,
                     loss=FrameworkPair(torch=lambda: __import__("torch").nn.MSELoss(), mindspore=lambda: None),
                     targets=())
'''


@pytest.mark.parametrize("edit, changed", [
    (("return x * 2.0", "return x * 2.5"), None),  # the MindSpore port: the golden stays fresh
    (("tolerance=None", "tolerance=None, tags=('x',), doc='d'"), None),
    (("mindspore=lambda: None", "mindspore=lambda: 0"), None),
    (("SCALE = 2.0", "SCALE = 3.0"), "torch"),  # a constant the torch side reads
    (("return x * SCALE", "return x * SCALE + 0"), "torch"),  # a helper it calls
    (("uniform(2, 3)", "uniform(2, 4)"), "inputs"),
    (("nn.MSELoss()", "nn.L1Loss()"), "loss"),
], ids=["ms-side", "metadata", "ms-loss", "constant", "helper", "inputs", "torch-loss"])
def test_fingerprint_covers_the_torch_side_only(tmp_path, edit, changed):
    first, second = tmp_path / "a" / "cases.py", tmp_path / "b" / "cases.py"
    for path, text in ((first, FINGERPRINTED), (second, FINGERPRINTED.replace(*edit))):
        path.parent.mkdir()
        path.write_text(textwrap.dedent(text))
    (a,), (b,) = load_file(first).cases, load_file(second).cases
    (fa, pa), (fb, pb) = case_fingerprint(a), case_fingerprint(b)
    if changed is None:
        assert fa == fb
    else:
        assert fa != fb and [k for k in pa if pa[k] != pb[k]] == [changed]


def test_a_case_file_importing_torch_at_module_level_says_how_to_load_without_it(tmp_path, monkeypatch):
    path = tmp_path / "eager.py"
    path.write_text("import torch.nn as tnn\nfrom migcheck import PairedCase\n")
    monkeypatch.setitem(sys.modules, "torch", None)  # what a machine without torch sees
    (error,) = load_file(path).errors
    assert "imports torch at module level, but torch cannot be imported here" in error.problem
    assert "import torch inside the torch-side factories" in error.problem


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_pytest_plugin_compares_against_goldens(pytester, case_text, tmp_path):
    cases = pytester.mkdir("cases")
    (cases / "lin.py").write_text(case_text(LINEAR))
    for case in load_file(cases / "lin.py").cases:
        record_case(case, ("forward",), str(pytester.path / "fx"))
    result = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "--migcheck-mode", "pynative",
                                           "--migcheck-check", "forward", "--migcheck-golden", "fx", "-rA")
    result.assert_outcomes(passed=1, xfailed=1)
    missing = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "--migcheck-golden", "nowhere")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    assert "--migcheck-golden: nowhere: no such folder" in missing.stderr.str()
