"""Held-out entries written after round 2's methods, to measure them on ports they were not tuned on.

Same pitfall families as the other corpora, in other APIs and other surroundings: 1-D pools, a ceil_mode
pool inside a CNN, BatchNorm1d momentum in an MLP, a LayerNorm written as a formula in construct,
log_softmax inside attention, losses called as functions in the port's own module, and a ConvNeXt block.
Their scores are reported as measured (evaluation/RESULTS.md, round 2), not tuned afterwards.
"""
import math

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry
from evaluation.corpus.layers import MsRenamed, pt
from migcheck import integers, uniform


class PoolNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.stem = tnn.Conv2d(2, 3, 1)
        self.pool = tnn.AvgPool2d(3, 2, ceil_mode=True)
        self.head = tnn.Conv2d(3, 2, 1)

    def forward(self, x):
        return self.head(self.pool(self.stem(x)))


class PoolNetMs(mnn.Cell):
    def __init__(self, ceil=True):
        super().__init__()
        self.conv0 = mnn.Conv2d(2, 3, 1, has_bias=True)
        self.avg = mnn.AvgPool2d(3, 2, pad_mode="pad", ceil_mode=True) if ceil else mnn.AvgPool2d(3, 2)
        self.out = mnn.Conv2d(3, 2, 1, has_bias=True)

    def construct(self, x):
        return self.out(self.avg(self.conv0(x)))


def _pool_map(name):
    return {"stem": "conv0", "head": "out"}[name.split(".")[0]] + "." + name.split(".", 1)[1]


class MlpBnPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 3)
        self.bn = tnn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.fc(x))


class MlpBnMs(mnn.Cell):
    def __init__(self, momentum=0.9):
        super().__init__()
        self.dense = mnn.Dense(4, 3)
        self.norm = mnn.BatchNorm1d(3, momentum=momentum)

    def construct(self, x):
        return self.norm(self.dense(x))


_BN = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}


def _mlp_bn_map(name):
    layer, leaf = name.split(".", 1)
    if leaf == "num_batches_tracked":
        return None
    return f"dense.{leaf}" if layer == "fc" else f"norm.{_BN[leaf]}"


class NormFormulaPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = tnn.Linear(4, 6), tnn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(F.layer_norm(self.fc1(x), (6,), eps=1e-2))


class NormFormulaMs(mnn.Cell):
    def __init__(self, eps=1e-2):
        super().__init__()
        self.fc1, self.fc2 = mnn.Dense(4, 6), mnn.Dense(6, 3)
        self.eps = eps

    def construct(self, x):
        h = self.fc1(x)
        mean = h.mean(axis=-1, keep_dims=True)
        var = ((h - mean) ** 2).mean(axis=-1, keep_dims=True)
        return self.fc2((h - mean) / ops.sqrt(var + self.eps))


class LogAttnPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.out = (tnn.Linear(4, 4) for _ in range(4))

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-1, -2) / 2.0
        return self.out(F.log_softmax(scores, dim=-1).exp() @ self.v(x))


class LogAttnMs(mnn.Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.q, self.k, self.v, self.out = (mnn.Dense(4, 4) for _ in range(4))
        self.axis = axis

    def construct(self, x):
        scores = ops.matmul(self.q(x), self.k(x).swapaxes(-1, -2)) / 2.0
        return self.out(ops.matmul(ops.exp(ops.log_softmax(scores, axis=self.axis)), self.v(x)))


class SmoothL1Pt(tnn.Module):
    def forward(self, pred, target):
        return F.smooth_l1_loss(pred.tanh(), target, beta=0.5)


class SmoothL1Ms(mnn.Cell):
    def __init__(self, beta=0.5):
        super().__init__()
        self.loss = mnn.SmoothL1Loss(beta=beta, reduction="mean")

    def construct(self, pred, target):
        return self.loss(ops.tanh(pred), target)


class NllPt(tnn.Module):
    def forward(self, logits, target):
        return F.nll_loss(F.log_softmax(logits, dim=1), target, ignore_index=1)


class NllMs(mnn.Cell):
    def __init__(self, ignore_index=1):
        super().__init__()
        self.loss = mnn.NLLLoss(ignore_index=ignore_index)

    def construct(self, logits, target):
        return self.loss(ops.log_softmax(logits, axis=1), target.astype(ms.int32))


class ConvNeXtPt(tnn.Module):
    """ConvNeXt block (public architecture): depthwise conv, channels-last LayerNorm, MLP, layer scale."""

    def __init__(self):
        super().__init__()
        self.dwconv = tnn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.norm = tnn.LayerNorm(4, eps=1e-6)
        self.pwconv1 = tnn.Linear(4, 8)
        self.act = tnn.GELU()
        self.pwconv2 = tnn.Linear(8, 4)
        self.gamma = tnn.Parameter(torch.full((4,), 0.5))

    def forward(self, x):
        h = self.dwconv(x).permute(0, 2, 3, 1)
        h = self.gamma * self.pwconv2(self.act(self.pwconv1(self.norm(h))))
        return x + h.permute(0, 3, 1, 2)


class ConvNeXtMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.dw = mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, group=4, has_bias=True)
        self.ln = mnn.LayerNorm((4,)) if bad else mnn.LayerNorm((4,), epsilon=1e-6)
        self.fc1 = mnn.Dense(4, 8)
        self.gelu = mnn.GELU() if bad else mnn.GELU(approximate=False)
        self.fc2 = mnn.Dense(8, 4)
        self.layer_scale = ms.Parameter(ms.Tensor([0.5] * 4, ms.float32))

    def construct(self, x):
        h = self.dw(x).transpose(0, 2, 3, 1)
        h = self.layer_scale * self.fc2(self.gelu(self.fc1(self.ln(h))))
        return x + h.transpose(0, 3, 1, 2)


