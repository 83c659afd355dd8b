"""Activations, softmax axes and dropout: defaults that differ between the frameworks."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

from migcheck import PairedCase, normal, uniform


X = {"x": normal(2, 4, 6, std=2.0)}

relu = PairedCase(
    doc="ReLU: identical, the baseline for the rest of the file",
    torch=lambda: tnn.ReLU(), mindspore=lambda: mnn.ReLU(), inputs=X, tags=("activation",),
)

leaky_relu = PairedCase(
    doc="LeakyReLU(negative_slope=0.01) must name alpha=0.01: MindSpore's default alpha is 0.2",
    torch=lambda: tnn.LeakyReLU(), mindspore=lambda: mnn.LeakyReLU(alpha=0.01), inputs=X, tags=("activation",),
)

leaky_relu_default_alpha = PairedCase(
    doc="known-bad: LeakyReLU left at MindSpore's default alpha=0.2 where torch's negative_slope is 0.01",
    torch=lambda: tnn.LeakyReLU(), mindspore=lambda: mnn.LeakyReLU(), inputs=X,
    expect="fail", fails_with="value", diagnosis="leakyrelu-slope", tags=("activation", "known-bad"),
)

elu = PairedCase(
    doc="ELU with the default alpha=1.0 (the only alpha MindSpore 2.10's CPU Elu kernel accepts)",
    torch=lambda: tnn.ELU(), mindspore=lambda: mnn.ELU(), inputs=X, tags=("activation",),
)


class EluAlphaMs(mnn.Cell):
    """ELU(alpha=0.5) written out: nn.ELU(alpha=0.5) raises 'alpha must be 1.0f' on CPU."""

    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.where(x > 0, x, self.alpha * ops.expm1(ops.minimum(x, 0.0)))


elu_alpha = PairedCase(
    doc="ELU(alpha=0.5) ported as where(x > 0, x, alpha * expm1(x)): nn.ELU has no CPU kernel for alpha != 1",
    torch=lambda: tnn.ELU(alpha=0.5), mindspore=lambda: EluAlphaMs(0.5), inputs=X, tags=("activation",),
)

gelu_exact = PairedCase(
    doc="GELU (torch default: exact erf form) needs approximate=False: MindSpore's nn.GELU defaults to the tanh form",
    torch=lambda: tnn.GELU(), mindspore=lambda: mnn.GELU(approximate=False), inputs=X, tags=("activation", "gelu"),
)

gelu_tanh = PairedCase(
    doc="GELU(approximate='tanh') is nn.GELU(approximate=True)",
    torch=lambda: tnn.GELU(approximate="tanh"), mindspore=lambda: mnn.GELU(approximate=True), inputs=X,
    tags=("activation", "gelu"),
)

gelu_default_tanh = PairedCase(
    doc="known-bad: nn.GELU() left at its default tanh approximation against torch's exact GELU (~1e-4 apart)",
    torch=lambda: tnn.GELU(), mindspore=lambda: mnn.GELU(), inputs=X,
    expect="fail", fails_with="value", diagnosis="gelu-approximate", tags=("activation", "gelu", "known-bad"),
)

silu = PairedCase(
    doc="SiLU (x * sigmoid(x))",
    torch=lambda: tnn.SiLU(), mindspore=lambda: mnn.SiLU(), inputs=X, tags=("activation",),
)

prelu = PairedCase(
    doc="PReLU(num_parameters=4) is PReLU(channel=4) over axis 1; weight -> w",
    torch=lambda: tnn.PReLU(4), mindspore=lambda: mnn.PReLU(channel=4), inputs={"x": normal(2, 4, 3, 3)},
    tags=("activation",),
)

softmax_axis1 = PairedCase(
    doc="Softmax(dim=1) is Softmax(axis=1): the axis must be named, MindSpore's default is -1",
    torch=lambda: tnn.Softmax(dim=1), mindspore=lambda: mnn.Softmax(axis=1), inputs=X, tags=("activation", "softmax"),
)

log_softmax_last = PairedCase(
    doc="LogSoftmax(dim=-1) is LogSoftmax(axis=-1)",
    torch=lambda: tnn.LogSoftmax(dim=-1), mindspore=lambda: mnn.LogSoftmax(axis=-1), inputs=X,
    tags=("activation", "softmax"),
)

softmax_wrong_axis = PairedCase(
    doc="known-bad: Softmax(dim=1) ported as nn.Softmax() normalises the last axis instead",
    torch=lambda: tnn.Softmax(dim=1), mindspore=lambda: mnn.Softmax(), inputs=X,
    expect="fail", fails_with="value", tags=("activation", "softmax", "known-bad"),
)


class DropoutMlpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 4)
        self.drop = tnn.Dropout(p=0.3)

    def forward(self, x):
        return self.drop(self.fc(x))


class DropoutMlpMs(mnn.Cell):
    def __init__(self, **dropout):
        super().__init__()
        self.fc = mnn.Dense(6, 4)
        self.drop = mnn.Dropout(**(dropout or {"p": 0.3}))

    def construct(self, x):
        return self.drop(self.fc(x))


dropout_eval = PairedCase(
    doc="Dropout(p=0.3) is Dropout(p=0.3) (not keep_prob=0.3); checked in eval only: train-mode masks are random",
    torch=DropoutMlpPt, mindspore=DropoutMlpMs, inputs={"x": uniform(2, 6)},
    checks=("forward", "backward"), tags=("dropout",),
)

# In train mode the masks are random on both sides: migcheck sees that torch does not reproduce its
# own output and compares the distribution instead (zeroed fraction, surviving scale).
dropout_train = PairedCase(
    doc="Dropout(p=0.3) in train mode: outputs compared by distribution, since no two runs draw the same mask",
    torch=DropoutMlpPt, mindspore=DropoutMlpMs, inputs={"x": uniform(64, 6)},
    checks=("train",), tags=("dropout",),
)

dropout_train_keep_prob = PairedCase(
    doc="known-bad: torch's p=0.3 ported as keep_prob=0.3 drops 70% in train mode; the distribution shows it",
    torch=DropoutMlpPt, mindspore=lambda: DropoutMlpMs(keep_prob=0.3), inputs={"x": uniform(64, 6)},
    checks=("train",), expect="fail", fails_with="value", tags=("dropout", "known-bad"),
)


class ScaledTanhMs(mnn.Cell):
    def construct(self, x):
        return ops.tanh(x) * 2.0 + ops.sigmoid(x)


class ScaledTanhPt(tnn.Module):
    def forward(self, x):
        return x.tanh() * 2.0 + x.sigmoid()


tanh_sigmoid_functional = PairedCase(
    doc="functional tanh/sigmoid: tensor methods in torch, mindspore.ops functions; inputs within |x| < 2.5",
    torch=ScaledTanhPt, mindspore=ScaledTanhMs, inputs={"x": uniform(2, 4, 6, low=-2.5, high=2.5)},
    tags=("activation",),
)

tanh_saturated = PairedCase(
    doc="known-bad: MindSpore 2.10's CPU tanh is off by up to 1e-4 for |x| > 3.8 (torch ~3e-8): not a port bug",
    torch=lambda: tnn.Tanh(), mindspore=lambda: mnn.Tanh(), inputs={"x": uniform(2, 4, 6, low=4.0, high=6.0)},
    checks=("forward",), expect="fail", fails_with="value", tags=("activation", "known-bad", "framework"),
)
