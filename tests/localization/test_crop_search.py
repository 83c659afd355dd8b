"""A transposed convolution whose output_padding MindSpore fills with zeros where torch computes it
(localization/crop_search.py): the port's layer rebuilt without padding computes the full output, and the window
cropped as torch crops it agrees with torch, so that call and the slice are the confirmed fix. The twin that
writes exactly that passes."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class TorchUp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = torch.nn.Conv2d(2, 2, 1)
        self.up = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up(torch.relu(self.pre(x)))


def _run(cropped):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.pre = ms.nn.Conv2d(2, 2, 1, pad_mode="valid", has_bias=True)
            self.up = (ms.nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="valid", has_bias=True) if cropped else
                       ms.nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                             has_bias=True))

        def construct(self, x):
            y = self.up(ms.ops.relu(self.pre(x)))
            return y[:, :, 1:, 1:] if cropped else y

    case = PairedCase(name="up", torch=TorchUp, mindspore=M, inputs={"x": uniform(1, 2, 4, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_output_padding_filled_otherwise_is_fixed_by_the_full_output_cropped_as_torch_crops():
    v = _run(False)
    assert v.status == "fail"
    (d,) = [d for d in v.localization.defects if d.torch_name == "up"]
    assert d.confirmed and d.confidence == "high"
    assert "Conv2dTranspose(pad_mode='pad', padding=1, output_padding=1) does not pad as torch's layer does" in d.cause
    assert d.fix == ("nn.Conv2dTranspose(..., pad_mode='valid', padding=0, output_padding=0) and then y = y[..., 1:9,"
                     " 1:9] in place of nn.Conv2dTranspose(..., pad_mode='pad', padding=1, output_padding=1)")


def test_the_cropped_full_output_twin_passes():
    assert _run(True).status == "pass"
