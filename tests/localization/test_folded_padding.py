"""A port that folds torch's ZeroPad2d into its convolution's padding: the convolution never sees torch's (padded)
input, so its re-run on torch's input proves nothing and no fix is drawn from it (once printed 'padding=0' at
[high]); the twin with MindSpore's (top, bottom, left, right) order passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _PadConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ZeroPad2d((2, 0, 1, 1))  # (left, right, top, bottom)
        self.conv = torch.nn.Conv2d(2, 3, 3)

    def forward(self, x):
        return self.conv(self.pad(x))


def _run(padding):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 3, 3, pad_mode="pad", padding=padding, has_bias=True)

        def construct(self, x):
            return self.conv(x)

    case = PairedCase(name="fold", torch=_PadConv, mindspore=M,
                      inputs={"x": given(np.linspace(-1, 1, 2 * 2 * 5 * 6, dtype=np.float32).reshape(2, 2, 5, 6))},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_convolution_that_folds_torchs_pad_gets_no_fix_from_a_re_run_on_torchs_padded_input():
    v = _run((2, 0, 1, 1))  # torch's (left, right, top, bottom) order kept
    assert v.status == "fail"
    assert not any(f.confidence == "high" and "padding=0" in f.fix for f in v.localization.findings)


def test_the_convolution_given_mindsporess_pad_order_passes():
    assert _run((1, 1, 2, 0)).status == "pass"
