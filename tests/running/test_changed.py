"""`--changed` (issue 26): only the items whose case, factories' source or files, options or framework versions
changed since the last report run again; the rest keep that report's verdicts, marked reused everywhere.
Real frameworks, two tiny Dense cases in PYNATIVE; one factory lives in a helper file of its own."""
from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest

from migcheck.cli import EXIT_OK, main
from migcheck.report.jsonfile import read_run
from migcheck.running import changed

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

CASES = textwrap.dedent('''
    from migcheck import PairedCase, uniform
    from changed_helper import ms_other


    def torch_dense():
        import torch.nn as nn
        return nn.Linear(3, 2)


    def ms_dense():
        import mindspore.nn as mnn
        return mnn.Dense(3, 2)


    dense = PairedCase(torch=torch_dense, mindspore=ms_dense, inputs={"x": uniform(2, 3)}, checks=("forward",))
    other = PairedCase(torch=torch_dense, mindspore=ms_other, inputs={"x": uniform(4, 3)}, checks=("forward",))
''')
HELPER = textwrap.dedent('''
    def ms_other():
        import mindspore.nn as mnn
        return mnn.Dense(3, 2, has_bias={bias})
''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "changed_cases.py").write_text(CASES)
    (tmp_path / "changed_helper.py").write_text(HELPER.format(bias=True))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("MIGCHECK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("changed_helper", None)


def compare(*extra):
    return main(["compare", "changed_cases.py", "--mode", "pynative", "--report", "rep", "-v", *extra])


def reused(report="rep"):
    return {v.case: v.reused_from for v in read_run(report).verdicts}


def test_nothing_changed_reuses_every_verdict_and_says_so(project, capsys):
    assert compare() == EXIT_OK  # a plain run: its verdicts carry their fingerprints
    first = {v.item: v for v in read_run("rep").verdicts}
    assert all(v.fingerprint and v.computed and not v.reused_from for v in first.values())
    capsys.readouterr()
    assert compare("--changed") == EXIT_OK
    out = capsys.readouterr().out
    assert "--changed: 2 of 2 item(s) reused from rep" in out
    assert f"[reused from rep, unchanged since {first['dense[forward-pynative-cpu]'].computed}]" in out
    assert "(2 of 2 reused from rep) ==" in out
    assert re.search(r"report: rep/index.html \(\d+ kB\)$", out.strip())  # the size line: kB or MB
    assert re.search(r"^report size: \d+ kB: cell pages \d+ kB, ", out, re.M)  # by kind with -v
    summary = json.loads((project / "rep" / "summary.json").read_text())
    assert summary["reused"] == 2 and summary["counts"]["pass"] == 2
    again = {v.item: v for v in read_run("rep").verdicts}
    assert all(again[i].tensors == first[i].tensors and again[i].computed == first[i].computed for i in first)
    assert "Not re-run (--changed):</b> reused from rep, unchanged since" in (project / "rep" / "cells" / "dense.html").read_text()
    assert "2 of 2 verdict(s) not re-run" in (project / "rep" / "index.html").read_text()


def test_an_edited_factory_file_reruns_only_its_case(project, capsys):
    assert compare() == EXIT_OK
    before = {v.case: v.fingerprint for v in read_run("rep").verdicts}
    (project / "changed_helper.py").write_text(HELPER.format(bias=False))  # the port loses its bias
    assert compare("--changed") == EXIT_OK  # (in this one process the imported helper stays the old one)
    assert reused() == {"dense": "rep", "other": ""}
    after = {v.case: v.fingerprint for v in read_run("rep").verdicts}
    assert after["dense"] == before["dense"] and after["other"] != before["other"]
    # run again with --changed: the re-run verdict is now the one reused, nothing changed since
    assert compare("--changed") == EXIT_OK and reused() == {"dense": "rep", "other": "rep"}


def test_other_options_or_an_edited_case_file_rerun(project):
    assert compare() == EXIT_OK
    assert compare("--changed", "--atol", "1e-3") == EXIT_OK and reused() == {"dense": "", "other": ""}
    assert compare("--changed", "--atol", "1e-3") == EXIT_OK and reused() == {"dense": "rep", "other": "rep"}
    (project / "changed_cases.py").write_text(CASES + "\n# an edit anywhere in the case file\n")
    assert compare("--changed", "--atol", "1e-3") == EXIT_OK and reused() == {"dense": "", "other": ""}


def test_without_a_last_report_everything_runs(project, capsys):
    assert compare("--changed") == EXIT_OK
    out = capsys.readouterr().out
    assert "--changed: no last report to reuse" in out and "running all 2 item(s)" in out
    assert reused() == {"dense": "", "other": ""}


def test_the_environment_names_the_framework_versions():
    from importlib import metadata

    env = changed.environment()
    assert f"torch {metadata.version('torch')}" in env and f"mindspore {metadata.version('mindspore')}" in env


def test_pytest_reuses_through_the_report_folder(pytester, monkeypatch):
    pytester.makepyfile(changed_cases=CASES, changed_helper=HELPER.format(bias=True))
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}:{':'.join(sys.path)}")
    first = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "changed_cases.py", "--migcheck-mode",
                                          "pynative", "--migcheck-report", "rep")
    first.assert_outcomes(passed=2)
    second = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "changed_cases.py", "--migcheck-mode",
                                           "pynative", "--migcheck-report", "rep", "--migcheck-changed")
    second.assert_outcomes(passed=2)
    second.stdout.fnmatch_lines(["*--migcheck-changed: 2 of 2 verdict(s) reused from rep*"])
    bare = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "changed_cases.py", "--migcheck-changed")
    bare.stderr.fnmatch_lines(["*--migcheck-changed reuses the verdicts of the last report*--migcheck-report DIR*"])
