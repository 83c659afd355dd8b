"""Held-out set 6, half a: two small model blocks (family "h6-port", names h6a_port_*).

Written blind from the public architecture descriptions (no code copied): a TCN residual block (Bai, Kolter and
Koltun 2018, weight-normalised dilated causal convolutions) and the upsampling tail of the CycleGAN ResNet
generator (Zhu et al. 2017). Each naive port carries one realistic porting mistake; the correct port is the same
code with that one place right.
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck import uniform

FAMILY = "h6-port"


# ---------------------------------------------------------------------------------------------------------------
# TCN temporal block: weight_norm(Conv1d) -> chomp -> ReLU -> dropout, twice, plus a 1x1 residual projection.
# MindSpore has no weight_norm; the port keeps weight_g / weight_v and recomputes the weight. torch's weight_norm
# (dim=0) normalises each output channel's filter; the naive port divides by the norm of the whole tensor.
# ---------------------------------------------------------------------------------------------------------------

def _tcn_torch():
    import warnings

    import torch
    import torch.nn as nn

    def wn(conv):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return torch.nn.utils.weight_norm(conv)

    class TemporalBlock(nn.Module):
        def __init__(self, cin=3, cout=4, k=3, dilation=2):
            super().__init__()
            self.pad = (k - 1) * dilation
            self.conv1 = wn(nn.Conv1d(cin, cout, k, padding=self.pad, dilation=dilation))
            self.conv2 = wn(nn.Conv1d(cout, cout, k, padding=self.pad, dilation=dilation))
            self.dropout = nn.Dropout(0.2)
            self.downsample = nn.Conv1d(cin, cout, 1)

        def forward(self, x):
            out = self.conv1(x)[:, :, :-self.pad]
            out = self.dropout(torch.relu(out))
            out = self.conv2(out)[:, :, :-self.pad]
            out = self.dropout(torch.relu(out))
            return torch.relu(out + self.downsample(x))

    return TemporalBlock()


def _tcn_ms(per_channel):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops
        import numpy as np

        class WeightNormConv1d(nn.Cell):
            def __init__(self, cin, cout, k, dilation):
                super().__init__()
                self.pad = (k - 1) * dilation
                self.dilation = dilation
                self.weight_g = ms.Parameter(ms.Tensor(np.ones((cout, 1, 1), np.float32)), name="weight_g")
                self.weight_v = ms.Parameter(ms.Tensor(np.zeros((cout, cin, k), np.float32)), name="weight_v")
                self.bias = ms.Parameter(ms.Tensor(np.zeros((cout,), np.float32)), name="bias")

            def construct(self, x):
                v = self.weight_v
                if per_channel:
                    norm = ops.sqrt(ops.sum(v * v, dim=(1, 2), keepdim=True))
                else:
                    norm = ops.norm(v)
                w = self.weight_g * v / norm
                return ops.conv1d(x, w, self.bias, pad_mode="pad", padding=self.pad, dilation=self.dilation)

        class TemporalBlock(nn.Cell):
            def __init__(self, cin=3, cout=4, k=3, dilation=2):
                super().__init__()
                self.pad = (k - 1) * dilation
                self.conv1 = WeightNormConv1d(cin, cout, k, dilation)
                self.conv2 = WeightNormConv1d(cout, cout, k, dilation)
                self.dropout = nn.Dropout(p=0.2)
                self.downsample = nn.Conv1d(cin, cout, 1, has_bias=True)

            def construct(self, x):
                out = self.conv1(x)[:, :, :-self.pad]
                out = self.dropout(ops.relu(out))
                out = self.conv2(out)[:, :, :-self.pad]
                out = self.dropout(ops.relu(out))
                return ops.relu(out + self.downsample(x))

        return TemporalBlock()
    return make


TCN_WEIGHT_NORM = entry(
    "h6a_port_tcn_weight_norm_over_whole_tensor", FAMILY,
    "model: TCN temporal block (Bai, Kolter, Koltun 2018) with torch.nn.utils.weight_norm (dim=0)",
    _tcn_torch, _tcn_ms(False), _tcn_ms(True),
    layers=("conv1",), causes=("weight_norm|norm|dim|per output channel",),
    inputs={"x": uniform(2, 3, 10)},
    cause_pattern=r"\bper[- ](output[- ])?(channel|filter)\b|\beach output (channel|filter)\b"
                  r"|\b(dim|axis)\s*=\s*\(?\s*1\s*,\s*2\s*\)?|\bweight[_ ]norm\b[^.]*\bdim\s*=\s*0\b"
                  r"|\b(whole|entire) (weight )?tensor\b|\bfrobenius\b",
)


# ---------------------------------------------------------------------------------------------------------------
# CycleGAN ResNet generator, upsampling tail: ConvTranspose2d(k=3, s=2, padding=1, output_padding=1) -> BatchNorm
# -> ReLU, then ReflectionPad2d(3) -> Conv2d(7x7) -> Tanh. The naive port writes the transposed convolution with
# pad_mode='same', which also doubles the size but keeps the first 2*in rows/cols of the full output where torch
# keeps rows/cols 1..2*in: the output is shifted by one pixel.
# ---------------------------------------------------------------------------------------------------------------

def _cyclegan_torch():
    import torch.nn as nn

    class UpTail(nn.Module):
        def __init__(self, cin=4, ngf=2, cout=3):
            super().__init__()
            self.up = nn.ConvTranspose2d(cin, ngf, 3, stride=2, padding=1, output_padding=1, bias=False)
            self.norm = nn.BatchNorm2d(ngf)
            self.act = nn.ReLU(True)
            self.pad = nn.ReflectionPad2d(3)
            self.out_conv = nn.Conv2d(ngf, cout, 7)
            self.tanh = nn.Tanh()

        def forward(self, x):
            return self.tanh(self.out_conv(self.pad(self.act(self.norm(self.up(x))))))

    return UpTail()


def _cyclegan_ms(same):
    def make():
        import mindspore.nn as nn

        class UpTail(nn.Cell):
            def __init__(self, cin=4, ngf=2, cout=3):
                super().__init__()
                # torch's padding=1, output_padding=1 keeps rows/cols 1..2*in of the full (2*in+1) output;
                # MindSpore's output_padding zero-fills, so the correct port takes the full output and crops.
                self.up = nn.Conv2dTranspose(cin, ngf, 3, stride=2, pad_mode="same" if same else "valid",
                                             has_bias=False)
                self.norm = nn.BatchNorm2d(ngf, momentum=0.9)
                self.act = nn.ReLU()
                self.pad = nn.ReflectionPad2d(3)
                self.out_conv = nn.Conv2d(ngf, cout, 7, pad_mode="valid", has_bias=True)
                self.tanh = nn.Tanh()

            def construct(self, x):
                y = self.up(x)
                if not same:
                    y = y[:, :, 1:, 1:]
                return self.tanh(self.out_conv(self.pad(self.act(self.norm(y)))))

        return UpTail()
    return make


CYCLEGAN_UP = entry(
    "h6a_port_cyclegan_upsample_convtranspose_same", FAMILY,
    "model: CycleGAN ResNet generator upsampling (Zhu et al. 2017); Conv2dTranspose pad_mode",
    _cyclegan_torch, _cyclegan_ms(True), _cyclegan_ms(False),
    layers=("up",), causes=("pad_mode|padding|output_padding|same",),
    inputs={"x": uniform(2, 4, 4, 4)},
    cause_pattern=r"\bpad_mode\s*=\s*['\"](pad|valid)['\"]|\boutput_padding\s*=\s*1\b|\bpad_mode\b[^.]*\bsame\b"
                  r"|\bsame\b[^.]*\b(crop\w*|asymmetric\w*|shift\w*)\b",
)


ENTRIES = [TCN_WEIGHT_NORM, CYCLEGAN_UP]
