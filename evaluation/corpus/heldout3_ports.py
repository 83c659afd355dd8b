"""Held-out set 3 (blind), family "h3-port": small model blocks, each ported with one realistic mistake.

Written from the public architectures (an attention block calling scaled_dot_product_attention with a
boolean mask, a MobileNetV3-style squeeze-excitation gate, the Annotated Transformer's LayerNorm, a 1-D
UNet up block, a block padded with torch's last-dimension-first pad tuple); none copied from a port library.
"""
from __future__ import annotations

import math

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops

from evaluation.corpus.build import entry
from migcheck.specs import mask, uniform

FAM = "h3-port"


# -- 1. attention: SDPA's boolean attn_mask means "may attend" -----------------------------------------
class TorchSdpa(torch.nn.Module):
    def forward(self, q, k, v, keep):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


class TorchAttentionBlock(torch.nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = (torch.nn.Linear(dim, dim) for _ in range(3))
        self.attn = TorchSdpa()
        self.out = torch.nn.Linear(dim, dim)

    def split(self, t):
        b, n, d = t.shape
        return t.view(b, n, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x, m):
        keep = m | torch.eye(m.shape[-1], dtype=torch.bool)
        a = self.attn(self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x)), keep[:, None])
        b, h, n, d = a.shape
        return self.out(a.transpose(1, 2).reshape(b, n, h * d))


class MsAttention(mnn.Cell):
    def __init__(self, invert):
        super().__init__()
        self.invert = invert

    def construct(self, q, k, v, keep):
        scores = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(q.shape[-1])
        masked = ops.logical_not(keep) if self.invert else keep
        scores = ops.masked_fill(scores, masked, -1e9)
        return ops.matmul(ops.softmax(scores, -1), v)


def ms_attention_block(invert):
    class Block(mnn.Cell):
        def __init__(self, dim=8, heads=2):
            super().__init__()
            self.heads = heads
            self.q, self.k, self.v = mnn.Dense(dim, dim), mnn.Dense(dim, dim), mnn.Dense(dim, dim)
            self.attn = MsAttention(invert)
            self.out = mnn.Dense(dim, dim)

        def split(self, t):
            b, n, d = t.shape
            return ops.reshape(t, (b, n, self.heads, d // self.heads)).swapaxes(1, 2)

        def construct(self, x, m):
            keep = ops.logical_or(m, ops.eye(m.shape[-1], m.shape[-1], ms.bool_))
            a = self.attn(self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x)), keep.expand_dims(1))
            b, h, n, d = a.shape
            return self.out(ops.reshape(a.swapaxes(1, 2), (b, n, h * d)))
    return Block


attention_mask = entry(
    "h3p_sdpa_boolean_mask_inverted", FAM, "model:attention-sdpa", TorchAttentionBlock,
    ms_attention_block(invert=False), ms_attention_block(invert=True), ("attn",), ("attn_mask True = attend",),
    inputs={"x": uniform(2, 4, 8), "m": mask(2, 4, 4, p=0.6)},
    cause_pattern=r"\b(attn_)?mask\b[^.]*\b(invert(ed)?|True|keep|attend|negat(e|ed|ion)|logical_not)\b|~\s*mask")


# -- 2. squeeze-excitation with a hard-sigmoid gate -------------------------------------------------------
class TorchSE(torch.nn.Module):
    def __init__(self, c=8, r=4):
        super().__init__()
        self.reduce, self.act, self.expand = torch.nn.Linear(c, r), torch.nn.ReLU(), torch.nn.Linear(r, c)
        self.gate = torch.nn.Hardsigmoid()

    def forward(self, h):
        s = self.gate(self.expand(self.act(self.reduce(h.mean(1)))))
        return h * s[:, None]


class TorchSEBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp, self.se, self.proj = torch.nn.Linear(4, 8), TorchSE(), torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.proj(self.se(self.inp(x)))


