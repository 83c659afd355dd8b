"""Torch-like MindSpore ports whose parameters are a library's own Tensor subclass (mindnlp style): trainable
with their own requires_grad, backward works on them; a port with nothing to differentiate gets a hint."""
import dataclasses

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore as ms
import torch.nn as tnn

from migcheck import PairedCase, uniform
from migcheck.runners.base import Objective
from migcheck.runners.mindspore_objective import MindSporeSideError
from migcheck.runners.mindspore_side import MindSporeCell
from migcheck.running.pipeline import Item, run_item


class LibParameter(ms.Tensor):
    """A torch-like library's Parameter: a Tensor subclass with its own requires_grad, not mindspore.Parameter."""

    def __init__(self, data, requires_grad=True):
        super().__init__(data)
        self.requires_grad = requires_grad


class LibLinear:
    """A torch-like module: parameters in a `_parameters` table, found through __getattr__; forward, not construct."""

    def __init__(self, cin, cout):
        rng = np.random.default_rng(0)
        self._parameters = {"weight": LibParameter(rng.standard_normal((cout, cin)).astype(np.float32)),
                            "bias": LibParameter(np.zeros(cout, np.float32))}

    def __getattr__(self, name):
        params = self.__dict__.get("_parameters", {})
        if name in params:
            return params[name]
        raise AttributeError(name)

    def named_parameters(self):
        return list(self._parameters.items())

    def train(self, mode=True):
        return self

    def forward(self, x):
        return ms.ops.matmul(x, self.weight.T) + self.bias

    __call__ = forward


def test_a_foreign_parameter_type_is_trainable_and_backward_matches_torch():
    case = PairedCase(torch=lambda: tnn.Linear(3, 2), mindspore=lambda: LibLinear(3, 2), inputs={"x": uniform(4, 3)},
                      checks=("forward", "backward"), modes=("pynative",), name="lib_linear")
    case = dataclasses.replace(case, file="<lib_linear>")
    cell = MindSporeCell(case.mindspore, "pynative")
    assert all(p.trainable for p in cell.params())
    for check in ("forward", "backward"):
        verdict = run_item(Item(case, check, "pynative", "cpu"))
        assert verdict.status == "pass", (check, verdict.message)
    # The swap is for the gradient pass only: the module holds its own type again.
    assert all(type(p) is LibParameter for _, p in cell.cell.module.named_parameters())


class Doubler(ms.nn.Cell):
    def construct(self, x):
        return x * 2


def test_nothing_to_differentiate_is_a_side_error_with_a_hint_not_mindspores_value_error():
    cell = MindSporeCell(Doubler, "pynative")
    objective = Objective(n_net_inputs=1, cotangents=(np.ones((3,), np.float32),))
    with pytest.raises(MindSporeSideError, match="nothing to differentiate on the MindSpore side.*hint"):
        cell.gradients([np.arange(3, dtype=np.int32)], ["int32"], objective, None)
