"""A MindSpore layer that folds torch's next layer in (nn.Dense(activation='gelu') for Linear then GELU) hands its
activation a 2-D view: torch's Linear output is found there by value in another shape, the activations are paired
by their inputs, and the fused layer is not reported wrong on its own."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _Ffn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1, self.act, self.lin2 = torch.nn.Linear(4, 6), torch.nn.GELU(), torch.nn.Linear(6, 4)

    def forward(self, x):
        return self.lin2(self.act(self.lin1(x)))


def _run(activation):
    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin1, self.lin2 = ms.nn.Dense(4, 6, activation=activation()), ms.nn.Dense(6, 4)

        def construct(self, x):
            return self.lin2(self.lin1(x))

    case = PairedCase(name="ffn", torch=_Ffn, mindspore=M, inputs={"x": uniform(2, 3, 4, low=-3, high=3)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_the_activation_folded_into_dense_is_located_and_its_setting_found():
    v = _run(lambda: "gelu")  # nn.GELU() inside: the tanh approximation
    assert v.status == "fail"
    loc = v.localization
    assert (loc.first_divergence, loc.first_divergence_ms) == ("act", "lin1.activation"), loc.summary
    (d,) = loc.defects  # lin1 itself is not wrong: torch's Linear output is GELU's (reshaped) input
    assert d.confirmed and "approximate" in d.cause and "approximate=False" in d.fix, (d.cause, d.fix)


def test_the_dense_with_the_exact_gelu_passes():
    assert _run(lambda: ms.nn.GELU(approximate=False)).status == "pass"
