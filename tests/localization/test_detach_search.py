"""A gradient-only difference from a missing stop_gradient (localization/detach_search.py): a straight-through
estimator ported without torch's .detach() computes the same forward, but lets gradient through the rounding
path. Each float argument of each call of the port's construct is handed over through ops.stop_gradient in turn,
and the container's gradients re-run on torch's recorded inputs and output gradient; the change with which they
agree is the confirmed cause. Its correct twin passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops

X = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)


def _run(ms_body, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 4)
            self.fc2 = torch.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc1(x)
            q = torch.round(h * 4) / 4
            return self.fc2(h + (q - h).detach())

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(4, 4)
            self.fc2 = ms.nn.Dense(4, 3)

        def construct(self, x):
            h = self.fc1(x)
            q = ops.round(h * 4) / 4
            return self.fc2(ms_body(h, q))

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": given(X)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_straight_through_estimator_without_stop_gradient_is_found_by_detaching_one_argument():
    v = _run(lambda h, q: h + (q - h), "ste_missing")
    assert v.status == "fail"
    (d,) = [d for d in v.localization.defects if d.confirmed]
    assert d.rule == "missing-stop-gradient" and d.confidence == "high"
    assert "the port's 'Tensor.__add__' takes its right operand with its gradient" in d.cause
    assert "the op sits after 'fc1' output" in d.cause
    assert d.fix == "wrap its right operand of 'Tensor.__add__' in ops.stop_gradient(...) in construct"
    assert d.search_tried and d.search_s >= 0


def test_the_stop_gradient_twin_passes():
    assert _run(lambda h, q: h + ops.stop_gradient(q - h), "ste_ok").status == "pass"


P = np.array([[[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]], np.float32)  # 3 points: each pair with itself is at distance 0


def _pairwise(ms_norm, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(1, 1)

        def forward(self, p):
            diff = p[:, :, None, :] - p[:, None, :, :]
            norm = torch.sqrt((diff ** 2).sum(-1, keepdim=True)).detach() + 1.0  # no gradient through sqrt at 0
            return p + (diff / norm * self.fc(norm)).mean(2)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(1, 1)

        def construct(self, p):
            diff = p[:, :, None, :] - p[:, None, :, :]
            norm = ms_norm(ops.sqrt((diff ** 2).sum(-1, keepdims=True))) + 1.0
            return p + (diff / norm * self.fc(norm)).mean(2)

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"p": given(P)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def _kept(x):
    return x


def test_a_detach_behind_a_nan_gradient_is_found_rather_than_the_nan_origin_alone():
    v = _pairwise(_kept, "norm_kept")  # sqrt's gradient at 0 is inf in the port: NaN after it
    assert v.status == "fail"
    (d,) = [d for d in v.localization.defects if d.confirmed]
    assert d.rule == "missing-stop-gradient"
    assert d.fix.startswith("wrap its ") and "in ops.stop_gradient(...) in construct" in d.fix


def test_the_detached_norm_twin_passes():
    assert _pairwise(ops.stop_gradient, "norm_detached").status == "pass"


def _offsets(stop, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.coord = torch.nn.Linear(4, 4)

        def forward(self, x):
            c = 4.0 * self.coord(x)
            return c - c.long().float()  # the integer cast passes no gradient in torch

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.coord = ms.nn.Dense(4, 4)

        def construct(self, x):
            c = 4.0 * self.coord(x)
            cell = stop(c.astype(ms.int64))
            return c - cell.astype(ms.float32)

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": given(X)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_gradient_through_an_integer_cast_is_named_as_the_cast():
    v = _offsets(_kept, "cast_kept")
    (d,) = [d for d in v.localization.defects if d.confirmed]
    assert d.rule == "missing-stop-gradient"
    assert "it is computed through an integer cast ('Tensor.astype' of an int64 tensor)" in d.cause, d.cause


def test_the_stopped_cast_twin_passes():
    assert _offsets(ops.stop_gradient, "cast_stopped").status == "pass"


def _nan_floor(keeps_nan: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 5)
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x):
            r = torch.log(self.enc(x))  # NaN where the pre-activation is negative
            return self.head(torch.nan_to_num(torch.maximum(r, torch.full_like(r, -2.0)), nan=-2.0))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = ms.nn.Dense(4, 5)
            self.head = ms.nn.Dense(5, 2)

        def construct(self, x):
            r = ms.ops.log(self.enc(x))
            m = ms.ops.maximum(r, ms.ops.full_like(r, -2.0))
            if keeps_nan:
                m = ms.ops.where(ms.ops.isnan(r), r, m)
            return self.head(ms.ops.nan_to_num(m, nan=-2.0))

    case = PairedCase(name="nan_floor", torch=T, mindspore=M, inputs={"x": uniform(6, 4)},
                      checks=("forward", "backward"))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_an_op_fed_nan_whose_number_a_nan_to_num_hides_is_found_by_its_gradient_path():
    v = _nan_floor(False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.rule == "nan-gradient-path" and finding.confirmed
    assert "'maximum' is fed NaN and sends the gradient along another path" in finding.cause
    assert finding.fix.startswith("keep NaN as torch's maximum does")


def test_the_port_keeping_nan_has_torchs_gradients():
    assert _nan_floor(True).status == "pass"


def _distance(with_eps: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)
            self.dist = torch.nn.PairwiseDistance(p=2.0, eps=1e-6)

        def forward(self, a, b):
            return self.dist(self.fc(a), self.fc(b))

    class Dist(ms.nn.Cell):
        def construct(self, a, b):
            return ms.ops.norm(a - b + (1e-6 if with_eps else 0.0), dim=-1)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(3, 3)
            self.dist = Dist()

        def construct(self, a, b):
            return self.dist(self.fc(a), self.fc(b))

    a = np.random.default_rng(1).uniform(-1, 1, (4, 3)).astype(np.float32)
    b = a.copy()
    b[2:] += 0.5  # the first two pairs coincide: a zero difference, where the norm's gradient is NaN
    case = PairedCase(name="distance", torch=T, mindspore=M, inputs={"a": given(a), "b": given(b)},
                      checks=("forward", "backward"))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_norm_without_torchs_eps_is_found_by_adding_torchs_own_setting_in_the_backward_re_run():
    v = _distance(False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.rule == "eps-gradient-path" and finding.confirmed
    assert "computed without torch's eps=1e-06 ('dist' PairwiseDistance's eps)" in finding.cause


def test_the_norm_with_torchs_eps_passes():
    assert _distance(True).status == "pass"
