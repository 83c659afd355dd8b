"""The discovery cache (migcheck.planning.cache): a warm `migcheck list` imports no case file.

`migcheck list` runs as a subprocess here, as users run it: a case file imported once in this
process would stay in sys.modules and hide whether a second run imported it again. Each case file
appends a line to a marker file when it is imported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from migcheck.planning.discovery import discover
from migcheck.planning.cache import INDEX, DiscoveryCache, ListedCase
from migcheck.planning.items import plan

MARKED = '''
import os as _os
with open(_os.environ["MIGCHECK_TEST_MARKER"], "a") as _fh:
    _fh.write(__file__ + "\\n")
'''
FIRST = MARKED + '''
alpha = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=FORWARD, tags=("linear",))
beta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, modes=("pynative",), tags=("slow",))
'''
SECOND = MARKED + '''
from _helper_cases import WIDTH
gamma = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, WIDTH)}, optimizer="sgd")
'''
BROKEN = MARKED + '''
bad = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs={"x": uniform(4, -3)})
'''


@pytest.fixture
def project(tmp_path, write_case_file):
    write_case_file("cases/first.py", FIRST)
    write_case_file("cases/second.py", SECOND)
    (tmp_path / "cases" / "_helper_cases.py").write_text("WIDTH = 3\n")  # a helper module ('_': not a case file)
    return tmp_path


def run_list(project: Path, *argv: str):
    """`migcheck list` in a fresh process: (exit code, stdout, stderr, case files it imported)."""
    marker = project / "imported.txt"
    marker.write_text("")
    env = {**os.environ, "MIGCHECK_CACHE_DIR": str(project / "cache"), "MIGCHECK_TEST_MARKER": str(marker),
           "PYTHONPATH": os.pathsep.join([str(project / "cases"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "migcheck.cli", "list", str(project / "cases"), *argv],
                          capture_output=True, text=True, env=env, cwd=project)
    # Each file's module code runs twice when imported: in the crash probe's forked child, then for real.
    imported = {Path(line).name for line in marker.read_text().splitlines()}
    return proc.returncode, proc.stdout, proc.stderr, sorted(imported)


def test_a_warm_list_imports_nothing_and_prints_what_a_cold_one_does(project):
    cold = run_list(project)
    assert cold[0] == 0 and cold[3] == ["first.py", "second.py"]
    assert (project / "cache" / INDEX).is_file()
    warm = run_list(project)
    assert warm[3] == []  # answered from the cache
    assert warm[:3] == cold[:3]
    uncached = run_list(project, "--no-cache")
    assert uncached[3] == ["first.py", "second.py"] and uncached[:3] == cold[:3]
    assert "gamma[step-graph-cpu]" in cold[1]  # effective checks: step comes with the optimizer


@pytest.mark.parametrize("argv", [("-k", "linear or step"), ("--check", "forward", "--mode", "graph"),
                                  ("--shard", "2/2"), ("-k", "slow and pynative")])
def test_selections_from_the_cache_match_cold_runs(project, argv):
    cold = run_list(project, "--no-cache", *argv)
    run_list(project)  # fills the cache
    warm = run_list(project, *argv)
    assert warm[3] == [] and warm[:3] == cold[:3]


def test_a_changed_file_is_imported_again_even_with_the_same_size_and_mtime(project):
    run_list(project)
    first = project / "cases" / "first.py"
    stat = first.stat()
    first.write_text(first.read_text().replace('tags=("linear",)', 'tags=("lineal",)'))  # same size
    os.utime(first, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime: only the sha256 tells
    code, out, _, imported = run_list(project, "-k", "lineal")
    assert imported == ["first.py"]  # the unchanged file still comes from the cache
    assert code == 0 and out.splitlines() == ["alpha[forward-pynative-cpu]", "alpha[forward-graph-cpu]"]
    assert run_list(project, "-k", "lineal")[3] == []  # and the new entry is used from then on


def test_a_changed_helper_module_drops_the_whole_index(project):
    run_list(project)
    (project / "cases" / "_helper_cases.py").write_text("WIDTH = 5\n")
    assert run_list(project)[3] == ["first.py", "second.py"]


def test_new_and_deleted_files_are_noticed(project, write_case_file):
    run_list(project)
    write_case_file("cases/third.py", MARKED + "delta = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X)\n")
    code, out, _, imported = run_list(project)
    assert imported == ["third.py"] and "delta[train-graph-cpu]" in out
    (project / "cases" / "third.py").unlink()
    code, out, _, imported = run_list(project)
    assert imported == [] and "delta" not in out
    index = json.loads((project / "cache" / INDEX).read_text())
    assert not any(key.endswith("third.py") for key in index["files"])


def test_files_with_problems_are_never_cached(project, write_case_file):
    write_case_file("cases/broken.py", BROKEN)
    cold = run_list(project)
    assert cold[0] == 2 and "broken.py::bad" in cold[2]
    warm = run_list(project)
    assert warm[3] == ["broken.py"] and warm[:3] == cold[:3]  # its error is reported afresh, every time


def test_a_corrupt_or_foreign_index_is_ignored_and_rewritten(project):
    cold = run_list(project)
    index = project / "cache" / INDEX
    index.write_text("{not json")
    assert run_list(project)[3] == ["first.py", "second.py"]
    data = json.loads(index.read_text())  # rewritten whole
    data["version"] = -1
    index.write_text(json.dumps(data))
    again = run_list(project)
    assert again[3] == ["first.py", "second.py"] and again[:3] == cold[:3]
    assert not [p for p in index.parent.iterdir() if p.name.endswith(".tmp")]  # atomic writes leave no debris


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_only_list_uses_the_cache(project, tmp_path):
    run_list(project)
    marker = project / "imported.txt"
    marker.write_text("")
    env = {**os.environ, "MIGCHECK_CACHE_DIR": str(project / "cache"), "MIGCHECK_TEST_MARKER": str(marker),
           "PYTHONPATH": str(project / "cases")}
    subprocess.run([sys.executable, "-m", "migcheck.cli", "map", "alpha", str(project / "cases" / "first.py")],
                   capture_output=True, text=True, env=env, cwd=project, check=True)
    assert {Path(p).name for p in marker.read_text().splitlines()} == {"first.py"}  # probe child + parent


def test_listed_cases_plan_like_the_real_ones(project, monkeypatch):
    monkeypatch.syspath_prepend(str(project / "cases"))
    monkeypatch.setenv("MIGCHECK_TEST_MARKER", str(project / "imported.txt"))
    options = type("Options", (), {"checks": None, "modes": ("pynative", "graph"), "backends": ("cpu",)})
    real = discover([str(project / "cases")])
    cache = DiscoveryCache(project / "in-process-cache")
    discover([str(project / "cases")], load=cache.load)
    cache.save()
    warm = DiscoveryCache(project / "in-process-cache")
    listed = discover([str(project / "cases")], load=warm.load)
    sys.modules.pop("_helper_cases", None)  # imported from this test's folder: leave no trace for others
    assert warm.hits == 2 and warm.misses == 0
    assert all(isinstance(c, ListedCase) for c in listed.cases)
    assert [(i.id, i.case.tags) for i in plan(listed.cases, options)] == \
        [(i.id, i.case.tags) for i in plan(real.cases, options)]
