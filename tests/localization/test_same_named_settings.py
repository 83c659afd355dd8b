"""A port's own class whose constructor argument is kept under a shorter attribute name: the same-named setting
confirmed by a re-run is said as the constructor argument the port set it by; the twin built alike passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class ScaledPt(torch.nn.Module):
    def __init__(self, output_scale=0.5):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.scale = output_scale

    def forward(self, x):
        return self.fc(x) * self.scale


class ScaledMs(ms.nn.Cell):
    def __init__(self, output_scale=1.0):
        super().__init__()
        self.fc = ms.nn.Dense(4, 3)
        self.scale = output_scale

    def construct(self, x):
        return self.fc(x) * self.scale


def _run(ms_scale):
    class NetPt(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = ScaledPt(output_scale=0.5)

        def forward(self, x):
            return self.head(x)

    class NetMs(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = ScaledMs(output_scale=ms_scale)

        def construct(self, x):
            return self.head(x)

    case = PairedCase(name="scaled", torch=NetPt, mindspore=NetMs, inputs={"x": uniform(2, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_setting_kept_under_a_shorter_name_is_fixed_by_the_constructor_argument_that_set_it():
    v = _run(1.0)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert "the port sets it by its constructor's output_scale=1.0" in finding.cause
    assert finding.fix == "ScaledMs(..., output_scale=0.5) (its attribute scale)"


def test_the_twin_built_with_torchs_value_passes():
    assert _run(0.5).status == "pass"
