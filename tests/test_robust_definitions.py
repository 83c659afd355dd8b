"""Robustness, bad case definitions: broken files and cases on disk become errors that name the file, the
case and the fix; every other case still runs, and the run's exit code says something was wrong.

One CLI run (in-process) over a folder holding every kind of bad definition next to good cases, and
one pytest run (pytester, a subprocess) over the same files.
"""
from __future__ import annotations

import json
import re

import pytest

from migcheck.cli import EXIT_USAGE, main

pytestmark = pytest.mark.timeout(300)

# Factories import the frameworks lazily: loading these files is cheap.
HEADER = '''
import math

import numpy as np

from migcheck import PairedCase, Tolerance, given, uniform


def torch_linear():
    import torch
    return torch.nn.Linear(3, 2)


def ms_dense():
    import mindspore
    return mindspore.nn.Dense(3, 2)


def torch_raises():
    raise ValueError("no layer called 'Conv7d'")


def ms_raises():
    import mindspore
    return mindspore.nn.Dense(3, 2, activation="no-such-activation")


X = {"x": uniform(4, 3)}
F = ("forward",)
'''

# name -> (definition, what the error must say). Each is a case whose definition is wrong.
BAD_DEFINITIONS = {
    "negative_shape": ('inputs={"x": uniform(4, -3)}', "input 'x': shape (4, -3) must be a tuple of non-negative integers"
                       " (fix: correct the input spec)"),
    "unknown_dtype": ('inputs={"x": uniform(4, 3, dtype="float8")}', "input 'x': unknown dtype 'float8'; use one of"),
    "low_above_high": ('inputs={"x": uniform(4, 3, low=1.0, high=-1.0)}',
                       "input 'x': low (1.0) must be below high (-1.0) (fix: correct the input spec)"),
    "nan_given": ('inputs={"x": given(np.array([[1.0, np.nan, 2.0]], np.float32))}',
                  "input 'x': given values hold 1 NaN/Inf value(s), first at index (0, 1); inputs must be finite"),
    "infinite_low": ('inputs={"x": uniform(4, 3, low=-math.inf)}',
                     "input 'x': low=-inf is not finite; inputs must be finite numbers"),
    "text_low": ('inputs={"x": uniform(4, 3, low="0")}', "input 'x': low='0' is not a number; give an int or a float"),
    "tolerance_text": ('inputs=X, tolerance=Tolerance(rtol="1e-4", atol=1e-5)',
                       "tolerance: rtol='1e-4' is not a number; give a float such as 1e-5"
                       " (fix: use migcheck.Tolerance(rtol=..., atol=...))"),
    "tolerance_float": ("inputs=X, tolerance=0.1", "tolerance is 0.1 (fix: use migcheck.Tolerance(rtol=..., atol=...))"),
    "tolerances_not_a_dict": ("inputs=X, tolerances=5", "the case definition cannot be checked (AttributeError:"),
    "negative_timeout": ("inputs=X, timeout=-5", "timeout=-5 (fix: use a positive number of seconds"),
    "torch_not_callable": ('inputs=X, torch="Linear"', "'torch' is not callable (fix: pass a function or class"),
    "twin_a": ('inputs=X, name="twin"', None),  # the first 'twin' is fine...
    "twin_b": ('inputs=X, name="twin"', "duplicate case name, also defined in"),  # ...the second is not
    "numbered": ("inputs=X, name=5", "name=5 is not a string"),
}
# name -> (factories, what the error verdict's message must say). Definitions that load, then fail to run.
BAD_FACTORIES = {
    "torch_factory_raises": ("torch=torch_raises, mindspore=ms_dense",
                             "torch side raised ValueError: no layer called 'Conv7d'"),
    "ms_factory_raises": ("torch=torch_linear, mindspore=ms_raises", "mindspore side raised"),
    "torch_returns_none": ("torch=lambda: None, mindspore=ms_dense",
                           "torch side raised TorchSideError: the torch factory returned NoneType, not a torch.nn.Module"),
    "ms_returns_torch_module": ("torch=torch_linear, mindspore=torch_linear",
                                "mindspore side raised MindSporeSideError: the mindspore factory returned Linear,"
                                " not a mindspore.nn.Cell"),
}
BROKEN_FILES = {
    "b_syntax.py": ("ok = 1\nbroken = PairedCase(\n", "syntax error at line 2: "),
    "c_imports.py": ("import not_a_module_for_migcheck_tests\n",
                     "importing it raised ModuleNotFoundError: No module named 'not_a_module_for_migcheck_tests' (line 1)"),
    "d_exits.py": ("import sys\n\nsys.exit(3)\n", "importing it raised SystemExit: 3 (line 3); fix the case file"),
    "e_raises.py": ("x = 1\nraise RuntimeError('half-written case file')\n",
                    "importing it raised RuntimeError: half-written case file (line 2); fix the case file"),
}


