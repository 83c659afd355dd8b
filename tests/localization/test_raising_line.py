"""A Python error in the port's own construct (no public call raised) is placed at its line, with the
attributes that line calls which MindSpore's Tensor holds as properties where torch's has methods."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _Flatten(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 2)

    def forward(self, x):
        return self.fc(x.reshape(x.size(0), -1))


def _run(count):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(6, 2)

        def construct(self, x):
            return self.fc(x.reshape(count(x), -1))

    case = PairedCase(name="flat", torch=_Flatten, mindspore=M,
                      inputs={"x": given(np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 2, 3))}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _size_like_torch(x):
    return x.size(0)


def _shape(x):
    return x.shape[0]


def test_a_property_called_like_torchs_method_is_placed_at_its_line():
    v = _run(_size_like_torch)
    assert v.status == "error"
    (d,) = v.localization.defects
    assert "in _size_like_torch: `return x.size(0)` (TypeError: 'int' object is not callable)" in d.cause, d.cause
    assert "MindSpore's Tensor.size is a property (a value, not callable), where torch's Tensor.size is a method" in d.cause
    assert d.confidence == "medium" and not d.fix


def test_the_port_reading_the_shape_passes():
    assert _run(_shape).status == "pass"
