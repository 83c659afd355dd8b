"""A port that raises inside a PYNATIVE gradient call must not break the gradients of the cases after it
(runners/mindspore_held.py). Before, MindSpore 2.10 left its gradient graph open and the next GRU's backward
failed with "Only support integers ... but got 0 with type <class 'int'>"."""
import dataclasses

import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

from migcheck import PairedCase, uniform
from migcheck.running.pipeline import Item, run_item
from migcheck.vocab import Status


class TorchCosine(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 6)
        self.cos = tnn.CosineSimilarity(dim=1)

    def forward(self, x, y):
        return self.cos(self.fc(x), self.fc(y))


class CosineWrongDim(mnn.Cell):
    """dim=2 on 2-D features: raises inside construct, so inside mindspore.grad in the backward check."""

    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(4, 6)

    def construct(self, x, y):
        return ops.cosine_similarity(self.fc(x), self.fc(y), dim=2)


class TorchGru(tnn.Module):
    def __init__(self):
        super().__init__()
        self.gru = tnn.GRU(4, 5, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


class MsGru(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.gru = mnn.GRU(4, 5, batch_first=True)

    def construct(self, x):
        return self.gru(x)[0]


def _case(name, torch, mindspore, inputs):
    return dataclasses.replace(PairedCase(torch=torch, mindspore=mindspore, inputs=inputs), name=name, file=f"<{name}>")


def test_a_port_raising_inside_the_gradient_call_leaves_later_gradients_working():
    raising = _case("held_cosine", TorchCosine, CosineWrongDim, {"x": uniform(3, 4), "y": uniform(3, 4)})
    gru = _case("held_gru", TorchGru, MsGru, {"x": uniform(2, 3, 4)})
    failed = run_item(Item(raising, "backward", "pynative", "cpu"))
    assert failed.status == Status.ERROR
    assert "axis value must be in" in failed.message  # the port's own error is still the one reported
    after = run_item(Item(gru, "backward", "pynative", "cpu"))
    assert after.status == Status.PASS, after.message
