"""torch's activation module before a layer, ported as that layer's own activation= setting, which MindSpore applies
after the layer (activation_order.py): confirmed by the port's layer rebuilt without it and fed torch's activation
output; a port applying the activation to the input passes."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _run(inside: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 6)
            self.act = torch.nn.Tanh()
            self.out = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.out(self.act(self.enc(x)))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = ms.nn.Dense(4, 6)
            self.out = ms.nn.Dense(6, 3, activation="tanh" if inside else None)

        def construct(self, x):
            h = self.enc(x)
            return self.out(h if inside else ms.ops.tanh(h))

    case = PairedCase(name="act_order", torch=T, mindspore=M, inputs={"x": uniform(5, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_activation_ported_into_the_next_dense_is_confirmed_and_moved_to_its_input():
    v = _run(True)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.rule == "activation-order" and finding.confirmed and finding.fix_checked
    assert [(d.torch_name, d.ms_name) for d in v.localization.defects] == [("act", "out")]  # at the moved module
    assert finding.cause.startswith("the port's Dense 'out' applies activation='tanh' after its own computation,"
                                    " where torch applies 'act' (Tanh) before its Linear 'out'")
    assert finding.fix == "build 'out' with activation=None and apply the activation to its input: self.out(ops.tanh(x))"


def test_the_activation_applied_to_the_input_passes():
    assert _run(False).status == "pass"


