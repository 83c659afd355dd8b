"""A port whose forward runs and whose backward raises (localization/raising_backward.py): each op the port's
construct called is differentiated alone, in order, and the first whose backward raises is named, placed after
the torch layer whose output it takes. The correct twin (the same maximum, written with ops that differentiate
on CPU) passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _Torch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.fc2 = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.cummax(self.fc1(x), dim=1).values)


def _ms(unrolled):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(4, 3)
            self.fc2 = ms.nn.Dense(3, 2)

        def construct(self, x):
            h = self.fc1(x)
            if unrolled:
                first = h[:, 0]
                second = ms.ops.maximum(first, h[:, 1])
                running = ms.ops.stack([first, second, ms.ops.maximum(second, h[:, 2])], axis=1)
            else:
                running = ms.ops.cummax(h, 1)[0]
            return self.fc2(running)
    return Net


def _run(net):
    case = PairedCase(name="cummax", torch=_Torch, mindspore=net, inputs={"x": uniform(3, 4)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_the_op_whose_backward_raises_is_named_after_the_layer_it_follows():
    v = _run(_ms(False))
    assert v.status == "error"
    (d,) = v.localization.defects
    assert (d.rule, d.confidence, d.torch_name) == ("backward-raise", "high", "")
    assert d.cause.startswith("the op after 'fc1' output in '<root>': MindSpore's ops.cummax"), d.cause
    assert "raises in its backward" in d.cause and not d.fix


def test_the_maximum_written_with_ops_that_differentiate_passes():
    assert _run(_ms(True)).status == "pass"
