"""Robustness, non-finite numbers: real NaN and Inf out of real modules (torch.log of negative and zero
inputs), compared position by position in outputs, gradients and updated state; and inputs that would
be non-finite are refused when the case loads.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from migcheck.planning.discovery import load_file
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.report import write_report
from migcheck.report.jsonfile import read_run

pytestmark = pytest.mark.timeout(300)

X = np.array([[-1.0, 0.5, 2.0, 0.0],
              [1.0, -2.0, 3.0, 4.0],
              [0.25, 1.5, 0.0, 2.5]], dtype=np.float32)
NAN_AT = [(0, 0), (1, 1)]  # log(-1), log(-2)
INF_AT = [(0, 3), (2, 2)]  # log(0) = -inf, times the seeded weight: +-inf

CASES = '''
import numpy as np

from migcheck import PairedCase, Tolerance, given

X = np.array(%r, dtype=np.float32)


def torch_log_net():
    """y = log(x) * scale; in training it also stores the column means of y in a buffer."""
    import torch

    class LogNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(4))
            self.register_buffer("stat", torch.zeros(4))

        def forward(self, x):
            y = torch.log(x) * self.scale
            if self.training:
                with torch.no_grad():
                    self.stat.copy_(y.mean(0))
            return y

    return LogNet()


def _ms_log_net(clamp):
    import mindspore
    from mindspore import nn, ops

    class LogNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = mindspore.Parameter(ops.ones(4, mindspore.float32), name="scale")
            self.stat = mindspore.Parameter(ops.zeros(4, mindspore.float32), name="stat", requires_grad=False)

        def construct(self, x):
            if clamp:  # the "fix" a port might make: it hides the NaN/Inf torch produces
                x = ops.clamp(x, min=1e-6)
            y = ops.log(x) * self.scale
            if self.training:
                ops.assign(self.stat, ops.stop_gradient(y.mean(0)))
            return y

    return LogNet()


def ms_clamped():
    return _ms_log_net(True)


def ms_faithful():
    return _ms_log_net(False)


clamped = PairedCase(torch=torch_log_net, mindspore=ms_clamped, inputs={"x": given(X)})
faithful = PairedCase(torch=torch_log_net, mindspore=ms_faithful, inputs={"x": given(X)})
faithful_equal_nan = PairedCase(torch=torch_log_net, mindspore=ms_faithful, inputs={"x": given(X)},
                                tolerance=Tolerance(rtol=1.3e-6, atol=1e-5, equal_nan=True))
''' % (X.tolist(),)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    path = tmp_path_factory.mktemp("nonfinite") / "cases" / "log_ports.py"
    path.parent.mkdir()
    path.write_text(CASES)
    loaded = load_file(path)
    assert loaded.errors == ()
    options = RunOptions(modes=("pynative",))
    return {(c.name, check): run_item(Item(c, check, "pynative", "cpu"), options)
            for c in loaded.cases for check in ("forward", "backward", "train")}


def _tensor(verdict, name):
    return next(t for t in verdict.tensors if t.name == name)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_port_that_clamps_away_torchs_nan_and_inf_fails_at_exactly_those_positions(verdicts):
    forward = verdicts[("clamped", "forward")]
    assert (forward.status, forward.kind) == ("fail", "nonfinite")
    out = _tensor(forward, "out")
    # 2 NaN and 2 infinities in torch's output, finite in the port's: 4 mismatches, no more (the finite
    # positions agree), and the first named is the first non-finite position in row-major order.
    assert (out.kind, out.mismatched, out.total) == ("nonfinite", 4, 12)
    assert forward.message.startswith("non-finite mismatch in out: 4 position(s) where NaN/Inf differ, first at"
                                      " (0, 0) (torch nan, mindspore ")
    assert [s.index for s in out.first_mismatches] == sorted(NAN_AT + INF_AT)
    assert [math.isnan(s.torch) for s in out.first_mismatches] == [i in NAN_AT for i in sorted(NAN_AT + INF_AT)]
    assert all(math.isinf(s.torch) for s in out.first_mismatches if s.index in INF_AT)
    assert all(math.isfinite(s.mindspore) for s in out.first_mismatches)
    # Finite positions are compared by value as usual: tiny errors, finite metrics.
    assert math.isfinite(out.max_abs_err) and out.max_abs_err < 1e-5 and math.isfinite(out.mean_abs_err)
    assert out.error_sample.nonfinite == 4 and out.error_sample.zero + sum(out.error_sample.hist_counts) == 8
    assert sorted(out.error_sample.map_nonfinite) == sorted(NAN_AT + INF_AT)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_gradients_carry_the_nan_and_inf_and_are_compared_position_by_position(verdicts):
    backward = verdicts[("clamped", "backward")]
    assert (backward.status, backward.kind) == ("fail", "nonfinite")
    grad_x = _tensor(backward, "grad.input.x")
    # d log(x)/dx = 1/x: +-inf at x = 0 in torch, 0 behind the port's clamp (2 non-finite mismatches);
    # at x < 0 torch's gradient is finite (1/x) and the clamp's is 0 (2 value mismatches).
    assert (grad_x.kind, grad_x.mismatched) == ("nonfinite", 4)
    assert grad_x.error_sample.nonfinite == 2
    assert {s.index for s in grad_x.first_mismatches} == set(NAN_AT + INF_AT)
    assert {s.index for s in grad_x.first_mismatches if not math.isfinite(s.torch)} == set(INF_AT)
    grad_scale = _tensor(backward, "grad.param.scale")
    # Each column of d/dscale sums log(x) over the batch: NaN or Inf in torch for every column here.
    assert (grad_scale.kind, grad_scale.mismatched, grad_scale.total) == ("nonfinite", 4, 4)
    assert not any(math.isfinite(s.torch) for s in grad_scale.first_mismatches)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_updated_state_carries_the_nan_and_inf(verdicts):
    train = verdicts[("clamped", "train")]
    assert (train.status, train.kind) == ("fail", "nonfinite")
    stat = _tensor(train, "state.stat")  # the column means torch's forward stored in its buffer
    # Columns 0 and 1 hold a NaN, columns 2 and 3 an infinity: every mean is non-finite in torch.
    assert (stat.kind, stat.mismatched, stat.total) == ("nonfinite", 4, 4)
    assert [(s.index, math.isnan(s.torch), math.isinf(s.torch)) for s in stat.first_mismatches] == [
        ((0,), True, False), ((1,), True, False), ((2,), False, True), ((3,), False, True)]
    assert all(math.isfinite(s.mindspore) for s in stat.first_mismatches)
    assert _tensor(train, "out").mismatched == 4  # and the output, as in forward


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_identical_nan_and_inf_agree_only_with_equal_nan(verdicts):
    # The faithful port produces NaN and -inf at the same positions. Infinities match when identical;
    # NaN matches NaN only with equal_nan=True.
    for check in ("forward", "backward", "train"):
        assert verdicts[("faithful_equal_nan", check)].status == "pass", verdicts[("faithful_equal_nan", check)].message
    strict = verdicts[("faithful", "forward")]
    out = _tensor(strict, "out")
    assert (strict.status, out.kind, out.mismatched) == ("fail", "nonfinite", 2)
    assert [s.index for s in out.first_mismatches] == NAN_AT  # the NaN positions; the -inf ones agree
    assert out.error_sample.nonfinite == 2 and out.error_sample.zero >= 2


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_reports_of_non_finite_verdicts_are_strict_json_and_read_back(verdicts, tmp_path):
    chosen = [verdicts[("clamped", c)] for c in ("forward", "backward", "train")]
    write_report(tmp_path, chosen)

    def refuse(token):
        raise ValueError(f"non-standard JSON token {token}")

    for path in [tmp_path / "summary.json", *sorted((tmp_path / "cells").glob("*.json"))]:
        json.loads(path.read_text(), parse_constant=refuse)  # no bare NaN / Infinity anywhere
    back = read_run(tmp_path).verdicts
    out = _tensor(back[0], "out")
    assert out.kind == "nonfinite" and any(math.isnan(s.torch) for s in out.first_mismatches)
    assert [(v.item, v.status, v.kind) for v in back] == [(v.item, v.status, v.kind) for v in chosen]


@pytest.mark.parametrize("spec, problem", [
    ("given([1.0, float('nan')])", "given values hold 1 NaN/Inf value(s), first at index (1,); inputs must be finite"),
    ("given(np.array([[0.0, np.inf], [-np.inf, 1.0]]))", "given values hold 2 NaN/Inf value(s), first at index (0, 1)"),
    ("uniform(2, 3, low=-math.inf)", "low=-inf is not finite; inputs must be finite numbers"),
    ("uniform(2, 3, high=math.nan)", "high=nan is not finite"),
    ("normal(2, 3, std=math.inf)", "std=inf is not finite"),
    ("uniform(2, 3, low=-1e5, high=1e5, dtype='float16')", "uniform range [-100000.0, 100000.0) overflows float16"),
    ("uniform(2, 3, low=-1e308, high=1e308, dtype='float64')", "uniform range [-1e+308, 1e+308) overflows float64"),
])
def test_inputs_that_would_be_non_finite_are_refused_when_the_case_loads(tmp_path, spec, problem):
    path = tmp_path / "cases" / "inputs.py"
    path.parent.mkdir()
    path.write_text(f'''
import math
import numpy as np
from migcheck import PairedCase, given, normal, uniform

ok = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={{"x": uniform(2, 3)}})
bad = PairedCase(torch=lambda: None, mindspore=lambda: None, inputs={{"x": {spec}}})
''')
    loaded = load_file(path)
    assert [c.name for c in loaded.cases] == ["ok"]
    [error] = loaded.errors
    assert error.case == "bad" and error.problem.startswith(f"input 'x': {problem}"), error.problem
    assert error.problem.endswith("(fix: correct the input spec)")
