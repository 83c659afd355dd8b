"""Known-bad ports that need more than a layer-by-layer diff to diagnose, each with its correct twin.

- a renamed pool whose output *shape* differs (MindSpore's stride defaults to 1): paired by its inputs
  and kind, the stride confirmed by re-running torch's pool with MindSpore's value;
- a region of calls inside forward/construct (attention's softmax among q/k/v, a resize then a concat, a
  loss function on prepared targets): torch's own calls replayed with one setting changed;
- an integer output (argmax) behind a functional op: located between the sub-cells and compared exactly;
- causes that show only in gradients (Embedding padding_idx): confirmed by the gradients of torch's
  network with MindSpore's setting.
"""
import math

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

from migcheck import PairedCase, integers, uniform


class ConvPoolPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1)
        self.downsample = tnn.AvgPool2d(2)
        self.head = tnn.Conv2d(3, 2, 1)

    def forward(self, x):
        return self.head(self.downsample(self.conv(x)))


class ConvPoolMs(mnn.Cell):
    def __init__(self, stride=2):
        super().__init__()
        self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)
        self.pool = mnn.AvgPool2d(2, stride)  # renamed: not paired by name
        self.head = mnn.Conv2d(3, 2, 1, has_bias=True)

    def construct(self, x):
        return self.head(self.pool(self.conv(x)))


D, H = 6, 2  # model width, heads


class AttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (tnn.Linear(D, D) for _ in range(4))

    def forward(self, x):
        b, n, _ = x.shape
        split = lambda t: t.reshape(b, n, H, D // H).permute(0, 2, 1, 3)  # noqa: E731
        attn = torch.softmax(split(self.q(x)) @ split(self.k(x)).transpose(-2, -1) / math.sqrt(D // H), dim=-1)
        return self.o((attn @ split(self.v(x))).permute(0, 2, 1, 3).reshape(b, n, D))


class AttentionMs(mnn.Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.wq, self.wk, self.wv, self.proj = (mnn.Dense(D, D) for _ in range(4))
        self.axis = axis

    def construct(self, x):
        b, n, _ = x.shape
        q = self.wq(x).reshape(b, n, H, D // H).transpose(0, 2, 1, 3)
        k = self.wk(x).reshape(b, n, H, D // H).transpose(0, 2, 1, 3)
        v = self.wv(x).reshape(b, n, H, D // H).transpose(0, 2, 1, 3)
        attn = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(D // H), axis=self.axis)
        return self.proj(ops.matmul(attn, v).transpose(0, 2, 1, 3).reshape(b, n, D))


ATTENTION_MAP = {f"{t}.{leaf}": f"{m}.{leaf}" for t, m in (("q", "wq"), ("k", "wk"), ("v", "wv"), ("o", "proj"))
                 for leaf in ("weight", "bias")}


class UpConcatPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.lateral = tnn.Conv2d(2, 2, 1)
        self.merge = tnn.Conv2d(4, 2, 1)

    def forward(self, x, skip):
        up = F.interpolate(self.lateral(x), size=skip.shape[-2:], mode="bilinear", align_corners=False)
        return self.merge(torch.cat((skip, up), dim=1))


class UpConcatMs(mnn.Cell):
    def __init__(self, align_corners=False):
        super().__init__()
        self.lateral = mnn.Conv2d(2, 2, 1, has_bias=True)
        self.merge = mnn.Conv2d(4, 2, 1, has_bias=True)
        self.align_corners = align_corners

    def construct(self, x, skip):
        up = ops.interpolate(self.lateral(x), size=skip.shape[-2:], mode="bilinear", align_corners=self.align_corners)
        return self.merge(ops.cat((skip, up), axis=1))


WEIGHTS = np.array([1.0, 2.0, 0.5], np.float32)


class WeightedCePt(tnn.Module):
    """Class weights given to the functional loss, labels shifted as the data pipeline does."""

    def forward(self, logits, target):
        return F.cross_entropy(logits, (target % 3).long(), weight=torch.tensor(WEIGHTS))


class WeightedCeMs(mnn.Cell):
    def __init__(self, weighted=True):
        super().__init__()
        self.loss = mnn.CrossEntropyLoss(weight=ms.Tensor(WEIGHTS) if weighted else None)

    def construct(self, logits, target):
        return self.loss(logits, (target % 3).astype(ms.int32))


class ArgmaxPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 5)

    def forward(self, x):
        return self.fc(x).argmax(dim=-1)


class ArgmaxMs(mnn.Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.fc = mnn.Dense(4, 5)
        self.axis = axis

    def construct(self, x):
        return self.fc(x).argmax(axis=self.axis)


class EmbedPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = tnn.Embedding(7, 3, padding_idx=0)

    def forward(self, ids):
        return self.tokens(ids)


class EmbedMs(mnn.Cell):
    """MindSpore's Embedding(padding_idx=) zeroes the row at init but (on CPU) still gives it a gradient."""

    def __init__(self, stop_padding=True):
        super().__init__()
        self.tokens = mnn.Embedding(7, 3)
        self.stop_padding = stop_padding

    def construct(self, ids):
        out = self.tokens(ids)
        if self.stop_padding:
            out = ops.where((ids != 0).expand_dims(-1), out, ops.stop_gradient(out))
        return out


IMG = {"x": uniform(1, 2, 6, 6)}
SEQ = {"x": uniform(2, 3, D)}
PYRAMID = {"x": uniform(1, 2, 3, 3), "skip": uniform(1, 2, 5, 5)}
LOGITS = {"logits": uniform(5, 3, low=-2.0, high=2.0), "target": integers(5, high=6)}
IDS = {"ids": integers(2, 5, high=7)}
KNOWN_BAD = ("known-bad", "diagnosis")

renamed_pool = PairedCase(
    doc="AvgPool2d(2) ported under another name with stride=2 given", torch=ConvPoolPt, mindspore=ConvPoolMs,
    inputs=IMG, checks=("forward",), tags=("pooling",))
renamed_pool_default_stride = PairedCase(
    doc="known-bad: MindSpore's AvgPool2d(2) strides by 1 (torch's stride defaults to the kernel): another shape",
    torch=ConvPoolPt, mindspore=lambda: ConvPoolMs(stride=1), inputs=IMG, checks=("forward",), expect="fail",
    fails_with="shape", diagnosis="pool-stride", tags=KNOWN_BAD)
attention_softmax = PairedCase(
    doc="multi-head attention with its softmax over the keys", torch=AttentionPt, mindspore=AttentionMs,
    weight_map=ATTENTION_MAP, inputs=SEQ, checks=("forward",), tags=("attention",))
attention_softmax_wrong_axis = PairedCase(
    doc="known-bad: the port's softmax normalizes over the queries (axis=-2): one call among q/k/v matmuls",
    torch=AttentionPt, mindspore=lambda: AttentionMs(axis=-2), weight_map=ATTENTION_MAP, inputs=SEQ,
    checks=("forward",), expect="fail", fails_with="value", diagnosis="op-softmax", tags=KNOWN_BAD)
resize_concat = PairedCase(
    doc="a feature-pyramid merge: bilinear resize to the skip's size, then a concat",
    torch=UpConcatPt, mindspore=UpConcatMs, inputs=PYRAMID, checks=("forward",), tags=("interpolate",))
resize_concat_align_corners = PairedCase(
    doc="known-bad: the resize uses align_corners=True where torch's does not; a concat follows it",
    torch=UpConcatPt, mindspore=lambda: UpConcatMs(align_corners=True), inputs=PYRAMID, checks=("forward",),
    expect="fail", fails_with="value", diagnosis="op-interpolate", tags=KNOWN_BAD)
weighted_cross_entropy = PairedCase(
    doc="F.cross_entropy with class weights ported as nn.CrossEntropyLoss(weight=...)",
    torch=WeightedCePt, mindspore=WeightedCeMs, inputs=LOGITS, checks=("forward",), tags=("loss",))
weighted_cross_entropy_dropped = PairedCase(
    doc="known-bad: the class weights are dropped in the port's loss cell",
    torch=WeightedCePt, mindspore=lambda: WeightedCeMs(weighted=False), inputs=LOGITS, checks=("forward",),
    expect="fail", fails_with="value", diagnosis="op-cross_entropy", tags=KNOWN_BAD)
argmax_head = PairedCase(
    doc="an argmax over the classes in construct (an integer output)", torch=ArgmaxPt, mindspore=ArgmaxMs,
    inputs={"x": uniform(2, 5, 4)}, checks=("forward",), tags=("reduction",))
argmax_head_wrong_axis = PairedCase(
    doc="known-bad: argmax over the tokens, not the classes: located between 'fc' and the output, compared exactly",
    torch=ArgmaxPt, mindspore=lambda: ArgmaxMs(axis=1), inputs={"x": uniform(2, 5, 4)}, checks=("forward",),
    expect="fail", fails_with="value", diagnosis="op-argmax", tags=KNOWN_BAD)
padding_embedding = PairedCase(
    doc="Embedding(padding_idx=0): the port stops the padding row's gradient itself", torch=EmbedPt,
    mindspore=EmbedMs, inputs=IDS, checks=("backward",), tags=("embedding",))
padding_embedding_dropped = PairedCase(
    doc="known-bad: padding_idx dropped: same lookups, but the padding row gets a gradient",
    torch=EmbedPt, mindspore=lambda: EmbedMs(stop_padding=False), inputs=IDS, checks=("backward",),
    expect="fail", fails_with="value", diagnosis="embedding-padding-idx", tags=KNOWN_BAD)
