"""Backward-only defects: every forward value agrees and gradients do not (a cell's own bprop)."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

from migcheck import PairedCase, uniform


class MlpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(4, 6)
        self.act = tnn.Tanh()
        self.fc2 = tnn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TanhWithBprop(mnn.Cell):
    """tanh with a hand-written bprop, as ports write one to save memory; `scale` stands for a slip in it."""

    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = scale

    def construct(self, x):
        return ops.tanh(x)

    def bprop(self, x, out, dout):
        return (dout * (1 - out * out) * self.scale,)


class MlpMs(mnn.Cell):
    def __init__(self, scale=1.0):
        super().__init__()
        self.fc1 = mnn.Dense(4, 6)
        self.act = TanhWithBprop(scale)
        self.fc2 = mnn.Dense(6, 3)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


custom_bprop = PairedCase(
    doc="a tanh cell with its own bprop, written right: gradients agree with torch's autograd",
    torch=MlpPt, mindspore=MlpMs, inputs={"x": uniform(2, 4)}, checks=("forward", "backward"), tags=("bprop",),
)

custom_bprop_scaled = PairedCase(
    doc="known-bad: the hand-written bprop halves the gradient; forward agrees, so only the isolated backward"
        " pass (each sub-cell fed torch's input and output gradient) can point at 'act'",
    torch=MlpPt, mindspore=lambda: MlpMs(0.5), inputs={"x": uniform(2, 4)}, checks=("forward", "backward"),
    expect="fail", fails_with="value", fails_on=("backward",), diagnosis="custom-bprop", tags=("bprop", "known-bad"),
)
