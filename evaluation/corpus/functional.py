"""Single-API differences of functional ops called inside forward/construct (Tensor methods and ops.*).

Each network is a Linear `fc` followed by the op; the expected place is "after:fc" (a functional op
between fc's output and the network's output).
"""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry
from migcheck import uniform


class FcPt(tnn.Module):
    def __init__(self, op, n_out=6):
        super().__init__()
        self.fc = tnn.Linear(4, n_out)
        self.op = op

    def forward(self, x):
        return self.op(self.fc(x))


class FcMs(mnn.Cell):
    def __init__(self, op, n_out=6):
        super().__init__()
        self.fc = mnn.Dense(4, n_out)
        self.op = op

    def construct(self, x):
        return self.op(self.fc(x))


class ConvPt(tnn.Module):
    def __init__(self, op):
        super().__init__()
        self.fc = tnn.Conv2d(2, 2, 1)
        self.op = op

    def forward(self, x):
        return self.op(self.fc(x))


class ConvMs(mnn.Cell):
    def __init__(self, op):
        super().__init__()
        self.fc = mnn.Conv2d(2, 2, 1, has_bias=True)
        self.op = op

    def construct(self, x):
        return self.op(self.fc(x))


def pt(op, n_out=6):
    return lambda: FcPt(op, n_out)


def msp(op, n_out=6):
    return lambda: FcMs(op, n_out)


X3 = {"x": uniform(2, 3, 4)}
AFTER = ["after:fc"]

ENTRIES = [
    entry("softmax_dim", "functional", "softmax", pt(lambda y: F.softmax(y, dim=1)),
          msp(lambda y: ops.softmax(y)), msp(lambda y: ops.softmax(y, axis=1)), AFTER, ["axis|dim"], inputs=X3),
    entry("log_softmax_dim", "functional", "log_softmax", pt(lambda y: F.log_softmax(y, dim=1)),
          msp(lambda y: ops.log_softmax(y)), msp(lambda y: ops.log_softmax(y, axis=1)), AFTER, ["axis|dim"], inputs=X3),
    entry("softmin_dim", "functional", "softmin", pt(lambda y: F.softmin(y, dim=1)),
          msp(lambda y: ops.softmin(y)), msp(lambda y: ops.softmin(y, axis=1)), AFTER, ["axis|dim"], inputs=X3),
    entry("std_unbiased", "functional", "std", pt(lambda y: y.std(dim=-1)),
          msp(lambda y: y.std(axis=-1)), msp(lambda y: y.std(axis=-1, ddof=1)), AFTER, ["ddof|unbiased|bessel"],
          inputs=X3),
    entry("var_unbiased", "functional", "var", pt(lambda y: torch.var(y, dim=-1)),
          msp(lambda y: y.var(axis=-1)), msp(lambda y: y.var(axis=-1, ddof=1)), AFTER, ["ddof|unbiased|bessel"],
          inputs=X3),
    entry("argmax_dim", "functional", "argmin", pt(lambda y: y.argmax(dim=1)),
          msp(lambda y: y.argmax()), msp(lambda y: y.argmax(axis=1)), AFTER, ["axis|dim"], inputs=X3,
          fails_with="shape"),
    entry("flatten_start_dim", "functional", "flatten", pt(lambda y: torch.flatten(y)),
          msp(lambda y: ops.flatten(y)), msp(lambda y: ops.flatten(y, start_dim=0)), AFTER,
          ["start_dim|flatten"], inputs=X3, fails_with="shape"),
    entry("l2_normalize_axis", "functional", "Normalize", pt(lambda y: F.normalize(y, dim=-1)),
          msp(lambda y: ops.L2Normalize()(y)), msp(lambda y: ops.L2Normalize(axis=-1, epsilon=1e-12)(y)), AFTER,
          ["axis|dim"], inputs=X3),
    entry("repeat_is_tile", "functional", "repeat", pt(lambda y: y.repeat(1, 2)),
          msp(lambda y: ops.repeat_elements(y, 2, axis=1)), msp(lambda y: ops.tile(y, (1, 2))), AFTER,
          ["order|permut|repeat|tile"], inputs={"x": uniform(3, 4)}),
    entry("dropout_functional_training", "functional", "drop_out", pt(lambda y: F.dropout(y, 0.5, training=False)),
          msp(lambda y: ops.dropout(y, p=0.5)), msp(lambda y: ops.dropout(y, p=0.5, training=False)), AFTER,
          ["dropout|random|training"], inputs={"x": uniform(8, 4)}),
    entry("interpolate_align_corners", "functional", "interpolate",
          lambda: ConvPt(lambda y: F.interpolate(y, size=(5, 4), mode="bilinear", align_corners=True)),
          lambda: ConvMs(lambda y: ops.interpolate(y, size=(5, 4), mode="bilinear")),
          lambda: ConvMs(lambda y: ops.interpolate(y, size=(5, 4), mode="bilinear", align_corners=True)),
          AFTER, ["align_corners|align-corners"], inputs={"x": uniform(1, 2, 3, 3)}),
    entry("gelu_functional_tanh", "functional", "mindspore.ops.gelu", pt(lambda y: F.gelu(y)),
          msp(lambda y: ops.gelu(y, approximate="tanh")), msp(lambda y: ops.gelu(y)), AFTER,
          ["gelu|approximat|tanh"], inputs={"x": uniform(2, 4, low=-3.0, high=3.0)}),
    entry("amax_default_axis", "functional", "amax", pt(lambda y: y.amax(dim=-1)),
          msp(lambda y: y.amax()), msp(lambda y: y.amax(axis=-1)), AFTER, ["axis|dim"], inputs=X3,
          fails_with="shape"),
    entry("prod_default_axis", "functional", "prod", pt(lambda y: y.prod(dim=-1)),
          msp(lambda y: y.prod()), msp(lambda y: y.prod(dim=-1)), AFTER, ["axis|dim"], inputs=X3,
          fails_with="shape"),
    entry("leaky_relu_default_slope", "functional", "leaky_relu", pt(lambda y: F.leaky_relu(y)),
          msp(lambda y: ops.leaky_relu(y)), msp(lambda y: ops.leaky_relu(y, alpha=0.01)), AFTER,
          ["slope|alpha"], inputs=X3),
]
