"""torch's functional pad before a layer, folded by the port into the layer's own padding (pad_fold.py): the
port's layer rebuilt with torch's amounts (in MindSpore's order), or left unpadded and fed the padded input, must
agree with torch's layer; the port padding as torch does passes."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.pad_fold import ms_padding
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item


def test_torchs_pad_tuple_is_put_in_mindsporess_axis_order():
    assert ms_padding((1, 0, 2, 0), 2) == (2, 0, 1, 0)  # (left, right, top, bottom) -> (top, bottom, left, right)
    assert ms_padding((0, 2), 1) == (0, 2)
    assert ms_padding((0, 2), 2) == ()  # a pad of the last axis only: not a 2-D layer's padding


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(padding):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 3, 3)

        def forward(self, x):
            return self.conv(torch.nn.functional.pad(x, (1, 0, 2, 0)))  # causal in both axes

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = (ms.nn.Conv2d(2, 3, 3, pad_mode="same", has_bias=True) if padding is None else
                         ms.nn.Conv2d(2, 3, 3, pad_mode="pad", padding=padding, has_bias=True))

        def construct(self, x):
            return self.conv(x)

    case = PairedCase(name="pad_fold", torch=T, mindspore=M, inputs={"x": uniform(1, 2, 5, 5)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_same_padded_conv_for_torchs_causal_pad_is_rebuilt_with_torchs_amounts():
    v = _run(None)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.rule == "pad-folded" and finding.confirmed
    assert "torch pads the input of its Conv2d 'conv' with F.pad(x, (1, 0, 2, 0)) first" in finding.cause
    assert finding.fix == "Conv2d(..., padding=(2, 0, 1, 0), pad_mode='pad')"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_conv_padded_as_torch_pads_passes():
    assert _run((2, 0, 1, 0)).status == "pass"
