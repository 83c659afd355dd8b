"""Layer families by what a layer is: the library base class in its MRO, else its parameter signature.

Real torch and MindSpore layers on tiny shapes; each inference is shown on a port it must map and on the
plain twin it must keep mapping the same way."""
import dataclasses

import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

from migcheck import PairedCase, uniform
from migcheck.mapping.mapped import mapping_notes
from migcheck.mapping.transfer import map_weights
from migcheck.runners.mindspore_side import MindSporeCell
from migcheck.runners.torch_side import TorchModule
from migcheck.running.pipeline import Item, run_item


class BatchNormAct(tnn.BatchNorm2d):
    """As timm's BatchNormAct2d: a BatchNorm2d subclass that adds a drop and an activation child."""

    def __init__(self, c):
        super().__init__(c)
        self.drop = tnn.Identity()
        self.act = tnn.ReLU()

    def forward(self, x):
        return self.act(self.drop(super().forward(x)))


class FusedPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1, bias=False)
        self.bn = BatchNormAct(3)

    def forward(self, x):
        return self.bn(self.conv(x))


class PlainPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1, bias=False)
        self.bn = tnn.BatchNorm2d(3)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class ConvBnMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.features = mnn.SequentialCell([mnn.Conv2d(2, 3, 1), mnn.BatchNorm2d(3), mnn.ReLU()])

    def construct(self, x):
        return self.features(x)


class OwnNorm(tnn.Module):
    """A library-less batch norm: only its parameters say what it is."""

    def __init__(self, c):
        super().__init__()
        self.weight = tnn.Parameter(torch.ones(c))
        self.bias = tnn.Parameter(torch.zeros(c))
        self.register_buffer("running_mean", torch.zeros(c))
        self.register_buffer("running_var", torch.ones(c))

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, False, 0.1, 1e-5)


class OwnNormPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1, bias=False)
        self.norm = OwnNorm(3)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


def _mapping(torch_factory, ms_factory):
    return map_weights(TorchModule(torch_factory).params(), MindSporeCell(ms_factory, "pynative").params())


def _rows(mapping):
    return {r.torch_name: (r.ms_name, r.how) for r in mapping.pairs}


def test_runners_report_the_library_base_and_the_children_a_subclass_adds():
    params = {p.name: p for p in TorchModule(FusedPt).params()}
    assert (params["bn.weight"].owner_kind, params["bn.weight"].owner_base) == ("BatchNormAct", "BatchNorm2d")
    assert set(params["bn.weight"].owner_extra) == {"drop", "act"}
    assert (params["conv.weight"].owner_base, params["conv.weight"].owner_extra) == ("Conv2d", ())
    assert {p.name: p.owner_base for p in TorchModule(OwnNormPt).params()}["norm.weight"] == ""
    ms_params = {p.name: p for p in MindSporeCell(ConvBnMs, "pynative").params()}
    assert ms_params["features.1.gamma"].owner_base == "BatchNorm2d"


def test_a_norm_subclass_with_extra_children_maps_as_its_base_and_the_verdict_says_so():
    mapping = _mapping(FusedPt, ConvBnMs)
    assert mapping.ok, mapping.problems()
    assert _rows(mapping)["bn.running_var"][0] == "features.1.moving_variance"
    note = " ".join(mapping_notes(mapping, failing=False))
    assert "BatchNormAct is a BatchNorm2d plus drop, act" in note and "'bn'" in note
    case = PairedCase(torch=FusedPt, mindspore=ConvBnMs, inputs={"x": uniform(2, 2, 3, 3)}, checks=("forward",),
                      modes=("pynative",), name="fused_bn_act")
    verdict = run_item(Item(dataclasses.replace(case, file="<t>"), "forward", "pynative", "cpu"))
    assert verdict.status == "pass", verdict.message


def test_the_plain_twin_maps_by_the_same_rule_and_gets_no_subclass_note():
    mapping = _mapping(PlainPt, ConvBnMs)
    assert mapping.ok and _rows(mapping)["bn.running_var"][0] == "features.1.moving_variance"
    assert not any("library base class" in n for n in mapping_notes(mapping, failing=True))


def test_a_library_less_norm_is_a_batch_norm_by_its_parameters():
    mapping = _mapping(OwnNormPt, ConvBnMs)
    assert mapping.ok, mapping.problems()
    rows = _rows(mapping)
    assert rows["norm.weight"][0] == "features.1.gamma" and rows["norm.running_mean"][0] == "features.1.moving_mean"
    case = PairedCase(torch=OwnNormPt, mindspore=ConvBnMs, inputs={"x": uniform(2, 2, 3, 3)}, checks=("forward",),
                      modes=("pynative",), name="own_norm")
    verdict = run_item(Item(dataclasses.replace(case, file="<t>"), "forward", "pynative", "cpu"))
    assert verdict.status == "pass", verdict.message


class OwnNormMs(mnn.Cell):
    """MindSpore side of a library-less norm: gamma/beta/moving_mean/moving_variance."""

    def __init__(self, c):
        super().__init__()
        self.gamma = ms.Parameter(ms.Tensor(np.ones(c, np.float32)))
        self.beta = ms.Parameter(ms.Tensor(np.zeros(c, np.float32)))
        self.moving_mean = ms.Parameter(ms.Tensor(np.zeros(c, np.float32)), requires_grad=False)
        self.moving_variance = ms.Parameter(ms.Tensor(np.ones(c, np.float32)), requires_grad=False)

    def construct(self, x):
        shape = (1, -1, 1, 1)
        scale = self.gamma.reshape(shape) / ms.ops.sqrt(self.moving_variance.reshape(shape) + 1e-5)
        return (x - self.moving_mean.reshape(shape)) * scale + self.beta.reshape(shape)


class OwnNormNetMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = mnn.Conv2d(2, 3, 1)
        self.norm = OwnNormMs(3)

    def construct(self, x):
        return ms.ops.relu(self.norm(self.proj(x)))


def test_a_library_less_mindspore_norm_is_a_batch_norm_by_its_parameters():
    mapping = _mapping(PlainPt, OwnNormNetMs)
    assert mapping.ok, mapping.problems()
    assert _rows(mapping)["bn.running_var"][0] == "norm.moving_variance"


class HeadConvPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv_head = tnn.Conv2d(3, 4, 1)

    def forward(self, x):
        return self.conv_head(x.mean((2, 3), keepdim=True)).flatten(1)


class HeadDenseMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.classifier = mnn.Dense(3, 4)

    def construct(self, x):
        return self.classifier(x.mean(axis=(2, 3)))


def test_a_1x1_conv_on_pooled_features_pairs_with_a_dense_layer():
    mapping = _mapping(HeadConvPt, HeadDenseMs)
    assert mapping.ok, mapping.problems()
    name, how = _rows(mapping)["conv_head.weight"]
    assert name == "classifier.weight" and "1x1 conv as linear" in how
    assert [r.transform for r in mapping.pairs if r.torch_name == "conv_head.weight"] == ["reshape"]
    case = PairedCase(torch=HeadConvPt, mindspore=HeadDenseMs, inputs={"x": uniform(2, 3, 2, 2)}, checks=("forward",),
                      modes=("pynative",), name="conv_head")
    assert run_item(Item(dataclasses.replace(case, file="<t>"), "forward", "pynative", "cpu")).status == "pass"
