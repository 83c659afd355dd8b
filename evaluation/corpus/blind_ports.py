"""Blind held-out corpus (issue 15), model blocks: a Swin window attention, an EfficientNet MBConv and a
Transformer decoder layer, each ported the way porters write them with one or two injected mistakes.

Written without reading migcheck's localization code or the other corpus entries' expected causes.
"""
from __future__ import annotations

import math

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops
from torch import nn as tnn

from migcheck.specs import uniform
from evaluation.corpus.build import entry

P = "blind-port"


# --------------------------------------------------------------------------- block 1: Swin window attention
WS, HEADS, DIM = 2, 2, 8  # window 2x2 -> N = 4 tokens


def _relative_index() -> np.ndarray:
    coords = np.stack(np.meshgrid(np.arange(WS), np.arange(WS), indexing="ij")).reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0) + (WS - 1)
    return rel[:, :, 0] * (2 * WS - 1) + rel[:, :, 1]


class WindowAttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.scale = (DIM // HEADS) ** -0.5
        self.relative_position_bias_table = tnn.Parameter(torch.zeros((2 * WS - 1) ** 2, HEADS))
        self.register_buffer("relative_position_index", torch.tensor(_relative_index()), persistent=False)
        self.qkv = tnn.Linear(DIM, 3 * DIM)
        self.proj = tnn.Linear(DIM, DIM)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, HEADS, c // HEADS).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(n, n, -1)
        attn = attn + bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class WindowAttentionMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.scale = (DIM // HEADS) ** -0.5
        self.relative_position_bias_table = ms.Parameter(ms.Tensor(np.zeros(((2 * WS - 1) ** 2, HEADS), np.float32)))
        self.relative_position_index = ms.Tensor(_relative_index().reshape(-1).astype(np.int32))
        self.qkv = mnn.Dense(DIM, 3 * DIM)
        self.proj = mnn.Dense(DIM, DIM)
        self.naive = naive

    def construct(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, HEADS, c // HEADS).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ops.matmul(q * self.scale, k.swapaxes(-2, -1))
        bias = ops.gather(self.relative_position_bias_table, self.relative_position_index, 0)
        if self.naive:  # reshaped straight to (heads, n, n) instead of permuting (n, n, heads)
            bias = bias.reshape(HEADS, n, n)
        else:
            bias = bias.reshape(n, n, HEADS).transpose(2, 0, 1)
        attn = ops.softmax(attn + bias.expand_dims(0), axis=-1)
        return self.proj(ops.matmul(attn, v).swapaxes(1, 2).reshape(b, n, c))


# --------------------------------------------------------------------------- block 2: EfficientNet MBConv
class SqueezeExcitePt(tnn.Module):
    def __init__(self, c: int, r: int):
        super().__init__()
        self.reduce = tnn.Conv2d(c, r, 1)
        self.expand = tnn.Conv2d(r, c, 1)
        self.act = tnn.SiLU()
        self.gate = tnn.Sigmoid()

    def forward(self, x):
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.expand(self.act(self.reduce(s))))


class MBConvPt(tnn.Module):
    """EfficientNet-B0 style MBConv: expand 1x1, depthwise 5x5 stride 2, SE, project 1x1 (no residual)."""

    def __init__(self):
        super().__init__()
        self.expand_conv = tnn.Conv2d(4, 8, 1, bias=False)
        self.bn0 = tnn.BatchNorm2d(8, eps=1e-3)
        self.dw_conv = tnn.Conv2d(8, 8, 5, stride=2, padding=2, groups=8, bias=False)
        self.bn1 = tnn.BatchNorm2d(8, eps=1e-3)
        self.act = tnn.SiLU()
        self.se = SqueezeExcitePt(8, 2)
        self.project_conv = tnn.Conv2d(8, 6, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(6, eps=1e-3)

    def forward(self, x):
        x = self.act(self.bn0(self.expand_conv(x)))
        x = self.act(self.bn1(self.dw_conv(x)))
        return self.bn2(self.project_conv(self.se(x)))


class SqueezeExciteMs(mnn.Cell):
    def __init__(self, c: int, r: int, naive: bool):
        super().__init__()
        self.conv_reduce = mnn.Conv2d(c, r, 1, has_bias=True)
        self.conv_expand = mnn.Conv2d(r, c, 1, has_bias=True)
        self.act = mnn.SiLU()
        self.gate = mnn.HSigmoid() if naive else mnn.Sigmoid()  # naive: MobileNetV3's SE reused

    def construct(self, x):
        s = ops.mean(x, (2, 3), keep_dims=True)
        return x * self.gate(self.conv_expand(self.act(self.conv_reduce(s))))


class MBConvMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.conv_pw = mnn.Conv2d(4, 8, 1)
        self.bn_pw = mnn.BatchNorm2d(8, eps=1e-3)
        self.act_pw = mnn.SiLU()
        dw = dict(pad_mode="same") if naive else dict(pad_mode="pad", padding=2)
        self.conv_dw = mnn.Conv2d(8, 8, 5, stride=2, group=8, **dw)
        self.bn_dw = mnn.BatchNorm2d(8, eps=1e-3)
        self.act_dw = mnn.SiLU()
        self.se = SqueezeExciteMs(8, 2, naive)
        self.conv_pwl = mnn.Conv2d(8, 6, 1)
        self.bn_pwl = mnn.BatchNorm2d(6, eps=1e-3)

    def construct(self, x):
        x = self.act_pw(self.bn_pw(self.conv_pw(x)))
        x = self.act_dw(self.bn_dw(self.conv_dw(x)))
        return self.bn_pwl(self.conv_pwl(self.se(x)))


def _mbconv_map(name: str):
    if name.endswith("num_batches_tracked"):
        return None
    for old, new in (("expand_conv.", "conv_pw."), ("bn0.", "bn_pw."), ("dw_conv.", "conv_dw."), ("bn1.", "bn_dw."),
                     ("project_conv.", "conv_pwl."), ("bn2.", "bn_pwl."), ("se.reduce.", "se.conv_reduce."),
                     ("se.expand.", "se.conv_expand.")):
        if name.startswith(old):
            leaf = name[len(old):]
            if old.startswith("bn"):
                leaf = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean",
                        "running_var": "moving_variance"}[leaf]
            return new + leaf
    return name


# --------------------------------------------------------------------------- block 3: Transformer decoder layer
D, H = 8, 2


class AttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.q = tnn.Linear(D, D)
        self.k = tnn.Linear(D, D)
        self.v = tnn.Linear(D, D)
        self.o = tnn.Linear(D, D)

    def forward(self, x, mem, mask=None):
        b, t, _ = x.shape
        s = mem.shape[1]
        q = self.q(x).view(b, t, H, D // H).transpose(1, 2)
        k = self.k(mem).view(b, s, H, D // H).transpose(1, 2)
        v = self.v(mem).view(b, s, H, D // H).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
        if mask is not None:
            scores = scores.masked_fill(mask, float("-inf"))
        return self.o((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, D))


class DecoderLayerPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = AttentionPt()
        self.norm1 = tnn.LayerNorm(D)
        self.cross_attn = AttentionPt()
        self.norm2 = tnn.LayerNorm(D)
        self.ff1 = tnn.Linear(D, 2 * D)
        self.ff2 = tnn.Linear(2 * D, D)
        self.norm3 = tnn.LayerNorm(D)

    def forward(self, x, memory):
        t = x.shape[1]
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        x = self.norm1(x + self.self_attn(x, x, causal))
        x = self.norm2(x + self.cross_attn(x, memory))
        return self.norm3(x + self.ff2(F.relu(self.ff1(x))))


class AttentionMs(mnn.Cell):
    def __init__(self, scale_dim: int):
        super().__init__()
        self.q = mnn.Dense(D, D)
        self.k = mnn.Dense(D, D)
        self.v = mnn.Dense(D, D)
        self.o = mnn.Dense(D, D)
        self.scale = 1.0 / math.sqrt(scale_dim)

    def construct(self, x, mem, mask=None):
        b, t, _ = x.shape
        s = mem.shape[1]
        q = self.q(x).reshape(b, t, H, D // H).swapaxes(1, 2)
        k = self.k(mem).reshape(b, s, H, D // H).swapaxes(1, 2)
        v = self.v(mem).reshape(b, s, H, D // H).swapaxes(1, 2)
        scores = ops.matmul(q, k.swapaxes(-2, -1)) * self.scale
        if mask is not None:
            scores = ops.masked_fill(scores, mask, float("-inf"))
        out = ops.matmul(ops.softmax(scores, axis=-1), v)
        return self.o(out.swapaxes(1, 2).reshape(b, t, D))


class DecoderLayerMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.self_attn = AttentionMs(D // H)
        self.norm1 = mnn.LayerNorm((D,), epsilon=1e-5)
        # naive: cross-attention scaled by the model width instead of the head width
        self.cross_attn = AttentionMs(D if naive else D // H)
        self.norm2 = mnn.LayerNorm((D,), epsilon=1e-5)
        self.ff1 = mnn.Dense(D, 2 * D)
        self.ff2 = mnn.Dense(2 * D, D)
        self.norm3 = mnn.LayerNorm((D,), epsilon=1e-5)
        self.diagonal = 0 if naive else 1

    def construct(self, x, memory):
        t = x.shape[1]
        causal = ops.triu(ops.ones((t, t), ms.float32), diagonal=self.diagonal).astype(ms.bool_)
        x = self.norm1(x + self.self_attn(x, x, causal))
        x = self.norm2(x + self.cross_attn(x, memory))
        return self.norm3(x + self.ff2(ops.relu(self.ff1(x))))


def _build():
    out = []
    out.append(entry("blind_swin_window_attention", P, "model:Swin Transformer WindowAttention (Liu et al. 2021)",
                     WindowAttentionPt, lambda: WindowAttentionMs(True), lambda: WindowAttentionMs(False),
                     ("after:qkv",), ("relative|bias|transpos|permut|order",), inputs=[uniform(2, 4, DIM)]))
    out.append(entry("blind_efficientnet_mbconv", P, "model:EfficientNet-B0 MBConv (Tan & Le 2019)",
                     MBConvPt, lambda: MBConvMs(True), lambda: MBConvMs(False), ("dw_conv", "se.gate"),
                     ("pad-mode|pad_mode", "hsigmoid|hard sigmoid|hardsigmoid|sigmoid"), inputs=[uniform(1, 4, 8, 8, low=-3, high=3)],
                     weight_map=_mbconv_map, checks=("forward",)))
    out.append(entry("blind_transformer_decoder_layer", P, "model:Transformer decoder layer (Vaswani et al. 2017)",
                     DecoderLayerPt, lambda: DecoderLayerMs(True), lambda: DecoderLayerMs(False),
                     ("after:self_attn.v", "after:cross_attn.v"), ("diagonal|triu|mask", "scale|sqrt"),
                     inputs={"x": uniform(2, 4, D), "memory": uniform(2, 3, D)}))
    return out


ENTRIES = _build()
