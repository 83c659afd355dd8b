"""A NaN gradient whose op has no torch counterpart (torch computes the region in one fused call): the first of the
port's ops whose backward alone gives a non-finite gradient is named, with the inputs it happens at."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

A = np.array([[0.1, -0.4, 0.3], [0.5, 0.2, -0.6], [-0.3, 0.9, 0.4]], np.float32)
B = np.array([[0.1, -0.4, 0.3], [-0.2, 0.6, 0.1], [0.7, 0.1, -0.4]], np.float32)  # row 0 identical to A's


def _distance(eps: float):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, a, b):
            return torch.nn.functional.pairwise_distance(self.fc(a), self.fc(b))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(3, 2)

        def construct(self, a, b):
            return ms.ops.norm(self.fc(a) - self.fc(b) + eps, dim=-1)

    case = PairedCase(name="pdist", torch=T, mindspore=M, inputs={"a": given(A), "b": given(B)},
                      checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_the_op_whose_backward_turns_a_zero_vector_into_nan_is_named_with_the_rows():
    v = _distance(0.0)
    assert v.status == "fail"
    (finding,) = [f for f in v.localization.findings if f.rule == "nonfinite-gradient"]
    assert finding.confirmed and finding.fix.startswith("none shown") and not finding.fix_checked
    assert finding.cause.startswith("MindSpore's norm gradient is NaN for input rows [0] (each all zeros")
    assert "it takes values computed from 'fc' output" in finding.cause
    assert "no single MindSpore op pairs with: torch.pairwise_distance()" in finding.cause  # torch's call, named


def test_the_twin_adding_torchs_eps_to_the_difference_passes():
    assert _distance(1e-6).status == "pass"
