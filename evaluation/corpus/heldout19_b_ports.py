"""Held-out set 19, half b: small video, volumetric, medical and restoration blocks (family "h19-port").

Each block is written small in the style of its public MindSpore port, with one porting mistake in the naive port.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import uniform

P = "h19-port"
HAS_BIAS = r"\bhas_bias\s*=\s*True\b|\bhas_bias\b[^.]*\b(True|default[^.]*False|False[^.]*default)\b"


def _t():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return ms, mnn, ops


# 3-D UNet encoder (pytorch-3dunet Encoder: pooling first, then a double conv)
def _enc_torch():
    torch, tnn, F = _t()

    class Encoder(tnn.Module):
        def __init__(self):
            super().__init__()
            self.pooling = tnn.MaxPool3d(kernel_size=2)
            self.conv1 = tnn.Conv3d(2, 4, 3, padding=1)
            self.relu1 = tnn.ReLU()

        def forward(self, x):
            return self.relu1(self.conv1(self.pooling(x)))
    return Encoder()


def _enc_ms(good: bool):
    ms, mnn, ops = _m()

    class Encoder(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.pooling = mnn.MaxPool3d(kernel_size=2, stride=2) if good else mnn.MaxPool3d(kernel_size=2)
            self.conv1 = mnn.Conv3d(2, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.relu1 = mnn.ReLU()

        def construct(self, x):
            return self.relu1(self.conv1(self.pooling(x)))
    return Encoder()


# nnU-Net decoder stage: transposed conv (kernel = stride = pool size, bias on), skip concat, conv + LeakyReLU
def _dec_torch():
    torch, tnn, F = _t()

    class DecoderStage(tnn.Module):
        def __init__(self):
            super().__init__()
            self.transpconv = tnn.ConvTranspose3d(4, 2, 2, 2)
            self.conv = tnn.Conv3d(4, 2, 3, padding=1)
            self.nonlin = tnn.LeakyReLU(0.01)

        def forward(self, x, skip):
            up = self.transpconv(x)
            return self.nonlin(self.conv(torch.cat((up, skip), 1)))
    return DecoderStage()


def _dec_ms(good: bool):
    ms, mnn, ops = _m()

    class DecoderStage(mnn.Cell):
        def __init__(self):
            super().__init__()
            if good:
                self.transpconv = mnn.Conv3dTranspose(4, 2, 2, stride=2, pad_mode="valid", has_bias=True)
            else:
                self.transpconv = mnn.Conv3dTranspose(4, 2, 2, stride=2, pad_mode="valid")
            self.conv = mnn.Conv3d(4, 2, 3, pad_mode="pad", padding=1, has_bias=True)
            self.nonlin = mnn.LeakyReLU(alpha=0.01)

        def construct(self, x, skip):
            up = self.transpconv(x)
            return self.nonlin(self.conv(ops.cat((up, skip), 1)))
    return DecoderStage()


# MONAI UNet up path: ConvTranspose3d(k=3, stride=2, padding=1, output_padding=1) + PReLU
def _up_torch():
    torch, tnn, F = _t()

    class UpLayer(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.ConvTranspose3d(2, 2, 3, stride=2, padding=1, output_padding=1)
            self.act = tnn.PReLU()

        def forward(self, x):
            return self.act(self.conv(x))
    return UpLayer()


def _up_ms(good: bool):
    ms, mnn, ops = _m()

    class UpLayer(mnn.Cell):
        def __init__(self):
            super().__init__()
            if good:
                self.conv = mnn.Conv3dTranspose(2, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                                has_bias=True)
            else:
                self.conv = mnn.Conv3dTranspose(2, 2, 3, stride=2, has_bias=True)
            self.act = mnn.PReLU()

        def construct(self, x):
            return self.act(self.conv(x))
    return UpLayer()


# I3D Unit3D: conv (TF 'same' padding, no bias) + BatchNorm3d(eps=0.001, momentum=0.01) + ReLU
def _unit3d_torch():
    torch, tnn, F = _t()

    class Unit3D(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv3d = tnn.Conv3d(2, 4, 3, padding=1, bias=False)
            self.bn = tnn.BatchNorm3d(4, eps=0.001, momentum=0.01)

        def forward(self, x):
            return torch.relu(self.bn(self.conv3d(x)))
    return Unit3D()


def _unit3d_ms(good: bool):
    ms, mnn, ops = _m()

    class Unit3D(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv3d = mnn.Conv3d(2, 4, 3, pad_mode="same")
            self.bn = mnn.BatchNorm3d(4, eps=0.001, momentum=0.99) if good else mnn.BatchNorm3d(4, momentum=0.99)

        def construct(self, x):
            return ops.relu(self.bn(self.conv3d(x)))
    return Unit3D()


# NAFNet block (simplified): LayerNorm2d -> 1x1 conv to 2c -> SimpleGate -> 1x1 conv -> residual
def _naf_torch():
    torch, tnn, F = _t()

    class LayerNorm2d(tnn.Module):
        def __init__(self, c, eps=1e-6):
            super().__init__()
            self.weight = tnn.Parameter(torch.ones(c))
            self.bias = tnn.Parameter(torch.zeros(c))
            self.eps = eps

        def forward(self, x):
            mu = x.mean(1, keepdim=True)
            var = (x - mu).pow(2).mean(1, keepdim=True)
            y = (x - mu) / (var + self.eps).sqrt()
            return self.weight.view(1, -1, 1, 1) * y + self.bias.view(1, -1, 1, 1)

    class NAFBlock(tnn.Module):
        def __init__(self, c=4):
            super().__init__()
            self.norm1 = LayerNorm2d(c)
            self.conv1 = tnn.Conv2d(c, 2 * c, 1)
            self.conv3 = tnn.Conv2d(c, c, 1)

        def forward(self, inp):
            x = self.conv1(self.norm1(inp))
            x1, x2 = x.chunk(2, dim=1)
            return inp + self.conv3(x1 * x2)
    return NAFBlock()


def _naf_ms(good: bool):
    ms, mnn, ops = _m()

    class LayerNorm2d(mnn.Cell):
        def __init__(self, c, eps=1e-6):
            super().__init__()
            self.gamma = ms.Parameter(ms.Tensor(np.ones(c, np.float32)), name="gamma")
            self.beta = ms.Parameter(ms.Tensor(np.zeros(c, np.float32)), name="beta")
            self.eps = eps

        def construct(self, x):
            mu = x.mean(1, keep_dims=True)
            var = ops.square(x - mu).mean(1, keep_dims=True)
            y = (x - mu) / ops.sqrt(var + self.eps)
            return self.gamma.reshape(1, -1, 1, 1) * y + self.beta.reshape(1, -1, 1, 1)

    class NAFBlock(mnn.Cell):
        def __init__(self, c=4):
            super().__init__()
            self.norm1 = LayerNorm2d(c) if good else mnn.GroupNorm(1, c, eps=1e-6)
            self.conv1 = mnn.Conv2d(c, 2 * c, 1, has_bias=True)
            self.conv3 = mnn.Conv2d(c, c, 1, has_bias=True)

        def construct(self, inp):
            x = self.conv1(self.norm1(inp))
            x1, x2 = ops.chunk(x, 2, axis=1)
            return inp + self.conv3(x1 * x2)
    return NAFBlock()


_NAF_MAP = {"norm1.weight": "norm1.gamma", "norm1.bias": "norm1.beta", "conv1.weight": "conv1.weight",
            "conv1.bias": "conv1.bias", "conv3.weight": "conv3.weight", "conv3.bias": "conv3.bias"}


# Video Swin PatchEmbed3D: Conv3d(kernel = stride = patch size, bias on) -> tokens -> LayerNorm
def _vsw_torch():
    torch, tnn, F = _t()

    class PatchEmbed3D(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Conv3d(3, 8, kernel_size=(2, 2, 2), stride=(2, 2, 2))
            self.norm = tnn.LayerNorm(8)

        def forward(self, x):
            x = self.proj(x)
            b, c, d, h, w = x.shape
            return self.norm(x.flatten(2).transpose(1, 2))
    return PatchEmbed3D()


def _vsw_ms(good: bool):
    ms, mnn, ops = _m()

    class PatchEmbed3D(mnn.Cell):
        def __init__(self):
            super().__init__()
            if good:
                self.proj = mnn.Conv3d(3, 8, kernel_size=(2, 2, 2), stride=(2, 2, 2), pad_mode="valid",
                                       has_bias=True)
            else:
                self.proj = mnn.Conv3d(3, 8, kernel_size=(2, 2, 2), stride=(2, 2, 2), pad_mode="valid")
            self.norm = mnn.LayerNorm((8,), epsilon=1e-5)

        def construct(self, x):
            x = self.proj(x)
            b, c, d, h, w = x.shape
            return self.norm(x.reshape(b, c, d * h * w).transpose(0, 2, 1))
    return PatchEmbed3D()


# DnCNN (KAIR) middle layer: conv (no bias) + BatchNorm2d(momentum=0.9, eps=1e-4) + ReLU, residual noise
def _dn_torch():
    torch, tnn, F = _t()

    class DnCNN(tnn.Module):
        def __init__(self):
            super().__init__()
            self.head = tnn.Conv2d(1, 4, 3, padding=1)
            self.body_conv = tnn.Conv2d(4, 4, 3, padding=1, bias=False)
            self.body_bn = tnn.BatchNorm2d(4, momentum=0.9, eps=1e-04)
            self.tail = tnn.Conv2d(4, 1, 3, padding=1, bias=False)

        def forward(self, x):
            h = torch.relu(self.head(x))
            h = torch.relu(self.body_bn(self.body_conv(h)))
            return x - self.tail(h)
    return DnCNN()


def _dn_ms(good: bool):
    ms, mnn, ops = _m()

    class DnCNN(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.head = mnn.Conv2d(1, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.body_conv = mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1)
            self.body_bn = mnn.BatchNorm2d(4, momentum=0.1, eps=1e-04) if good else mnn.BatchNorm2d(4, momentum=0.1)
            self.tail = mnn.Conv2d(4, 1, 3, pad_mode="pad", padding=1)

        def construct(self, x):
            h = ops.relu(self.head(x))
            h = ops.relu(self.body_bn(self.body_conv(h)))
            return x - self.tail(h)
    return DnCNN()


# EDSR: MeanShift (1x1 conv, weight eye/std, bias -rgb_range*mean/std) -> head conv
def _edsr_torch():
    torch, tnn, F = _t()

    class MeanShift(tnn.Conv2d):
        def __init__(self, rgb_range=255, rgb_mean=(0.4488, 0.4371, 0.4040), rgb_std=(1.0, 1.0, 1.0), sign=-1):
            super().__init__(3, 3, kernel_size=1)
            std = torch.Tensor(rgb_std)
            self.weight.data = torch.eye(3).view(3, 3, 1, 1) / std.view(3, 1, 1, 1)
            self.bias.data = sign * rgb_range * torch.Tensor(rgb_mean) / std

    class EDSRHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.sub_mean = MeanShift()
            self.head = tnn.Conv2d(3, 4, 3, padding=1)

        def forward(self, x):
            return self.head(self.sub_mean(x))
    return EDSRHead()


def _edsr_ms(good: bool):
    ms, mnn, ops = _m()

    class EDSRHead(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.sub_mean = mnn.Conv2d(3, 3, 1, has_bias=True) if good else mnn.Conv2d(3, 3, 1)
            self.head = mnn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)

        def construct(self, x):
            return self.head(self.sub_mean(x))
    return EDSRHead()


ENTRIES = [
    entry("h19b_port_unet3d_encoder_maxpool3d_default_stride_one", P, "MaxPool3d", _enc_torch,
          lambda: _enc_ms(False), lambda: _enc_ms(True), ("pooling",), ("MaxPool3d|stride|default 1",),
          inputs={"x": uniform(1, 2, 4, 4, 4)}, fails_with="shape",
          cause_pattern=r"\bstride\b[^.]*\b(2|kernel_size|kernel size)\b"),
    entry("h19b_port_nnunet_decoder_transpconv_has_bias_default", P, "ConvTranspose3d", _dec_torch,
          lambda: _dec_ms(False), lambda: _dec_ms(True), ("transpconv",), ("has_bias|bias dropped",),
          inputs={"x": uniform(1, 4, 2, 2, 2), "skip": uniform(1, 2, 4, 4, 4)}, fails_with="structure",
          cause_pattern=HAS_BIAS),
    entry("h19b_port_monai_unet_up_conv3d_transpose_default_same_pad_mode", P, "ConvTranspose3d", _up_torch,
          lambda: _up_ms(False), lambda: _up_ms(True), ("conv",), ("pad_mode|padding|output_padding",),
          inputs={"x": uniform(1, 2, 2, 3, 3)},
          cause_pattern=r"\bpad_mode\s*=\s*['\"]pad['\"]|\boutput_padding\s*=\s*1\b|\bpadding\s*=\s*1\b|"
                        r"\bpad_mode\b[^.]*\bsame\b[^.]*\b(padding|output_padding)\b"),
    entry("h19b_port_i3d_unit3d_batchnorm3d_eps_dropped", P, "BatchNorm3d", _unit3d_torch,
          lambda: _unit3d_ms(False), lambda: _unit3d_ms(True), ("bn",), ("eps|0.001",),
          inputs={"x": uniform(1, 2, 3, 4, 4)},
          cause_pattern=r"\beps(ilon)?\b[^.]*\b(1e-0?3|0\.001)\b|\b(1e-0?3|0\.001)\b[^.]*\beps(ilon)?\b"),
    entry("h19b_port_nafnet_layernorm2d_as_groupnorm_one_group", P, "probe:NAFNet LayerNorm2d vs nn.GroupNorm(1, C)",
          _naf_torch, lambda: _naf_ms(False), lambda: _naf_ms(True), ("norm1",),
          ("LayerNorm2d|GroupNorm|per-pixel channel normalization",), inputs={"inp": uniform(2, 4, 3, 3)},
          weight_map=_NAF_MAP,
          cause_pattern=r"\b(LayerNorm2d|LayerNorm)\b[^.]*\b(channel|channels|axis\s*=?\s*1|per[- ]pixel|"
                        r"each (spatial )?(position|location|pixel))\b|\bGroupNorm\b[^.]*\b(C, ?H, ?W|all of|"
                        r"spatial|whole|entire)\b"),
    entry("h19b_port_video_swin_patch_embed3d_conv3d_has_bias_default", P, "Conv3d", _vsw_torch,
          lambda: _vsw_ms(False), lambda: _vsw_ms(True), ("proj",), ("has_bias|bias dropped",),
          inputs={"x": uniform(1, 3, 2, 4, 4)}, fails_with="structure", cause_pattern=HAS_BIAS),
    entry("h19b_port_dncnn_body_batchnorm2d_eps_1e_4_dropped", P, "BatchNorm2d", _dn_torch,
          lambda: _dn_ms(False), lambda: _dn_ms(True), ("body_bn",), ("eps|1e-4",),
          inputs={"x": uniform(1, 1, 5, 5)},
          cause_pattern=r"\beps(ilon)?\b[^.]*\b(1e-0?4|0\.0001)\b|\b(1e-0?4|0\.0001)\b[^.]*\beps(ilon)?\b"),
    entry("h19b_port_edsr_mean_shift_conv_has_bias_default", P, "Conv2d", _edsr_torch,
          lambda: _edsr_ms(False), lambda: _edsr_ms(True), ("sub_mean",), ("has_bias|bias dropped",),
          inputs={"x": uniform(1, 3, 4, 4, low=0.0, high=255.0)}, fails_with="structure",
          cause_pattern=HAS_BIAS),
]
