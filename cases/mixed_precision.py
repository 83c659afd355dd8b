"""Mixed precision: float16 (and bfloat16) runs with the migration guide's "whole net float16,
BatchNorm and loss float32" pattern, and the float16 mistakes ports make.

`precision=` runs both sides alike: MindSpore through Cell.to_float, torch through the same policy
(migcheck.precision). Weights stay float32 on both sides; tolerances are those of the compute dtype.
"""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from migcheck import FrameworkPair, PairedCase, Precision, uniform, with_precision
from migcheck.precision import FLOAT16_BATCHNORM_FLOAT32


class ConvBnPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 8, 3, padding=1)
        self.bn = tnn.BatchNorm2d(8)
        self.fc = tnn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.fc(torch.flatten(tnn.functional.avg_pool2d(y, 2), 1))


class ConvBnMs(mnn.Cell):
    def __init__(self, to_float16=None):
        super().__init__()
        self.conv = mnn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = mnn.BatchNorm2d(8, momentum=0.9)
        self.pool = mnn.AvgPool2d(2, 2)
        self.fc = mnn.Dense(8 * 4 * 4, 5)
        if to_float16:  # a port that hard-codes float16 in one layer
            getattr(self, to_float16).to_float(ms.float16)

    def construct(self, x):
        y = self.pool(ops.relu(self.bn(self.conv(x))))
        return self.fc(y.reshape(y.shape[0], -1))


conv_bn_float16 = PairedCase(
    doc="the migration guide's pattern: the whole network float16, BatchNorm and the loss float32; SGD step",
    torch=ConvBnPt, mindspore=ConvBnMs, inputs={"x": uniform(4, 3, 8, 8), "y": uniform(4, 5)}, targets=("y",),
    loss=FrameworkPair(torch=tnn.MSELoss, mindspore=mnn.MSELoss), optimizer="sgd",
    precision=FLOAT16_BATCHNORM_FLOAT32, tags=("precision",),
)

conv_bn_float16_everywhere = PairedCase(
    doc="the same network wholly float16, BatchNorm included (its running statistics stay float32 on both sides)",
    torch=ConvBnPt, mindspore=ConvBnMs, inputs=[(4, 3, 8, 8)], precision="float16", tags=("precision",),
)

dense_float16_in_port = PairedCase(
    doc="known-bad: the port hard-codes to_float(float16) on its last Dense while the original is float32",
    torch=ConvBnPt, mindspore=lambda: ConvBnMs(to_float16="fc"), inputs=[(4, 3, 8, 8)], checks=("forward",),
    expect="fail", fails_with="dtype", tags=("precision",),
)


class MlpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(16, 32)
        self.fc2 = tnn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class MlpMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(16, 32)
        self.fc2 = mnn.Dense(32, 8)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)))


mlp_float16 = PairedCase(doc="a float16 MLP with an Adam step", torch=MlpPt, mindspore=MlpMs,
                         inputs=[(8, 16)], optimizer="adam", precision="float16", tags=("precision",))
# The same pair in bfloat16, a line away. MindSpore 2.10's CPU kernels have no bfloat16: skipped on CPU.
mlp_bfloat16 = with_precision(mlp_float16, "bfloat16", name="mlp_bfloat16")


# RMSNorm, as LLaMA-style models write it: the mean of squares in float32, whatever the network's dtype.
# Inputs reach 400, so float16 squares (max 65504) overflow wherever that float32 step is lost.
class RMSNormPt(tnn.Module):
    def __init__(self, dim=16, eps=1e-6):
        super().__init__()
        self.weight = tnn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        v = x.float()
        v = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * v.type_as(x)


class RMSNormMs(mnn.Cell):
    def __init__(self, dim=16, eps=1e-6, upcast=True):
        super().__init__()
        self.weight = ms.Parameter(ops.ones(dim, ms.float32), name="weight")
        self.eps = eps
        self.upcast = upcast

    def construct(self, x):
        v = x.astype(ms.float32) if self.upcast else x
        v = v * ops.rsqrt((v * v).mean(-1, keep_dims=True) + self.eps)
        return self.weight * v.astype(x.dtype)


class NormHeadPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RMSNormPt()
        self.head = tnn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.norm(x))


class NormHeadMs(mnn.Cell):
    def __init__(self, upcast=True):
        super().__init__()
        self.norm = RMSNormMs(upcast=upcast)
        self.head = mnn.Dense(16, 4)

    def construct(self, x):
        return self.head(self.norm(x))


LARGE = {"x": uniform(4, 16, low=-400.0, high=400.0)}

rmsnorm_float16 = PairedCase(
    doc="RMSNorm kept float32 by class-name glob (both sides' classes start with RMSNorm), the head float16",
    torch=NormHeadPt, mindspore=NormHeadMs, inputs=LARGE, precision=Precision("float16", keep_float32=("RMSNorm*",)),
    tags=("precision",),
)

rmsnorm_upcast_undone_in_pynative = PairedCase(
    doc="known-bad in PYNATIVE only: a faithful port (astype(float32) before the squares), but PYNATIVE's"
        " to_float casts every op in the flagged cell back to float16, so the squares overflow; GRAPH keeps the"
        " cast. The fix: keep_float32=('RMSNorm*',), as rmsnorm_float16 does",
    torch=NormHeadPt, mindspore=NormHeadMs, inputs=LARGE, precision="float16", tags=("precision",),
    expect="fail", fails_with="value", fails_on=("pynative",), diagnosis="float16-overflow",
)

rmsnorm_without_upcast = PairedCase(
    doc="known-bad: the port squares in the input's dtype (no astype(float32)): inf in float16, in both modes",
    torch=NormHeadPt, mindspore=lambda: NormHeadMs(upcast=False), inputs=LARGE, precision="float16",
    tags=("precision",), expect="fail", fails_with="value", diagnosis="float16-overflow",
)
