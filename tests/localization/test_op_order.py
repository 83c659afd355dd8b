"""An op returning torch's values in another order (op_order.py): the port's results sorted as torch's at run
time, index results mapped through the order, confirmed by a re-run; a port that sorts them itself passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_order import order_candidates, sort_fix
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item


def _div(ms_values, torch_values, labels):
    ms_op = OpRecord(0, "unique", inputs=(np.array(labels),), outputs=(np.array(ms_values), np.zeros(6, np.int64)))
    t_op = OpRecord(0, "unique", inputs=(np.array(labels),), outputs=(np.array(torch_values), np.zeros(6, np.int64)))
    return OpDivergence(ms_op, t_op, ())


def test_values_in_appearance_order_where_torch_sorts_them_get_the_sorting_candidate():
    ((change, words),) = order_candidates(_div([3, 1, 0, 2], [0, 1, 2, 3], [3, 1, 3, 0, 1, 2]))
    assert change.sort_out == "ascending"
    assert "the port's come in order of first appearance in its input" in words
    assert sort_fix(_div([3, 1, 0, 2], [0, 1, 2, 3], [3]).ms, change).startswith(
        "sort the values 'unique' returns and map its index results through the order: values, order = ops.sort(")


def test_other_values_or_an_unsorted_torch_order_get_none():
    assert order_candidates(_div([3, 1, 0, 5], [0, 1, 2, 3], [3, 1, 0, 5])) == []  # not the same values
    assert order_candidates(_div([3, 1, 0, 2], [1, 0, 3, 2], [3, 1, 0, 2])) == []  # torch's not sorted either
    assert order_candidates(_div([0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3])) == []  # the same order


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(sorts: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, x, labels):
            classes, inverse = torch.unique(labels, sorted=True, return_inverse=True)
            sums = torch.zeros(classes.shape[0], 2).index_add(0, inverse, self.fc(x))
            return sums * classes[:, None].float()

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(3, 2)

        def construct(self, x, labels):
            classes, inverse = ms.ops.unique(labels)
            if sorts:
                classes, order = ms.ops.sort(classes.astype(ms.float32))
                inverse = ms.ops.gather(ms.ops.sort(order.astype(ms.float32))[1], inverse.astype(ms.int32), 0)
            sums = ms.ops.unsorted_segment_sum(self.fc(x), inverse.astype(ms.int32), classes.shape[0])
            return sums * classes[:, None].astype(ms.float32)

    labels = given(np.array([4, 1, 4, 2, 1, 7], np.int64))
    case = PairedCase(name="order", torch=T, mindspore=M, inputs={"x": uniform(6, 3), "labels": labels},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_unique_in_appearance_order_is_confirmed_by_sorting_its_results_in_the_re_run():
    v = _run(False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.fix_checked
    assert "'unique' results sorted ascending" in finding.cause and "order of first appearance" in finding.cause
    assert "values, order = ops.sort(values)" in finding.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_port_that_sorts_the_unique_values_itself_passes():
    assert _run(True).status == "pass"
