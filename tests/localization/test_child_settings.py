"""A parameterless mindspore.nn child whose step torch writes as a functional call (nn.Softmax() at its default
axis for torch's x.softmax(1)): the child rebuilt with another axis and its parent re-run is the confirmed fix."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _head(axis):
    class HeadPt(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Conv2d(4, 2, 1)

        def forward(self, x):
            return self.proj(x.softmax(1))

    class HeadMs(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.softmax = ms.nn.Softmax() if axis is None else ms.nn.Softmax(axis=axis)
            self.proj = ms.nn.Conv2d(4, 2, 1, has_bias=True)

        def construct(self, x):
            return self.proj(self.softmax(x))

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem, self.head = torch.nn.Conv2d(2, 4, 1), HeadPt()

        def forward(self, x):
            return self.head(self.stem(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.stem, self.head = ms.nn.Conv2d(2, 4, 1, has_bias=True), HeadMs()

        def construct(self, x):
            return self.head(self.stem(x))

    case = PairedCase(name="head", torch=T, mindspore=M, inputs={"x": uniform(2, 2, 3, 3)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_softmax_child_at_its_default_axis_gets_torchs_axis_after_its_parent_re_runs():
    v = _head(None)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert finding.fix == "nn.Softmax(axis=-1) -> nn.Softmax(axis=1) for 'head.softmax'"


def test_the_softmax_over_channels_twin_passes():
    assert _head(1).status == "pass"
