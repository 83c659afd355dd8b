"""Default initialization (the opt-in `init` check): weights are overwritten by every other check, so a
port that initializes differently from torch passes them all and then trains differently.

MindSpore 2.10's nn.Dense and nn.Conv2d default to torch's kaiming-uniform weights and uniform(1/sqrt(fan_in))
biases; its nn.Embedding still defaults to normal(0, 0.01) where torch uses normal(0, 1). Ports written for
MindSpore 1.x spell out that version's Dense/Conv default, weight_init='normal' (N(0, 0.01)) and zero biases.
"""
import mindspore.nn as mnn
import torch.nn as tnn
from mindspore.common.initializer import Normal

from migcheck import PairedCase, integers, uniform

CHECKS = ("forward", "init")


embedding_init_default = PairedCase(
    doc="known-bad: nn.Embedding left at MindSpore's default table init normal(0, 0.01); torch draws normal(0, 1)",
    torch=lambda: tnn.Embedding(50, 16), mindspore=lambda: mnn.Embedding(50, 16),
    inputs={"ids": integers(2, 5, high=50)}, checks=CHECKS,
    expect="fail", fails_with="value", fails_on=("init",), tags=("init", "known-bad"),
)

embedding_init_normal_1 = PairedCase(
    doc="nn.Embedding(embedding_table=Normal(1.0)): torch's normal(0, 1)",
    torch=lambda: tnn.Embedding(50, 16), mindspore=lambda: mnn.Embedding(50, 16, embedding_table=Normal(1.0)),
    inputs={"ids": integers(2, 5, high=50)}, checks=CHECKS, tags=("init",),
)


class TorchConvHead(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(4, 8, 1)
        self.fc = tnn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


class MsConvHead(mnn.Cell):
    def __init__(self, v1_defaults=False):
        super().__init__()
        # MindSpore 1.x's defaults, as ports of that time spell them out.
        init = dict(weight_init="normal", bias_init="zeros") if v1_defaults else {}
        self.conv = mnn.Conv2d(4, 8, 1, has_bias=True, **init)
        self.fc = mnn.Dense(8, 10, **init)

    def construct(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


conv_dense_init_v1 = PairedCase(
    doc="known-bad: Conv2d/Dense with weight_init='normal', bias_init='zeros' (MindSpore 1.x defaults) where torch"
        " draws kaiming-uniform weights and uniform biases",
    torch=TorchConvHead, mindspore=lambda: MsConvHead(v1_defaults=True), inputs={"x": uniform(2, 4, 3, 3)},
    checks=CHECKS, expect="fail", fails_with="value", fails_on=("init",), tags=("init", "known-bad"),
)

conv_dense_init_default = PairedCase(
    doc="Conv2d/Dense at MindSpore 2.10's defaults: HeUniform(sqrt(5)) weights, uniform(1/sqrt(fan_in)) biases, as torch",
    torch=TorchConvHead, mindspore=MsConvHead, inputs={"x": uniform(2, 4, 3, 3)}, checks=CHECKS, tags=("init",),
)
