"""Blind held-out corpus (issue 15): single-API pitfalls and three model blocks written WITHOUT reading
migcheck's localization code or the other corpus entries' expected causes.

Each entry pairs a naive port (one realistic porting mistake, or two in the blocks) with its correct port.
Names start with ``blind_`` so ``python -m evaluation.score -k blind`` selects them; families ``blind``
(single-API) and ``blind-port`` (model blocks) get rows of their own in the score tables.
"""
from __future__ import annotations

import dataclasses
import math

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops
from torch import nn as tnn

from migcheck.case import FrameworkPair
from migcheck.specs import given, integers, mask, uniform
from evaluation.corpus.build import entry

B = "blind"


# --------------------------------------------------------------------------- activations (one leaf 'act')
class ActPt(tnn.Module):
    def __init__(self, act: tnn.Module):
        super().__init__()
        self.fc = tnn.Linear(6, 6)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


class ActMs(mnn.Cell):
    def __init__(self, act: mnn.Cell):
        super().__init__()
        self.fc = mnn.Dense(6, 6)
        self.act = act

    def construct(self, x):
        return self.act(self.fc(x))


class SoftplusMs(mnn.Cell):
    """mindspore.nn has no Softplus: the porter writes one around ops.softplus."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def construct(self, x):
        return ops.softplus(x, beta=self.beta, threshold=self.threshold)


class KerasHardSigmoidMs(mnn.Cell):
    """A hard sigmoid written from the Keras/TF definition: clip(0.2 x + 0.5, 0, 1)."""

    def construct(self, x):
        return ops.clamp(0.2 * x + 0.5, 0.0, 1.0)


# --------------------------------------------------------------------------- pixel shuffle
class ShufflePt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(4, 16, 1)
        self.shuffle = tnn.PixelShuffle(2)

    def forward(self, x):
        return self.shuffle(self.conv(x))


class DepthToSpaceMs(mnn.Cell):
    def __init__(self, block: int):
        super().__init__()
        self.op = ops.DepthToSpace(block)

    def construct(self, x):
        return self.op(x)


class ShuffleMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.conv = mnn.Conv2d(4, 16, 1, has_bias=True)
        self.shuffle = DepthToSpaceMs(2) if naive else mnn.PixelShuffle(2)

    def construct(self, x):
        return self.shuffle(self.conv(x))


# --------------------------------------------------------------------------- padding layers
class PadConvPt(tnn.Module):
    def __init__(self, pad: tnn.Module):
        super().__init__()
        self.pad = pad
        self.conv = tnn.Conv2d(2, 3, 1)

    def forward(self, x):
        return self.conv(self.pad(x))


class PadConvMs(mnn.Cell):
    def __init__(self, pad: mnn.Cell):
        super().__init__()
        self.pad = pad
        self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)

    def construct(self, x):
        return self.conv(self.pad(x))


# --------------------------------------------------------------------------- nearest upsampling
class UpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 2, 1)
        self.up = tnn.Upsample(size=(7, 7), mode="nearest")  # 5 -> 7: a non-integer scale

    def forward(self, x):
        return self.up(self.conv(x))


class NearestMs(mnn.Cell):
    def __init__(self, size, align_corners: bool):
        super().__init__()
        self.op = ops.ResizeNearestNeighbor(size, align_corners=align_corners)

    def construct(self, x):
        return self.op(x)


class UpMs(mnn.Cell):
    def __init__(self, align_corners: bool):
        super().__init__()
        self.conv = mnn.Conv2d(2, 2, 1, has_bias=True)
        self.up = NearestMs((7, 7), align_corners)

    def construct(self, x):
        return self.up(self.conv(x))


# --------------------------------------------------------------------------- conv3d
class Conv3dPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv3d(2, 4, 3, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)


class Conv3dMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.conv = (mnn.Conv3d(2, 4, 3, stride=2, has_bias=True) if naive else
                     mnn.Conv3d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True))

    def construct(self, x):
        return self.conv(x)


# --------------------------------------------------------------------------- embedding max_norm
class EmbPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.emb = tnn.Embedding(10, 4, max_norm=0.05)
        self.fc = tnn.Linear(4, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids))


class MaxNormEmbeddingMs(mnn.Cell):
    """nn.Embedding with torch's max_norm: rows looked up are scaled to norm <= max_norm."""

    def __init__(self, vocab: int, dim: int, max_norm: float):
        super().__init__()
        self.inner = mnn.Embedding(vocab, dim)
        self.max_norm = max_norm

    def construct(self, ids):
        x = self.inner(ids)
        n = ops.norm(x, dim=-1, keepdim=True)
        return x * ops.minimum(ops.ones_like(n), self.max_norm / (n + 1e-7))


class EmbMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.emb = mnn.Embedding(10, 4) if naive else MaxNormEmbeddingMs(10, 4, 0.05)
        self.fc = mnn.Dense(4, 3)

    def construct(self, ids):
        return self.fc(self.emb(ids))


def _emb_map(name):
    return {"emb.weight": "emb.embedding_table"}.get(name, name)


def _emb_map_correct(name):
    return {"emb.weight": "emb.inner.embedding_table"}.get(name, name)


# --------------------------------------------------------------------------- patch unfold
class PatchPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.unfold = tnn.Unfold(kernel_size=2, stride=2)
        self.proj = tnn.Linear(8, 5)

    def forward(self, x):
        return self.proj(self.unfold(x).transpose(1, 2))


