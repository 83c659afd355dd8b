"""No vacuous pass: empty tensors compare nothing, so they are an `empty` verdict unless the case says
allow_empty=True; a zero-size input dimension (uniform(2, 4, 0, 1): low/high are keyword-only) is a definition
error that says so; an infinite --atol/--rtol or Tolerance is refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from migcheck import PairedCase, Tolerance, uniform
from migcheck.case import case_problems

ENV = {**os.environ, "GLOG_v": "3", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

CASES = '''
from migcheck import PairedCase, uniform


def torch_empty():
    import torch

    class Empty(torch.nn.Module):
        def forward(self, x):
            return x[:, :0] * 2

    return Empty()


def ms_empty():
    import mindspore

    class Empty(mindspore.nn.Cell):
        def construct(self, x):
            return x[:, :0] * 2

    return Empty()


empty_out = PairedCase(torch=torch_empty, mindspore=ms_empty, inputs={"x": uniform(2, 3)}, checks=("forward",),
                       modes=("pynative",))
empty_ok = PairedCase(torch=torch_empty, mindspore=ms_empty, inputs={"x": uniform(2, 3)}, checks=("forward",),
                      modes=("pynative",), allow_empty=True)
'''


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_empty_outputs_are_an_empty_verdict_unless_allowed(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "e.py").write_text(CASES)
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "cases", "--mode", "pynative", "--report",
                             "report", "--color", "never"], cwd=tmp_path, capture_output=True, text=True, env=ENV,
                            timeout=240)
    assert result.returncode == 1, result.stdout + result.stderr
    data = json.loads((tmp_path / "report" / "summary.json").read_text())
    found = {v["case"]: (v["status"], v["kind"]) for v in data["verdicts"]}
    assert found == {"empty_out": ("fail", "empty"), "empty_ok": ("pass", None)}
    assert "FAIL   empty_out[forward-pynative-cpu]  out: empty on both sides (shape (2,0)), so nothing" in result.stdout


def _case(**kwargs):
    return PairedCase(torch=lambda: None, mindspore=lambda: None, checks=("forward",), **kwargs)


def test_positional_bounds_become_a_zero_dimension_and_are_refused_with_the_fix():
    [(problem, fix)] = case_problems(_case(inputs={"x": uniform(2, 4, 0, 1)}))
    assert problem == ("input 'x': shape (2, 4, 0, 1) has a zero-size dimension, so the input is empty and the"
                       " comparison would prove nothing")
    assert fix.startswith("low/high are keyword-only: write uniform(2, 4, low=0, high=1)")
    assert case_problems(_case(inputs={"x": uniform(2, 4, low=0, high=1)})) == []
    assert case_problems(_case(inputs={"x": uniform(2, 0)}, allow_empty=True)) == []


@pytest.mark.parametrize("value", ["inf", "nan", "-1"])
def test_non_finite_cli_tolerances_are_refused(value):
    result = subprocess.run([sys.executable, "-m", "migcheck.cli", "compare", "--atol", value, "nothing"],
                            capture_output=True, text=True, env=ENV)
    assert result.returncode == 2 and "argument --atol:" in result.stderr and "Traceback" not in result.stderr


def test_an_infinite_case_tolerance_is_a_definition_error():
    assert Tolerance(rtol=1e-5, atol=float("inf")).problems() == [
        "atol=inf is infinite: every value would pass; give a finite tolerance"]