def ms_se_block(make_gate):
    class SE(mnn.Cell):
        def __init__(self, c=8, r=4):
            super().__init__()
            self.reduce, self.act, self.expand = mnn.Dense(c, r), mnn.ReLU(), mnn.Dense(r, c)
            self.gate = make_gate()

        def construct(self, h):
            s = self.gate(self.expand(self.act(self.reduce(h.mean(1)))))
            return h * s.expand_dims(1)

    class Block(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.inp, self.se, self.proj = mnn.Dense(4, 8), SE(), mnn.Dense(8, 4)

        def construct(self, x):
            return self.proj(self.se(self.inp(x)))
    return Block


se_gate = entry(
    "h3p_se_hardsigmoid_as_sigmoid", FAM, "model:mobilenetv3-se", TorchSEBlock, ms_se_block(mnn.Sigmoid),
    ms_se_block(mnn.HSigmoid), ("se.gate",), ("Hardsigmoid",), inputs={"x": uniform(2, 5, 4, low=-2.0, high=2.0)},
    cause_pattern=r"\bh(ard)?_?sigmoid\b")


# -- 3. the Annotated Transformer's LayerNorm (std, unbiased) ----------------------------------------------
class TorchStdLayerNorm(torch.nn.Module):
    def __init__(self, c=8, eps=1e-6):
        super().__init__()
        self.a_2, self.b_2, self.eps = torch.nn.Parameter(torch.ones(c)), torch.nn.Parameter(torch.zeros(c)), eps

    def forward(self, x):
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class TorchFFNSublayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = TorchStdLayerNorm()
        self.w_1, self.w_2 = torch.nn.Linear(8, 16), torch.nn.Linear(16, 8)

    def forward(self, x):
        return x + self.w_2(torch.relu(self.w_1(self.norm(x))))


def ms_ffn_sublayer(ddof):
    class StdLayerNorm(mnn.Cell):
        def __init__(self, c=8, eps=1e-6):
            super().__init__()
            self.a_2 = ms.Parameter(ops.ones(c, ms.float32), name="a_2")
            self.b_2 = ms.Parameter(ops.zeros(c, ms.float32), name="b_2")
            self.eps = eps

        def construct(self, x):
            mean = x.mean(-1, keep_dims=True)
            std = x.std(-1, ddof=ddof, keepdims=True) if ddof else x.std(-1, keepdims=True)
            return self.a_2 * (x - mean) / (std + self.eps) + self.b_2

    class Sublayer(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.norm = StdLayerNorm()
            self.w_1, self.w_2 = mnn.Dense(8, 16), mnn.Dense(16, 8)

        def construct(self, x):
            return x + self.w_2(ops.relu(self.w_1(self.norm(x))))
    return Sublayer


std_layernorm = entry(
    "h3p_annotated_layernorm_std_ddof", FAM, "model:annotated-transformer", TorchFFNSublayer, ms_ffn_sublayer(0),
    ms_ffn_sublayer(1), ("norm",), ("ddof|unbiased",), inputs={"x": uniform(2, 3, 8)},
    cause_pattern=r"\b(ddof|unbiased|correction|bessel)\b")


# -- 4. 1-D UNet up block: linear upsampling ---------------------------------------------------------------
class TorchUpBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.reduce = torch.nn.Linear(4, 4)
        self.up = torch.nn.Upsample(scale_factor=2, mode="linear")
        self.fuse = torch.nn.Linear(8, 4)

    def forward(self, x, skip):  # x (N, L, C), skip (N, 2L, C)
        up = self.up(self.reduce(x).transpose(1, 2)).transpose(1, 2)
        return self.fuse(torch.cat([up, skip], -1))


class MsUpsampleLinear(mnn.Cell):
    def __init__(self, mode):
        super().__init__()
        self.resize = ops.ResizeLinear1D(coordinate_transformation_mode=mode) if mode else ops.ResizeLinear1D()

    def construct(self, x):
        return self.resize(x, ms.Tensor(np.array([x.shape[-1] * 2], np.int64)))


def ms_up_block(mode):
    class UpBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.reduce = mnn.Dense(4, 4)
            self.up = MsUpsampleLinear(mode)
            self.fuse = mnn.Dense(8, 4)

        def construct(self, x, skip):
            up = self.up(self.reduce(x).swapaxes(1, 2)).swapaxes(1, 2)
            return self.fuse(ops.cat([up, skip], -1))
    return UpBlock


unet_up = entry(
    "h3p_unet_up_linear_align_corners", FAM, "model:unet-1d-up", TorchUpBlock, ms_up_block(None),
    ms_up_block("half_pixel"), ("up",), ("align_corners|half_pixel",),
    inputs={"x": uniform(2, 3, 4), "skip": uniform(2, 6, 4)},
    cause_pattern=r"\balign_corners\b|\bhalf_pixel\b|\bcoordinate_transformation_mode\b")


# -- 5. a block padded with torch's pad tuple (last dimension first) ------------------------------------
class TorchPadBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp, self.out = torch.nn.Linear(4, 4), torch.nn.Linear(5, 3)

    def forward(self, x):  # (N, C, T): T padded 1 on the left, C 1 at the end
        return self.out(F.pad(self.inp(x), (1, 0, 0, 1)))


def ms_pad_block(paddings):
    class PadBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.inp, self.out = mnn.Dense(4, 4), mnn.Dense(5, 3)
            self.pad = ops.Pad(paddings)

        def construct(self, x):
            return self.out(self.pad(self.inp(x)))
    return PadBlock


pad_order = entry(
    "h3p_pad_tuple_read_first_dim_first", FAM, "model:pad-order", TorchPadBlock,
    ms_pad_block(((0, 0), (1, 0), (0, 1))), ms_pad_block(((0, 0), (0, 1), (1, 0))), ("after:inp",),
    ("paddings order",), inputs={"x": uniform(2, 4, 4)},
    cause_pattern=r"\bpaddings?\b[^.]*\b(order|reverse[ds]?|last (dim|axis))\b|\(\s*0,\s*1\s*\),\s*\(\s*1,\s*0\s*\)")

ENTRIES = [attention_mask, se_gate, std_layernorm, unet_up, pad_order]
