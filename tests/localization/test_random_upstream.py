"""A random op blamed on the next layer: a functional dropout left in training mode in construct feeds 'fc2' a
value torch's fc2 never saw, yet torch's input to fc2 equals a MindSpore tensor (fc1's output), so the layer looked
fed correctly and was reported as inheriting drift. A layer paired by its weights or name whose MindSpore input
differs from torch's own input is now not counted as fed correctly (dataflow.py): the place moves upstream, between
'fc1' output and 'fc2' input, where the op is identified and confirmed. Its correct twin passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

X = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)


def _run(ms_body, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(torch.nn.functional.dropout(self.fc1(x), p=0.3, training=self.training))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = ms.nn.Dense(4, 6)
            self.fc2 = ms.nn.Dense(6, 3)

        def construct(self, x):
            return self.fc2(ms_body(self, self.fc1(x)))

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_dropout_left_training_is_placed_before_the_layer_it_feeds_and_confirmed():
    v = _run(lambda m, h: ms.ops.dropout(h, p=0.3), "dropout_training")
    assert v.status == "fail"
    loc = v.localization
    assert "between 'fc1' output and 'fc2' input" in (loc.between or "")
    assert not any(d.torch_name == "fc2" for d in loc.defects)  # no longer blamed on the next layer
    (d,) = [d for d in loc.defects if d.confirmed]
    assert d.confidence == "high" and "eval mode" in d.cause and "training mode" in d.cause


def test_dropout_given_the_cells_training_state_passes():
    assert _run(lambda m, h: ms.ops.dropout(h, p=0.3, training=m.training), "dropout_state").status == "pass"