class PatchifyMs(mnn.Cell):
    """Patch extraction by reshape, as in 'b c (h p1) (w p2) -> b (p1 p2 c) (h w)' (naive: channel last)."""

    def __init__(self, naive: bool):
        super().__init__()
        self.naive = naive

    def construct(self, x):
        if not self.naive:
            return ops.unfold(x, 2, stride=2)
        n, c, h, w = x.shape
        x = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 3, 5, 1, 2, 4)  # (n, p1, p2, c, h, w)
        return x.reshape(n, 4 * c, (h // 2) * (w // 2))


class PatchMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.unfold = PatchifyMs(naive)
        self.proj = mnn.Dense(8, 5)

    def construct(self, x):
        return self.proj(self.unfold(x).transpose(0, 2, 1))


# --------------------------------------------------------------------------- the entries
def _pair(torch_factory, ms_factory):
    return torch_factory, (lambda: ms_factory(True)), (lambda: ms_factory(False))


def _build():
    out = []
    out.append(entry("blind_softplus_beta", B, "Softplus", lambda: ActPt(tnn.Softplus(beta=2.0)),
                     lambda: ActMs(SoftplusMs()), lambda: ActMs(SoftplusMs(beta=2.0)), ("act",), ("beta",),
                     inputs=[uniform(3, 6, low=-3, high=3)]))
    out.append(entry("blind_celu_alpha", B, "CELU", lambda: ActPt(tnn.CELU(alpha=2.0)), lambda: ActMs(mnn.CELU()),
                     lambda: ActMs(mnn.CELU(alpha=2.0)), ("act",), ("alpha",), inputs=[uniform(3, 6, low=-3, high=3)]))
    out.append(entry("blind_hardtanh_range", B, "Hardtanh", lambda: ActPt(tnn.Hardtanh(-2.0, 2.0)),
                     lambda: ActMs(mnn.Hardtanh()), lambda: ActMs(mnn.Hardtanh(-2.0, 2.0)), ("act",),
                     ("min_val|max_val",), inputs=[uniform(3, 6, low=-4, high=4)]))
    out.append(entry("blind_hardsigmoid_keras", B, "Hardsigmoid", lambda: ActPt(tnn.Hardsigmoid()),
                     lambda: ActMs(KerasHardSigmoidMs()), lambda: ActMs(mnn.HSigmoid()), ("act",),
                     ("hsigmoid|hard sigmoid|hardsigmoid|slope|1/6",), inputs=[uniform(3, 6, low=-4, high=4)]))
    out.append(entry("blind_relu6_as_relu", B, "ReLU6", lambda: ActPt(tnn.ReLU6()), lambda: ActMs(mnn.ReLU()),
                     lambda: ActMs(mnn.ReLU6()), ("act",), ("relu6|clip|clamp|saturat|cap",),
                     inputs=[uniform(3, 6, low=-40, high=40)]))
    out.append(entry("blind_pixel_shuffle_depth_to_space", B, "PixelShuffle", *_pair(ShufflePt, ShuffleMs),
                     ("shuffle",), ("order|permut|depth|pixel|layout",), inputs=[uniform(1, 4, 3, 3)]))
    out.append(entry("blind_reflection_pad_symmetric", B, "ReflectionPad2d",
                     lambda: PadConvPt(tnn.ReflectionPad2d(1)),
                     lambda: PadConvMs(mnn.Pad(((0, 0), (0, 0), (1, 1), (1, 1)), mode="SYMMETRIC")),
                     lambda: PadConvMs(mnn.ReflectionPad2d(1)), ("pad",), ("reflect|symmetric|mode",),
                     inputs=[uniform(1, 2, 4, 4)]))
    out.append(entry("blind_zeropad_tuple_order", B, "ZeroPad2d", lambda: PadConvPt(tnn.ZeroPad2d((1, 0, 2, 0))),
                     lambda: PadConvMs(mnn.Pad(((0, 0), (0, 0), (1, 0), (2, 0)))),
                     lambda: PadConvMs(mnn.Pad(((0, 0), (0, 0), (2, 0), (1, 0)))), ("pad",),
                     ("padding|paddings|order|left|top",), inputs=[uniform(1, 2, 4, 4)], fails_with="shape"))
    out.append(entry("blind_nearest_align_corners", B, "ResizeNearestNeighbor", UpPt, lambda: UpMs(True),
                     lambda: UpMs(False), ("up",), ("align_corners|corner",), inputs=[uniform(1, 2, 5, 5)]))
    out.append(entry("blind_conv3d_default_same", B, "Conv3d", *_pair(Conv3dPt, Conv3dMs), ("conv",),
                     ("pad-mode|pad_mode",), inputs=[uniform(1, 2, 6, 6, 6)]))
    emb = entry("blind_embedding_max_norm", B, "Embedding", EmbPt, lambda: EmbMs(True), lambda: EmbMs(False),
                ("emb",), ("max_norm|renorm",), inputs={"ids": integers(2, 5, high=10)}, weight_map=_emb_map,
                checks=("forward",))
    out.append(dataclasses.replace(emb, correct=dataclasses.replace(emb.correct, weight_map=_emb_map_correct)))
    out.append(entry("blind_unfold_patch_order", B, "Unfold", *_pair(PatchPt, PatchMs), ("unfold",),
                     ("order|permut|layout|transpos",), inputs=[uniform(1, 2, 4, 4)]))
    return out


ENTRIES = _build()