def _case_files(folder):
    folder.mkdir(parents=True, exist_ok=True)
    body = [HEADER, 'dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense, inputs=X, checks=F)']
    body += [f"{name} = PairedCase({'' if 'torch=' in definition else 'torch=torch_linear, '}mindspore=ms_dense,"
             f" checks=F, {definition})" for name, (definition, _) in BAD_DEFINITIONS.items()]
    body += [f"{name} = PairedCase({factories}, inputs=X, checks=F)" for name, (factories, _) in BAD_FACTORIES.items()]
    (folder / "a_cases.py").write_text("\n".join(body) + "\n")
    for name, (text, _) in BROKEN_FILES.items():
        (folder / name).write_text(text)
    # The same variable name in another file: a duplicate across files.
    (folder / "f_duplicate.py").write_text(HEADER + "dense_ok = PairedCase(torch=torch_linear, mindspore=ms_dense,"
                                                    " inputs=X, checks=F)\n")
    (folder / "g_good.py").write_text(HEADER + "other_ok = PairedCase(torch=torch_linear, mindspore=ms_dense,"
                                               " inputs=X, checks=F)\n")
    return folder


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_every_bad_definition_is_an_error_naming_file_case_and_fix_and_the_rest_runs(tmp_path, capsys):
    cases = _case_files(tmp_path / "cases")
    report = tmp_path / "report"
    code = main(["compare", "-v", str(cases), "--mode", "pynative", "--report", str(report), "--color", "never"])
    out = capsys.readouterr().out
    assert code == EXIT_USAGE  # collection errors: non-zero, and distinct from a mere failing port

    # The good cases ran and passed, in both files.
    assert re.search(r"^PASS +dense_ok\[forward-pynative-cpu\]  1 tensor\(s\) agree", out, re.M)
    assert re.search(r"^PASS +other_ok\[forward-pynative-cpu\]", out, re.M)

    # Every broken file: one error naming the file and what is wrong with it.
    errors = [line[len("ERROR  "):] for line in out.splitlines() if line.startswith(f"ERROR  {cases}")]
    for name, (_, problem) in BROKEN_FILES.items():
        assert any(e.startswith(f"{cases / name}: {problem}") for e in errors), (name, errors)
    # Every bad definition: an error naming file::case, the problem, and the fix.
    for name, (_, problem) in BAD_DEFINITIONS.items():
        if problem is None:
            continue
        shown = "twin" if name == "twin_b" else name
        assert any(e.startswith(f"{cases / 'a_cases.py'}::{shown}: {problem}") for e in errors), (name, errors)
    assert any(e.startswith(f"{cases / 'f_duplicate.py'}::dense_ok: duplicate case name, also defined in"
                            f" {cases / 'a_cases.py'}; give one of them another name") for e in errors)
    n_bad_definitions = sum(p is not None for _, p in BAD_DEFINITIONS.values()) + 1  # + the cross-file duplicate
    assert len(errors) == len(BROKEN_FILES) + n_bad_definitions

    # Factories that raise or return the wrong type: error verdicts for those items only.
    for name, (_, message) in BAD_FACTORIES.items():
        line = next(ln for ln in out.splitlines() if ln.startswith(f"ERROR  {name}[forward-pynative-cpu]"))
        assert message in line, line
    # The error excerpt points into the case file, at the factory that raised.
    assert re.search(rf"{re.escape(str((cases / 'a_cases.py').resolve()))}:\d+ in torch_raises:"
                     r" raise ValueError", out)
    assert f"file: {(cases / 'a_cases.py').resolve()}" in out

    # The report holds the same: every verdict that ran, every collection error.
    data = json.loads((report / "summary.json").read_text())
    statuses = {v["item"]: v["status"] for v in data["verdicts"]}
    assert statuses == {"dense_ok[forward-pynative-cpu]": "pass", "other_ok[forward-pynative-cpu]": "pass",
                        **{f"{name}[forward-pynative-cpu]": "error" for name in BAD_FACTORIES},
                        "twin[forward-pynative-cpu]": "pass"}
    assert len(data["collection_errors"]) == len(errors) and data["all_as_expected"] is False
    index = (report / "index.html").read_text()
    assert "Collection errors" in index and "d_exits.py" in index


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_bad_definitions_under_pytest_are_per_file_collection_errors_and_failing_items(pytester):
    _case_files(pytester.path / "cases")
    result = pytester.runpytest_subprocess("-p", "migcheck.pytest_plugin", "--migcheck-mode", "pynative", "-rA",
                                           "--continue-on-collection-errors", "-p", "no:cacheprovider")
    outcomes = {}
    for line in result.outlines:
        m = re.match(r"^(PASSED|FAILED|ERROR) (\S+)", line)
        if m:
            outcomes[m.group(2)] = m.group(1)
    # A file that cannot load is a collection error of that file alone.
    for name in BROKEN_FILES:
        assert outcomes.pop(f"cases/{name}") == "ERROR"
    # A bad case fails alone, as <case>[definition]; a case that cannot run is an error of its item
    # (error verdicts are raised in the item's setup: pytest and JUnit count them as errors).
    for name, (_, problem) in BAD_DEFINITIONS.items():
        if problem is not None:
            shown = "twin" if name == "twin_b" else name
            assert outcomes.pop(f"cases/a_cases.py::{shown}[definition]") == "FAILED", name
    for name in BAD_FACTORIES:
        assert outcomes.pop(f"cases/a_cases.py::{name}[forward-pynative-cpu]") == "ERROR", name
    # Everything else ran and passed (a duplicate across files is fine for pytest: node ids differ).
    assert outcomes == {"cases/a_cases.py::dense_ok[forward-pynative-cpu]": "PASSED",
                        "cases/a_cases.py::twin[forward-pynative-cpu]": "PASSED",
                        "cases/f_duplicate.py::dense_ok[forward-pynative-cpu]": "PASSED",
                        "cases/g_good.py::other_ok[forward-pynative-cpu]": "PASSED"}
    text = result.stdout.str()
    # pytest's ERRORS section (collection, and items raised in setup) comes before its FAILURES.
    result.stdout.fnmatch_lines(["*importing it raised SystemExit: 3 (line 3); fix the case file*",
                                 "ERROR: torch side raised ValueError: no layer called 'Conv7d'*",
                                 "bad case definition: input 'x': given values hold 1 NaN/Inf value(s)*"])
    # Failures read as diffs and problems, never as tracebacks into migcheck.
    assert "Traceback" not in text and "migcheck/running/pipeline.py" not in text and "migcheck/planning/discovery.py" not in text
