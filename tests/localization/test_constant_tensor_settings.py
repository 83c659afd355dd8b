"""A loss's constant tensor setting (class weights kept as a buffer) read off torch's layer, carried into the
MindSpore class that takes it as a Tensor, and the fix printed only after that class re-ran to agreement."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

WEIGHTS = [0.2, 1.0, 3.0, 0.5, 2.0]
RNG = np.random.default_rng(3)
X = RNG.standard_normal((6, 4)).astype(np.float32)
Y = np.array([0, 1, 4, 2, 3, 1], np.int64)


def _case(weighted_port: bool):
    def pt():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 5)
                self.loss = torch.nn.CrossEntropyLoss(weight=torch.tensor(WEIGHTS))

            def forward(self, x, y):
                return self.loss(self.fc(x), y)

        return Net()

    def port():
        import mindspore as ms
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 5)
                self.loss = (nn.CrossEntropyLoss(weight=ms.Tensor(np.array(WEIGHTS, np.float32))) if weighted_port
                             else nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))

            def construct(self, x, y):
                return self.loss(self.fc(x), y.astype(ms.int32))

        return Net()

    return PairedCase(name="ce", torch=pt, mindspore=port, inputs={"x": given(X), "y": given(Y)},
                      checks=("forward",), weight_map={"loss.weight": None})


def test_class_weights_the_port_drops_are_named_and_the_weighted_class_is_the_checked_fix():
    v = run_item(Item(_case(False), "forward", "pynative", "cpu"))
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high" and finding.fix_checked
    assert "sets weight=Tensor([0.2, 1.0, 3.0, 0.5, 2.0])" in finding.cause
    assert finding.fix == ("use mindspore.nn.CrossEntropyLoss(weight=Tensor([0.2, 1.0, 3.0, 0.5, 2.0]),"
                           " reduction='mean') in place of SoftmaxCrossEntropyWithLogits")


def test_the_weighted_twin_passes():
    assert run_item(Item(_case(True), "forward", "pynative", "cpu")).status == "pass"


def test_a_buffer_of_the_arguments_name_is_read_as_a_constant_tensor_in_float32s_shortest_form():
    import torch

    from migcheck.runners.base import TensorValue
    from migcheck.runners.torch_args import constructor

    weight = constructor(torch.nn.CrossEntropyLoss(weight=torch.tensor([0.2, 3.0]))).arguments[0]
    assert weight.found and isinstance(weight.value, TensorValue) and weight.value == (0.2, 3.0)
    assert repr(weight.value) == "Tensor([0.2, 3.0])"
    assert not constructor(torch.nn.CrossEntropyLoss()).arguments[0].found  # no buffer: the default stands
