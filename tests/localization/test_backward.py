"""The isolated backward pass: a gradient defect with agreeing forward values is pinned to the sub-cell whose
own backward differs (fed torch's input and output gradient), not to where the wrong gradient arrives."""
from pathlib import Path

import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.discovery import load_file
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
CASES = Path(__file__).resolve().parents[2] / "cases" / "backward.py"
ms = pytest.importorskip("mindspore")
torch = pytest.importorskip("torch")


def _bundled(name, mode="pynative"):
    case = next(c for c in load_file(CASES).cases if c.name == name)
    return run_item(Item(case, "backward", mode, "cpu"))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_wrong_bprop_is_pinned_to_its_sub_cell(mode):
    v = _bundled("custom_bprop_scaled", mode)
    loc = v.localization
    assert v.status == "xfail" and (loc.first_divergence, loc.first_divergence_ms) == ("act", "act")
    (defect,) = loc.defects
    assert defect.rule == "custom-bprop" and "defines its own bprop" in defect.cause and "times 0.5" in defect.cause
    assert not defect.confirmed and defect.confidence == "medium" and not defect.fix  # located by re-run, cause read
    assert loc.summary.startswith("first divergence in backward: torch 'act' (Tanh) / MindSpore 'act' (TanhWithBprop)")


def test_the_correct_bprop_passes():
    v = _bundled("custom_bprop")
    assert v.status == "pass" and v.localization is None


class _SquareMs(ms.nn.Cell):
    """x * x with a bprop that forgot the factor 2: a network with no sub-cells at all."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * x,)


def _torch_square():
    import torch

    class Square(torch.nn.Module):
        def forward(self, x):
            return x * x

    return Square()


def test_a_network_without_sub_cells_is_its_own_backward_defect():
    case = PairedCase(name="square", torch=_torch_square, mindspore=_SquareMs, inputs={"x": uniform(3, 4)},
                      checks=("backward",))
    loc = run_item(Item(case, "backward", "pynative", "cpu")).localization
    (defect,) = loc.defects
    assert (defect.torch_name, defect.ms_name, defect.rule) == ("", "", "custom-bprop")
    assert "times 0.5" in defect.cause



# rows 0 and 2 sum to the margin exactly: the hinge's kink, where torch's clamp_min passes the whole gradient
_SUMS = np.array([[0.25, 0.75], [2.0, 1.0], [0.5, 0.5], [0.1, 0.2]], np.float32)
_LABELS = np.array([-1.0, 1.0, -1.0, -1.0], np.float32)  # ±1 labels: a float input MindSpore cannot differentiate


def _hinge_case(port_loss):
    import torch

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.criterion = torch.nn.HingeEmbeddingLoss(margin=1.0)
            self.labels = torch.from_numpy(_LABELS)

        def forward(self, x):
            return self.criterion(x.sum(-1), self.labels)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.criterion = port_loss()
            self.labels = ms.Tensor(_LABELS)

        def construct(self, x):
            return self.criterion(x.sum(-1), self.labels)

    case = PairedCase(name="hinge", torch=T, mindspore=M, inputs={"x": given(_SUMS)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


class _HingeAsTorch(ms.nn.Cell):  # torch's formula: clamp_min passes the gradient at the margin
    def construct(self, d, labels):
        return ms.ops.where(labels == 1, d, ms.ops.clamp(1.0 - d, min=0.0)).mean()


def test_a_losss_gradient_at_its_margin_is_placed_by_the_isolated_backward_with_labels_held_fixed():
    v = _hinge_case(lambda: ms.nn.HingeEmbeddingLoss(margin=1.0))
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert (d.torch_name, d.ms_name, d.confidence, d.confirmed) == ("criterion", "criterion", "high", True)
    assert "differs from torch's HingeEmbeddingLoss where input == 1 (its margin argument)" in d.cause, d.cause
    assert "at input 1 (2 elements)" in d.cause and d.fix == ""


def test_the_hinge_computed_as_torch_does_passes():
    assert _hinge_case(_HingeAsTorch).status == "pass"


class _Distill(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.student = torch.nn.Linear(4, 3)
        self.teacher = torch.nn.Linear(4, 3)  # trained too: the loss's target carries a gradient
        self.kl = torch.nn.KLDivLoss(reduction="batchmean")

    def forward(self, x):
        return self.kl(torch.log_softmax(self.student(x), 1), torch.softmax(self.teacher(x), 1))


def _distill(written_out):
    class Distill(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.student = ms.nn.Dense(4, 3)
            self.teacher = ms.nn.Dense(4, 3)
            self.kl = ms.nn.KLDivLoss(reduction="batchmean")

        def construct(self, x):
            logp, q = ms.ops.log_softmax(self.student(x), 1), ms.ops.softmax(self.teacher(x), 1)
            if written_out:
                return (q * (ms.ops.log(q) - logp)).sum() / x.shape[0]
            return self.kl(logp, q)
    return Distill


def _distill_run(written_out):
    case = PairedCase(name="distill", torch=_Distill, mindspore=_distill(written_out), inputs={"x": uniform(3, 4)},
                      checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_layer_that_passes_no_gradient_to_one_input_is_said_so_from_its_isolated_backward():
    (d,) = [d for d in _distill_run(False).localization.defects if d.torch_name == "kl"]
    assert (d.rule, d.confidence) == ("backward-cut", "high")
    assert d.cause.startswith("MindSpore's KLDivLoss passes no gradient to its target (input 1)"), d.cause


def test_the_loss_written_out_passes():
    assert _distill_run(True).status == "pass"


def _hinge(at_margin: bool):
    """A loss layer fed labels the port casts to float first (torch's takes them as int64): the isolated backward
    hands torch's labels over in the dtype the port's own call received."""
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(3))
            self.loss = torch.nn.HingeEmbeddingLoss(margin=2.0)

        def forward(self, x, y):
            return self.loss(x * self.scale, y)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = ms.Parameter(ms.ops.ones(3, ms.float32))
            self.loss = ms.nn.HingeEmbeddingLoss(margin=2.0)

        def construct(self, x, y):
            return self.loss(x * self.scale, y.astype(ms.float32))

    x = np.array([[2.0, 0.5, 2.0], [1.0, 2.0, 3.0]] if at_margin else [[1.5, 0.5, 1.0], [1.0, 2.5, 3.0]], np.float32)
    y = np.array([[-1, 1, -1], [-1, -1, 1]], np.int64)
    case = PairedCase(name="hinge", torch=T, mindspore=M, inputs={"x": given(x), "y": given(y)},
                      checks=("backward",), weights=1.0)  # scale stays 1: x reaches the margin exactly
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_loss_fed_labels_the_port_casts_is_run_backward_alone_and_its_margin_gradient_placed():
    v = _hinge(True)
    assert v.status == "fail" and v.localization.first_divergence == "loss"
    (defect,) = v.localization.defects
    assert defect.confirmed and "HingeEmbeddingLoss input gradient differs" in defect.cause
    assert "where input == 2 (its margin argument)" in defect.cause


def test_the_same_loss_off_its_margin_passes():
    assert _hinge(False).status == "pass"
