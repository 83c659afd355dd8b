"""Clear messages: a module instance given instead of a factory is a definition error naming the fix;
integer-only outputs skip backward with the reason (not a raw torch traceback)."""
from __future__ import annotations

import pytest

from migcheck import PairedCase, uniform
from migcheck.case import case_problems
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_module_instance_instead_of_a_factory_is_a_definition_error():
    torch = pytest.importorskip("torch")
    mindspore = pytest.importorskip("mindspore")
    case = PairedCase(torch=torch.nn.Linear(3, 2), mindspore=mindspore.nn.Dense(3, 2), inputs={"x": uniform(4, 3)})
    problems = case_problems(case)
    assert [p for p, _ in problems] == ["'torch' is a Linear instance, not a factory",
                                        "'mindspore' is a Dense instance, not a factory"]
    assert problems[0][1].startswith("pass the class or a function that returns a new torch.nn.Module")
    assert case_problems(PairedCase(torch=torch.nn.Linear, mindspore=mindspore.nn.Dense, inputs={"x": uniform(4, 3)})) == []


def torch_argmax():
    import torch

    class ArgMax(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(3, 4)

        def forward(self, x):
            return self.linear(x).argmax(-1)

    return ArgMax()


def ms_argmax():
    import mindspore

    class ArgMax(mindspore.nn.Cell):
        def __init__(self):
            super().__init__()
            self.linear = mindspore.nn.Dense(3, 4)

        def construct(self, x):
            return self.linear(x).argmax(-1)

    return ArgMax()


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_integer_only_outputs_skip_backward_with_the_reason():
    case = PairedCase(torch=torch_argmax, mindspore=ms_argmax, inputs={"x": uniform(4, 3)}, name="argmax",
                      checks=("forward", "backward"), weight_map={"linear.weight": "linear.weight",
                                                                  "linear.bias": "linear.bias"})
    verdict = run_item(Item(case, "backward", "pynative", "cpu"))
    assert verdict.status == "skip", verdict.message
    assert verdict.message.startswith("every output is an integer or boolean tensor, so there is nothing to"
                                      " differentiate and backward is skipped")
