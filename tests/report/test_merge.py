"""`migcheck merge OUT DIR...`: shard reports joined into one equal the unsharded run's report."""
from __future__ import annotations

import json

import pytest

from migcheck.cli import EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, main
from migcheck.planning.items import shard_of
from migcheck.report.jsonfile import read_run

CASES = '''
dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
dense_relu = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD)
dense_known_bad = PairedCase(torch=torch_linear, mindspore=ms_dense_relu, inputs=X, checks=FORWARD,
                             expect="fail", fails_with="value")
layer_norm_eps = PairedCase(torch=torch_layer_norm, mindspore=ms_layer_norm, checks=FORWARD,
                            inputs={"x": uniform(3, 4, low=-0.01, high=0.01)})
dense_scaled = PairedCase(torch=torch_linear, mindspore=ms_dense_scaled, inputs=X, checks=FORWARD,
                          weight_map={"weight": "dense.weight", "bias": "dense.bias"})
'''
MORE = '''
other_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD)
'''
NAMES = ("dense_ok", "dense_relu", "dense_known_bad", "layer_norm_eps", "dense_scaled", "other_ok")


def signature(run):
    """What a verdict says, without its timing: item, status, kind, expectation, message, tensors' errors."""
    return {(v.item, v.status, v.kind, v.expected, v.message, v.file,
             tuple((t.name, t.ok, t.max_abs_err, t.mismatched) for t in v.tensors)) for v in run.verdicts}


_BUILT: dict = {}


@pytest.fixture
def reports(tmp_path_factory, case_text):
    """An unsharded report and the reports of shards 1/2 and 2/2 of the same cases (PYNATIVE, forward);
    built once per process and shared by this module's tests, which only read them."""
    if not _BUILT:
        _BUILT["reports"] = _build(tmp_path_factory, case_text)
    return _BUILT["reports"]


def _build(tmp_path_factory, case_text):
    root = tmp_path_factory.mktemp("merge")
    (root / "cases").mkdir()
    (root / "cases" / "main.py").write_text(case_text(CASES))
    (root / "cases" / "more.py").write_text(case_text(MORE))
    (root / "cases" / "broken.py").write_text("x = (\n")  # a collection error every shard reports
    assert {shard_of(n, 2) for n in NAMES} == {1, 2}  # both shards hold cases
    common = [str(root / "cases"), "--mode", "pynative", "--color", "never"]
    codes = {"full": main(["compare", *common, "--report", str(root / "full")])}
    for i in (1, 2):
        codes[i] = main(["compare", *common, "--shard", f"{i}/2", "--report", str(root / f"shard{i}")])
    return root, codes


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_merged_shards_equal_the_unsharded_report(reports, capsys):
    root, codes = reports
    assert codes["full"] == EXIT_USAGE  # the broken file; every shard says so too
    assert main(["merge", str(root / "merged"), str(root / "shard1"), str(root / "shard2" / "summary.json")]) \
        == EXIT_UNEXPECTED  # dense_relu fails and there is a collection error
    assert "merged 2 report(s): 6 verdict(s), 1 collection error(s)" in capsys.readouterr().out
    full, merged = read_run(root / "full"), read_run(root / "merged")
    shards = [read_run(root / f"shard{i}") for i in (1, 2)]
    assert all(s.verdicts for s in shards) and len(merged.verdicts) == sum(len(s.verdicts) for s in shards)
    assert signature(merged) == signature(full)
    assert merged.errors == full.errors and len(merged.errors) == 1  # reported by both shards, kept once
    summary = json.loads((root / "merged" / "summary.json").read_text())
    assert summary["counts"] == json.loads((root / "full" / "summary.json").read_text())["counts"]
    assert summary["all_as_expected"] is False
    # Re-rendered through the report writer: the index and one page set per case, as an unsharded run writes.
    assert sorted(p.name for p in (root / "merged" / "cells").iterdir()) == \
        sorted(p.name for p in (root / "full" / "cells").iterdir())
    index = (root / "merged" / "index.html").read_text()
    assert all(f'href="cells/{name}.html' in index for name in NAMES)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_merged_order_is_stable(reports, capsys):
    root, _ = reports
    main(["merge", str(root / "a"), str(root / "shard1"), str(root / "shard2")])
    main(["merge", str(root / "b"), str(root / "shard2"), str(root / "shard1")])
    capsys.readouterr()
    assert [v.item for v in read_run(root / "a").verdicts] == [v.item for v in read_run(root / "b").verdicts]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_overlapping_reports_are_refused(reports, capsys):
    root, _ = reports
    assert main(["merge", str(root / "twice"), str(root / "shard1"), str(root / "full")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "the reports overlap" in err and not (root / "twice").exists()


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_an_unreadable_report_is_a_usage_error(reports, tmp_path, capsys):
    root, _ = reports
    assert main(["merge", str(tmp_path / "out"), str(root / "shard1"), str(tmp_path / "missing")]) == EXIT_USAGE
    assert "cannot merge" in capsys.readouterr().err


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_an_empty_shard_is_not_an_error(reports, tmp_path, capsys):
    root, _ = reports
    empty = next(i for i in range(1, 65) if all(shard_of(n, 64) != i for n in NAMES))
    code = main(["compare", str(root / "cases" / "main.py"), "--mode", "pynative", "--shard", f"{empty}/64",
                 "--report", str(tmp_path / "empty")])
    assert code == EXIT_OK and "holds no items" in capsys.readouterr().err
    assert main(["merge", str(tmp_path / "out"), str(root / "shard1"), str(tmp_path / "empty")]) in (EXIT_OK, EXIT_UNEXPECTED)
    assert len(read_run(tmp_path / "out").verdicts) == len(read_run(root / "shard1").verdicts)
