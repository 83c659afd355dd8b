"""A MindSpore layer that keeps its parameters in a child cell (nn.BatchNorm3d holds a BatchNorm2d) is paired with
torch's layer of the same name, not with that child (whose output has another shape): its setting is found there."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.locate import module_pairs
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item


def test_a_same_named_cell_whose_child_holds_the_parameters_is_the_counterpart():
    links = [("bn.weight", "bn.bn2d.gamma"), ("fc.weight", "fc.weight")]
    pairs = module_pairs(links, ["bn", "fc"], ["bn", "bn.bn2d", "fc"])
    assert pairs == {"bn": "bn", "fc": "fc"}
    assert module_pairs([("block.weight", "block.inner.conv.weight")], ["block"], ["block", "block.inner",
                                                                                   "block.inner.conv"]) == {
        "block": "block.inner.conv"}  # deeper than a direct child: the owner stands


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(eps: float):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = torch.nn.BatchNorm3d(3, eps=1e-3)

        def forward(self, x):
            return self.bn(x) * 2.0

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = ms.nn.BatchNorm3d(3, eps=eps)

        def construct(self, x):
            return self.bn(x) * 2.0

    case = PairedCase(name="bn3d", torch=T, mindspore=M, inputs={"x": uniform(2, 3, 2, 3, 3)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_batchnorm3d_eps_is_found_at_the_layer_not_at_its_inner_batchnorm2d():
    v = _run(1e-5)
    assert v.status == "fail" and v.localization.first_divergence_ms == "bn"
    (finding,) = v.localization.findings
    assert finding.confirmed and "eps=0.001" in finding.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_batchnorm3d_with_torchs_eps_passes():
    assert _run(1e-3).status == "pass"
