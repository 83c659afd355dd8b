"""A port whose construct returns an op's result with one axis more than torch's result (torch sums it away): the
result reduced over that axis, re-run to agreement (op_compose.reduction_candidates); the port that sums passes."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.op_compose import reduction_candidates
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item


def test_an_extra_axis_gets_a_sum_and_a_mean_over_it():
    r = OpRecord(2, "Tensor.__mul__", outputs=(np.zeros((5, 3)),))
    found = [c.reduce_out for c, _ in reduction_candidates(r, np.zeros(5))]
    assert found == [("sum", -1), ("mean", -1)]
    assert [c.reduce_out for c, _ in reduction_candidates(r, np.zeros(3))] == [("sum", -2), ("mean", -2)]
    assert reduction_candidates(r, np.zeros((5, 3))) == [] and reduction_candidates(r, np.zeros(4)) == []


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(sums: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x)
            return (h * h).sum(-1)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 3)

        def construct(self, x):
            h = self.fc(x)
            return (h * h).sum(-1) if sums else h * h

    case = PairedCase(name="reduce", torch=T, mindspore=M, inputs={"x": uniform(5, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_construct_returning_per_element_values_is_fixed_by_the_sum_torch_makes():
    v = _run(False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and "summed over axis -1" in finding.cause and ".sum(-1)" in finding.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_port_that_sums_passes():
    assert _run(True).status == "pass"
