"""A port whose outputs are nested differently from torch's (dict vs tuple) fails its backward check with a
`tree` verdict naming both structures, not MindSpore's raw has_aux error; its correct twin passes."""
from __future__ import annotations

import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def torch_dict():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, x):
            y = self.fc(x)
            return {"a": y, "b": y * 2}
    return Net()


def _ms(as_dict):
    import mindspore

    class Net(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mindspore.nn.Dense(3, 2)

        def construct(self, x):
            y = self.fc(x)
            return {"a": y, "b": y * 2} if as_dict else (y, y * 2)
    return Net()


def ms_tuple():
    return _ms(False)


def ms_dict():
    return _ms(True)


def _case(ms, name):
    return PairedCase(torch=torch_dict, mindspore=ms, inputs={"x": uniform(4, 3)}, checks=("backward",),
                      modes=("pynative",), name=name)


def test_dict_versus_tuple_outputs_fail_backward_with_both_structures_named():
    verdict = run_item(Item(_case(ms_tuple, "dict_vs_tuple"), "backward", "pynative", "cpu"))
    assert (verdict.status, verdict.kind) == ("fail", "tree"), verdict.message
    assert "torch returns a dict/record with fields 'a', 'b', MindSpore a tuple/list of 2" in verdict.message
    assert "has_aux" not in verdict.message


def test_the_correct_twin_returning_a_dict_passes_backward():
    verdict = run_item(Item(_case(ms_dict, "dict_vs_dict"), "backward", "pynative", "cpu"))
    assert verdict.status == "pass", verdict.message
