"""The torch-side replay reads settings off torch's own call (op_replay.own_settings): torch's F.interpolate with
antialias=True, replayed with antialias=False, reproduces a port whose ops.interpolate has no such argument. The
cause is confirmed on torch's side; no MindSpore call re-runs to agreement, so no fix is printed."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(size):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 2, 1)

        def forward(self, x):
            return torch.nn.functional.interpolate(self.conv(x), size=size, mode="bilinear", align_corners=False,
                                                   antialias=True)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 2, 1, has_bias=True)

        def construct(self, x):
            return ms.ops.interpolate(self.conv(x), size=size, mode="bilinear", align_corners=False)

    case = PairedCase(name="resize", torch=T, mindspore=M, inputs={"x": uniform(1, 2, 8, 8)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_torch_setting_the_port_cannot_pass_is_confirmed_by_the_replay_without_a_fix():
    v = _run((4, 4))  # downsampling: antialias filters first
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert d.confirmed and d.confidence == "high"
    assert "interpolate called with antialias=True in torch" in d.cause and "as with antialias=False in MindSpore" in d.cause
    assert d.fix == ""  # MindSpore's call has no antialias: nothing re-ran to agreement, nothing printed
    assert not any(f.fix_checked for f in v.localization.findings)


def test_upsampling_where_antialias_changes_nothing_passes():
    assert _run((12, 12)).status == "pass"


def _loss(beta):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x, y):
            return torch.nn.functional.smooth_l1_loss(self.fc(x), y, beta=0.5)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.loss = ms.nn.SmoothL1Loss(beta=beta, reduction="mean")

        def construct(self, x, y):
            return self.loss(self.fc(x), y)

    case = PairedCase(name="l1", torch=T, mindspore=M, inputs={"x": uniform(3, 4), "y": uniform(3, 4)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_replayed_setting_is_tried_on_the_ports_layer_that_computes_the_op_and_then_printed():
    v = _loss(1.0)
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert "smooth_l1_loss called with beta=0.5 in torch" in d.cause
    assert d.fix.startswith("nn.SmoothL1Loss(..., beta=0.5) for 'loss' (re-run: the port's '<root>' with it agrees"), d.fix
    assert any(f.fix_checked for f in v.localization.findings)


def test_the_loss_given_torchs_beta_passes():
    assert _loss(0.5).status == "pass"


W = [0.2, 1.0, 2.5, 0.5, 1.5]


def _weighted(ms_weight):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x, target):
            weight = torch.tensor(W)  # a per-class weight built in forward: a tensor argument, no module's
            return torch.nn.functional.multilabel_soft_margin_loss(self.fc(x), target, weight=weight)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 5)
            self.crit = ms.nn.MultiLabelSoftMarginLoss(weight=ms_weight)

        def construct(self, x, target):
            return self.crit(self.fc(x), target)

    target = given((np.arange(30).reshape(6, 5) % 3 == 0).astype(np.float32))
    case = PairedCase(name="mlsm", torch=T, mindspore=M, inputs={"x": uniform(6, 4), "target": target},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_tensor_argument_the_port_drops_is_replayed_as_none_and_handed_to_the_ports_layer():
    v = _weighted(None)
    (d,) = v.localization.defects
    assert d.confirmed and "multilabel_soft_margin_loss called with weight=a tensor in torch" in d.cause
    assert "as with weight=None in MindSpore" in d.cause
    assert d.fix.startswith("nn.MultiLabelSoftMarginLoss(..., weight=Tensor([0.2, 1.0, 2.5, 0.5, 1.5])) for 'crit'")


def test_the_port_given_the_class_weight_passes():
    assert _weighted(ms.Tensor(np.array(W, np.float32))).status == "pass"


def _by_hand():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x, target):
            return torch.nn.functional.multilabel_soft_margin_loss(self.fc(x), target, weight=torch.tensor(W))

    class M(ms.nn.Cell):  # the loss written out with ops, its class weight left off: no layer to hand it to
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 5)

        def construct(self, x, target):
            h = self.fc(x)
            loss = -(target * ms.ops.log(ms.ops.sigmoid(h)) + (1 - target) * ms.ops.log(ms.ops.sigmoid(-h)))
            return loss.mean(-1).mean()

    target = given((np.arange(30).reshape(6, 5) % 3 == 0).astype(np.float32))
    case = PairedCase(name="by_hand", torch=T, mindspore=M, inputs={"x": uniform(6, 4), "target": target},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_dropped_weight_the_port_cannot_be_handed_is_confirmed_on_torchs_side_with_no_fix():
    v = _by_hand()
    assert v.status == "fail"
    (f,) = [f for f in v.localization.findings if "weight=a tensor in torch" in f.cause]
    assert (f.confidence, f.confirmed, f.fix_checked) == ("high", True, False)


def test_a_dropped_mask_is_high_only_once_the_port_re_ran_with_it():
    from migcheck.localization.op_replay import TENSOR, ReplayMatch
    from migcheck.records.ops import OpSite

    site = OpSite(3, "multi_head_attention_forward", (), (("key_padding_mask", TENSOR),), 3, "")
    mask = ReplayMatch(site, "key_padding_mask", TENSOR, None, np.array([[False, True]]))
    weight = ReplayMatch(site, "weight", TENSOR, None, np.array([0.5, 2.0], np.float32))
    additive = ReplayMatch(site, "key_padding_mask", TENSOR, None, np.array([[0.0, -np.inf]], np.float32))
    assert mask.drops_mask and additive.drops_mask and not weight.drops_mask
    assert ReplayMatch(site, "key_padding_mask", TENSOR, None).drops_mask  # no tensor kept: not known to be values
