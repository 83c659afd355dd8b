"""A logical op fed floats (Tensor.any): MindSpore's kernel reads the floats otherwise than torch's, both return bool;
the port's float input cast to bool is the confirmed fix. Neither an integer keyword (dim=-1) taken as a scale nor
moving the inputs off zero (which erases the difference without being a tie) is said to explain it."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _run(cast: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.ReLU()
            self.head = torch.nn.Linear(4, 2)

        def forward(self, x):
            a = self.act(x)
            return self.head(torch.cat([a, a.any(dim=-1, keepdim=True).float()], -1))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = ms.nn.ReLU()
            self.head = ms.nn.Dense(4, 2)

        def construct(self, x):
            a = self.act(x)
            flags = (a.astype(ms.bool_) if cast else a).any(-1, True)
            return self.head(ms.ops.cat([a, flags.astype(ms.float32)], -1))

    x = np.array([[-1.0, 0.5, -0.2], [-0.3, -0.1, -2.0], [0.2, 0.7, 0.0], [-1.0, 0.0, 3.0]], np.float32)
    case = PairedCase(name="any_float", torch=T, mindspore=M, inputs={"x": given(x)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_any_over_floats_is_fixed_by_casting_its_input_to_bool():
    v = _run(False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.rule == "op-argument-search"
    assert "its input argument cast to bool" in finding.cause and "input.astype(mindspore.bool)" in finding.fix
    assert "-1.0" not in finding.fix  # dim=-1 is an axis, not a scale


def test_any_over_the_cast_input_passes():
    assert _run(True).status == "pass"
