"""The layer search's input-side candidate (localization/arg_search.py): a library layer that makes NaN of a masked
-inf its torch counterpart keeps finite (MindSpore 2.10's nn.CrossEntropyLoss) re-runs with its -inf inputs clamped
to large finite values; agreement is the cause, the clamp the fix. The twin that masks with -1e9 passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

ALLOWED = np.array([[1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 1]], bool)
TARGET = np.array([0, 3, 2], np.int64)


def _run(fill):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = torch.nn.Linear(5, 4)
            self.loss = torch.nn.CrossEntropyLoss()

        def forward(self, x, allowed, target):
            return self.loss(self.policy(x).masked_fill(~allowed, float("-inf")), target)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.policy = ms.nn.Dense(5, 4)
            self.loss = ms.nn.CrossEntropyLoss()

        def construct(self, x, allowed, target):
            return self.loss(ms.ops.masked_fill(self.policy(x), ~allowed, fill), target.astype(ms.int32))

    case = PairedCase(name="masked_ce", torch=T, mindspore=M,
                      inputs={"x": uniform(3, 5), "allowed": given(ALLOWED), "target": given(TARGET)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_layer_that_makes_nan_of_a_masked_inf_is_fixed_by_clamping_its_input():
    v = _run(float("-inf"))
    (d,) = v.localization.defects
    assert (d.torch_name, d.confirmed) == ("loss", True)
    assert d.cause.startswith("MindSpore's CrossEntropyLoss returns NaN where its input holds -inf and torch's"
                              " CrossEntropyLoss stays finite"), d.cause
    assert d.fix.startswith("hand 'loss' its input through ops.clamp(x, -"), d.fix


def test_the_twin_masking_with_a_large_finite_value_passes():
    assert _run(-1e9).status == "pass"
