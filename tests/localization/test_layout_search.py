"""A square weight copied as is into a layer that reads it transposed is found by re-running the layer with the
parameter's equal-length axes swapped; the printed transform, applied, makes the port pass."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.layout_search import swaps
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item
from migcheck.transforms import transpose


def test_only_axes_of_equal_length_are_swapped_trailing_ones_first():
    assert swaps({"w": (4, 4), "b": (4,), "r": (3, 5)}) == [("w", (1, 0))]
    assert swaps({"k": (6, 6, 3, 3)}) == [("k", (0, 1, 3, 2)), ("k", (1, 0, 2, 3))]
    assert swaps({"k": (1, 1)}) == []  # a length-1 pair: nothing to tell apart
    assert len(swaps({f"w{i}": (2, 2) for i in range(20)})) == 8  # budgeted


def _torch():
    import torch

    class Projection(torch.nn.Module):  # GPT-2's Conv1D: weight kept (in, out), x @ W
        def __init__(self, n):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(n, n))
            self.bias = torch.nn.Parameter(torch.randn(n))

        def forward(self, x):
            return x @ self.weight + self.bias

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj, self.head = Projection(4), torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.head(torch.tanh(self.proj(x)))

    return Net()


def _ms():
    import mindspore as ms

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj, self.head = ms.nn.Dense(4, 4), ms.nn.Dense(4, 2)

        def construct(self, x):
            return self.head(ms.ops.tanh(self.proj(x)))

    return Net()


def _run(**kw):
    case = PairedCase(name="proj", torch=_torch, mindspore=_ms, inputs={"x": uniform(3, 4)}, **kw)
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_weight_read_transposed_is_the_confirmed_cause_with_its_transform():
    v = _run()
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert (d.torch_name, d.ms_name, d.confidence) == ("proj", "proj", "high")
    assert "'proj.weight' is read by MindSpore's Dense in another layout than torch's Projection" in d.cause
    assert "axes 0 and 1 are swapped" in d.cause
    assert "weight_transforms={'proj.weight': transpose(1, 0)}" in d.fix
    assert "'proj.weight' with axes 0 and 1 swapped" in d.search_tried


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_port_loaded_with_the_printed_transform_passes():
    v = _run(weight_transforms={"proj.weight": transpose(1, 0)})
    assert v.status == "pass", v.message