def _convnext_map(name):
    if name == "gamma":
        return "layer_scale"
    layer, leaf = name.split(".", 1)
    new = {"dwconv": "dw", "norm": "ln", "pwconv1": "fc1", "pwconv2": "fc2"}[layer]
    return f"{new}.{ {'weight': 'gamma', 'bias': 'beta'}[leaf] if layer == 'norm' else leaf}"


def _renamed(make):
    return lambda: MsRenamed(make())


SEQ = {"x": uniform(2, 3, 8)}
PAIR = {"pred": uniform(4, 5, low=-2.0, high=2.0), "target": uniform(4, 5, low=-1.0, high=1.0)}

ENTRIES = [
    entry("r2_maxpool1d_default_stride", "layer", "MaxPool1d",
          pt(lambda: tnn.MaxPool1d(2)), _renamed(lambda: mnn.MaxPool1d(2)), _renamed(lambda: mnn.MaxPool1d(2, 2)),
          ["layer"], ["stride"], inputs=SEQ, fails_with="shape"),
    entry("r2_avgpool_ceil_in_cnn", "layer", "AvgPool2d", PoolNetPt, lambda: PoolNetMs(ceil=False), PoolNetMs,
          ["pool"], ["ceil_mode|ceil-mode"], inputs={"x": uniform(1, 2, 8, 8)}, fails_with="shape", weight_map=_pool_map),
    entry("r2_batchnorm1d_momentum_mlp", "layer", "BatchNorm1d", MlpBnPt, lambda: MlpBnMs(momentum=0.1), MlpBnMs,
          ["bn"], ["batchnorm-momentum"], inputs={"x": uniform(8, 4)}, checks=("train",), weight_map=_mlp_bn_map),
    entry("r2_layer_norm_formula_eps", "functional", "layer_norm", NormFormulaPt, lambda: NormFormulaMs(eps=1e-5),
          NormFormulaMs, ["after:fc1"], ["eps"], inputs={"x": uniform(3, 4, low=-0.3, high=0.3)}),
    entry("r2_log_softmax_in_attention", "functional", "log_softmax", LogAttnPt, lambda: LogAttnMs(axis=1),
          LogAttnMs, ["after:v"], ["axis|dim"], inputs={"x": uniform(2, 3, 4)}),
    entry("r2_smooth_l1_functional_beta", "loss", "SmoothL1Loss", SmoothL1Pt, lambda: SmoothL1Ms(beta=1.0), SmoothL1Ms,
          ["<root>"], ["beta"], inputs=PAIR),
    entry("r2_nll_functional_ignore_index", "loss", "NLLLoss", NllPt, lambda: NllMs(ignore_index=-100), NllMs,
          ["<root>"], ["ignore_index|ignore-index"], inputs={"logits": uniform(12, 3), "target": integers(12, high=3)}),
    entry("r2_convnext_block", "real-port", "model:ConvNeXt block", ConvNeXtPt, lambda: ConvNeXtMs(bad=True),
          ConvNeXtMs, ["norm", "act"], ["eps|epsilon", "gelu-approximate|approximat"],
          inputs={"x": uniform(2, 4, 5, 5)}, weight_map=_convnext_map),
]
