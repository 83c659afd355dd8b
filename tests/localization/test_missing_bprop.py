"""An identity layer whose torch module defines its own backward (a gradient reversal) ported without a bprop:
torch's constant factor is read off the two gradients and the bprop that returns it is the fix; the twin with the
bprop passes."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


class _Reverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -0.5 * grad


class ReversalPt(torch.nn.Module):
    def forward(self, x):
        return _Reverse.apply(x)


class IdentityMs(ms.nn.Cell):
    def construct(self, x):
        return x * 1.0


class ReversalMs(ms.nn.Cell):
    def construct(self, x):
        return x * 1.0

    def bprop(self, x, out, dout):
        return (-0.5 * dout,)


def _run(grl):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.grl, self.fc2 = torch.nn.Linear(4, 3), ReversalPt(), torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc2(self.grl(self.fc1(x)))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1, self.grl, self.fc2 = ms.nn.Dense(4, 3), grl(), ms.nn.Dense(3, 2)

        def construct(self, x):
            return self.fc2(self.grl(self.fc1(x)))

    case = PairedCase(name="grl", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_an_identity_layer_without_torchs_own_backward_gets_the_bprop_with_torchs_factor():
    v = _run(IdentityMs)
    assert v.status == "fail"
    (finding,) = [f for f in v.localization.findings if f.rule == "missing-bprop"]
    assert finding.confirmed and finding.confidence == "high"
    assert "passes back its output gradient times -0.5" in finding.cause
    assert finding.fix.startswith("give IdentityMs a bprop: def bprop(self, x, out, dout): return (-0.5 * dout,)")


def test_the_twin_with_the_bprop_passes():
    assert _run(ReversalMs).status == "pass"
