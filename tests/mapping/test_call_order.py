"""Alignment by the call graph: a port that registers and calls its shortcut before its body maps fully
without a weight_map, passes when correct, and a defect in it is reported where it is, not as a stride
difference between a body conv and a shortcut conv."""
import dataclasses

import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore.nn as mnn
import torch
import torch.nn as tnn

from migcheck import PairedCase, uniform
from migcheck.mapping.call_order import ranks
from migcheck.running.pipeline import Item, mapping_for, run_item


class BlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(2, 3, 3, 2, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(3)
        self.conv2 = tnn.Conv2d(3, 3, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(3)
        self.downsample = tnn.Sequential(tnn.Conv2d(2, 3, 1, 2, bias=False), tnn.BatchNorm2d(3))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + self.downsample(x))


class BlockMs(mnn.Cell):
    """Shortcut registered AND called first, body norms renamed: neither order matches torch's."""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.proj = mnn.Conv2d(2, 3, 1, 2, pad_mode="valid")
        self.proj_bn = mnn.BatchNorm2d(3)
        self.a = mnn.Conv2d(2, 3, 3, 2, pad_mode="pad", padding=1)
        self.a_bn = mnn.BatchNorm2d(3)
        self.b = mnn.Conv2d(3, 3, 1)
        self.b_bn = mnn.BatchNorm2d(3, eps=eps)
        self.relu = mnn.ReLU()

    def construct(self, x):
        skip = self.proj_bn(self.proj(x))
        return self.relu(self.b_bn(self.b(self.relu(self.a_bn(self.a(x))))) + skip)


def _case(name, ms):
    case = PairedCase(torch=BlockPt, mindspore=ms, inputs={"x": uniform(2, 2, 4, 4)}, checks=("forward",),
                      modes=("pynative",), name=name)
    return dataclasses.replace(case, file=f"<{name}>")


def _pairs(mapping):
    return {i.torch_layer: (i.ms_layer, i.confidence) for i in mapping.inferred}


def test_ranks_keep_the_first_call():
    assert ranks(["a", "b", "a", "c"]) == {"a": 0, "b": 1, "c": 2}


def test_shortcut_first_correct_port_maps_fully_and_passes_with_no_finding():
    case = _case("shortcut_first_ok", BlockMs)
    mapping = mapping_for(case)
    assert mapping.ok, mapping.problems()
    pairs = _pairs(mapping)
    assert pairs["bn2"][0] == "b_bn" and pairs["downsample.1"][0] == "proj_bn" and pairs["bn1"][0] == "a_bn"
    verdict = run_item(Item(case, "forward", "pynative", "cpu"))
    assert verdict.status == "pass", verdict.message
    assert verdict.localization is None


def test_a_defect_in_the_shortcut_first_port_is_reported_where_it_is():
    case = _case("shortcut_first_eps", lambda: BlockMs(eps=0.5))
    mapping = mapping_for(case)  # the outputs disagree, yet the pairing does not depend on them
    assert mapping.ok and _pairs(mapping)["bn2"][0] == "b_bn" and _pairs(mapping)["downsample.1"][0] == "proj_bn"
    verdict = run_item(Item(case, "forward", "pynative", "cpu"))
    assert verdict.status == "fail" and verdict.kind == "value"
    findings = verdict.localization.findings
    assert any("eps" in f.rule and "torch 'bn2'" in f.where for f in findings), [f.where for f in findings]
    assert not any("stride" in f.rule for f in findings)
    assert not any(f.confidence == "high" and "torch 'bn2'" not in f.where for f in findings)
