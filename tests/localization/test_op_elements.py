"""Where a located op's output differs from torch's, said by the input values at those elements
(localization/op_elements.py): pure functions, and an xlogy port whose (0, 0) convention differs, with its twin."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.localization.op_elements import where_differs
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item


def test_elementwise_elements_are_grouped_by_their_input_values():
    x = np.array([[0.0, 0.5], [0.0, 2.0]], np.float32)
    torch_out = np.array([[0.0, -0.35], [0.0, 1.39]], np.float32)
    ms_out = np.array([[np.nan, -0.35], [np.nan, 1.39]], np.float32)
    said = where_differs([x, x], ms_out, torch_out, 1e-6, 1e-6, ["x", "y"])
    assert said == "where x == 0 and y == 0 (2 elements): torch 0, MindSpore nan (2 of 4 output elements)"


def test_a_reduction_is_said_by_its_reduced_slice():
    s = np.array([[1.0, 2.0], [-np.inf, -np.inf]], np.float32)
    torch_out = np.array([[2.31], [-np.inf]], np.float32)
    ms_out = np.array([[2.31], [np.nan]], np.float32)
    assert where_differs([s], ms_out, torch_out, 1e-5, 1e-5).startswith(
        "where x's reduced slice is all -inf (1 element): torch -inf, MindSpore nan")


def test_a_general_difference_is_not_dressed_as_an_edge_convention():
    x = np.linspace(0.1, 1, 12, dtype=np.float32)
    assert where_differs([x], x * 1.1, x, 1e-6, 1e-6) == ""  # every element differs, at 12 distinct inputs


X = np.array([[1.0, -1.0, 0.5, -2.0], [-0.3, 0.2, 1.5, -1.0]], np.float32)


def _xlogy_case(ms_fn):
    torch = pytest.importorskip("torch")
    ms = pytest.importorskip("mindspore")

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            p = torch.relu(self.fc(x))
            return torch.xlogy(p, p)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)

        def construct(self, x):
            p = ms.ops.relu(self.fc(x))
            return ms_fn(p)

    case = PairedCase(name="entropy", torch=T, mindspore=M, inputs={"x": given(X * 3)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _xlogy(p):
    import mindspore as ms

    return ms.ops.xlogy(p, p)


def _xlogy_zero_at_zero(p):
    import mindspore as ms

    return ms.ops.where(p == 0, ms.ops.zeros_like(p), ms.ops.xlogy(p, ms.ops.where(p == 0, ms.ops.ones_like(p), p)))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_an_op_whose_zero_convention_differs_is_said_at_its_zero_inputs():
    v = _xlogy_case(_xlogy)
    assert v.status != "pass"
    causes = " ".join(d.cause for d in v.localization.defects)
    assert "op 'xlogy'" in causes and "xlogy output differs where input == 0 and other == 0" in causes, causes
    assert "torch 0, MindSpore nan" in causes


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_xlogy_guarded_at_zero_passes():
    assert _xlogy_case(_xlogy_zero_at_zero).status == "pass"
