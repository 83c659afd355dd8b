"""Held-out set 18, half b: single-API entries (family h18); the model blocks are in heldout18_b_ports.py.

Written blind (without reading the localization code). Each entry's naive port holds one porting mistake.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from evaluation.corpus.build import entry
from evaluation.corpus.heldout18_b_ports import ENTRIES as _PORTS
from migcheck import uniform

H18 = "h18"


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops

    return mindspore, mnn, ops


# ---------------------------------------------------------------- single-API: LSTM with proj_size

def lstmp_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = tnn.LSTM(5, 8, batch_first=True, proj_size=4)

        def forward(self, x):
            return self.lstm(x)[0]

    return Net()


def _lstmp_ms(manual):
    mindspore, mnn, ops = _ms()

    class LSTMP(mnn.Cell):
        """One-layer LSTM with a recurrent projection, torch's gate order (i, f, g, o) and parameter names."""

        def __init__(self, cin, hidden, proj):
            super().__init__()
            rng = np.random.RandomState(0)

            def p(shape, name):
                return mindspore.Parameter(mindspore.Tensor(rng.uniform(-0.3, 0.3, shape).astype(np.float32)),
                                           name=name)

            self.hidden, self.proj = hidden, proj
            self.weight_ih_l0 = p((4 * hidden, cin), "weight_ih_l0")
            self.weight_hh_l0 = p((4 * hidden, proj), "weight_hh_l0")
            self.bias_ih_l0 = p((4 * hidden,), "bias_ih_l0")
            self.bias_hh_l0 = p((4 * hidden,), "bias_hh_l0")
            self.weight_hr_l0 = p((proj, hidden), "weight_hr_l0")

        def construct(self, x):
            b, t, _ = x.shape
            h = ops.zeros((b, self.proj), mindspore.float32)
            c = ops.zeros((b, self.hidden), mindspore.float32)
            outs = []
            for step in range(t):
                gates = (ops.matmul(x[:, step], self.weight_ih_l0.T) + self.bias_ih_l0
                         + ops.matmul(h, self.weight_hh_l0.T) + self.bias_hh_l0)
                i, f, g, o = ops.split(gates, self.hidden, axis=1)
                c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
                h = ops.matmul(ops.sigmoid(o) * ops.tanh(c), self.weight_hr_l0.T)
                outs.append(h)
            return ops.stack(outs, axis=1)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = LSTMP(5, 8, 4) if manual else mnn.LSTM(5, 8, batch_first=True, proj_size=4)

        def construct(self, x):
            return self.lstm(x)

    return Net()


# ---------------------------------------------------------------- gradient-only: EnCodec-style VQ straight-through

def vq_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 4)
            self.embed = tnn.Parameter(torch.randn(6, 4))

        def forward(self, x):
            z = self.proj(x)
            dist = (z.pow(2).sum(-1, keepdim=True) - 2 * z @ self.embed.t() + self.embed.pow(2).sum(-1))
            idx = dist.argmin(-1)
            q = self.embed[idx]
            return z + (q - z).detach()

    return Net()


def _vq_ms(stop):
    mindspore, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 4)
            self.embed = mindspore.Parameter(mindspore.Tensor(np.random.RandomState(1).randn(6, 4)
                                                              .astype(np.float32)), name="embed")

        def construct(self, x):
            z = self.proj(x)
            dist = ((z ** 2).sum(-1, keepdims=True) - 2 * ops.matmul(z, self.embed.T) + (self.embed ** 2).sum(-1))
            idx = ops.argmin(dist, -1)
            q = ops.gather(self.embed, idx, 0)
            diff = ops.stop_gradient(q - z) if stop else q - z
            return z + diff

    return Net()


# ---------------------------------------------------------------- gradient-only: wav2vec2 feature_grad_mult

def gradmult_torch():
    import torch
    import torch.nn as tnn

    class GradMultiply(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.scale, None

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv1d(1, 4, 4, stride=2, bias=False)
            self.proj = tnn.Linear(4, 3)

        def forward(self, wav):
            features = self.conv(wav.unsqueeze(1))
            features = GradMultiply.apply(features, 0.1)
            return self.proj(features.transpose(1, 2))

    return Net()


def _gradmult_ms(bprop):
    _, mnn, ops = _ms()

    class GradMultiply(mnn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def construct(self, x):
            return x * 1.0

        def bprop(self, x, out, dout):
            return (dout * self.scale,)

    class Plain(mnn.Cell):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def construct(self, x):
            return x * 1.0

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv1d(1, 4, 4, stride=2, pad_mode="valid")
            self.grad_mult = GradMultiply(0.1) if bprop else Plain(0.1)
            self.proj = mnn.Dense(4, 3)

        def construct(self, wav):
            features = self.conv(ops.expand_dims(wav, 1))
            features = self.grad_mult(features)
            return self.proj(ops.transpose(features, (0, 2, 1)))

    return Net()


# ---------------------------------------------------------------- functional: frame-rate halving avg_pool1d

def pool_torch():
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(6, 6)

        def forward(self, x):  # (b, t, c)
            h = self.proj(x).transpose(1, 2)
            return F.avg_pool1d(h, kernel_size=2).transpose(1, 2)

    return Net()


def _pool_ms(stride_given):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(6, 6)

        def construct(self, x):
            h = ops.transpose(self.proj(x), (0, 2, 1))
            if stride_given:
                h = ops.avg_pool1d(h, kernel_size=2, stride=2)
            else:
                h = ops.avg_pool1d(h, kernel_size=2)
            return ops.transpose(h, (0, 2, 1))

    return Net()



# ---------------------------------------------------------------- functional: magnitude spectrum of frames

def rfft_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(8, 8)

        def forward(self, frames):  # (b, n, 8) frames -> learned filter -> magnitude bins
            return torch.fft.rfft(self.proj(frames), dim=-1).abs()

    return Net()


def _rfft_ms(real_mag):
    _, mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(8, 8)

        def construct(self, frames):
            spec = ops.rfft(self.proj(frames), dim=-1)
            if real_mag:
                return ops.sqrt(ops.real(spec) ** 2 + ops.imag(spec) ** 2)
            return ops.abs(spec)

    return Net()


_SINGLE = [
    entry("h18b_lstm_proj_size_keyword_raises", H18, "probe:torch 2.13 / MindSpore 2.10 nn.LSTM proj_size",
          lstmp_torch, lambda: _lstmp_ms(False), lambda: _lstmp_ms(True),
          ("lstm",), ("proj_size|LSTM",), inputs={"x": uniform(2, 5, 5)}, fails_with="error",
          cause_pattern=r"\bproj_size\b"),
    entry("h18b_vq_straight_through_detach_without_stop_gradient", H18,
          "model:EnCodec ResidualVectorQuantization straight-through (x + (q - x).detach())",
          vq_torch, lambda: _vq_ms(False), lambda: _vq_ms(True),
          ("after:proj",), ("stop_gradient|detach|straight-through",), inputs={"x": uniform(3, 4)},
          checks=("forward", "backward"),
          cause_pattern=r"\bstop_gradient\b|\bdetach\b"),
    entry("h18b_wav2vec2_feature_grad_mult_cell_without_bprop", H18,
          "model:fairseq wav2vec2 GradMultiply(features, feature_grad_mult)",
          gradmult_torch, lambda: _gradmult_ms(False), lambda: _gradmult_ms(True),
          ("after:conv",), ("bprop|GradMultiply|gradient scale",), inputs={"wav": uniform(2, 12)},
          checks=("forward", "backward"),
          cause_pattern=r"\bbprop\b|\bcustom (backward|gradient)\b|\bGradMultiply\b[^.]*\b0?\.1\b"),
    entry("h18b_functional_avg_pool1d_default_stride_one", H18,
          "probe:torch 2.13 F.avg_pool1d / MindSpore 2.10 ops.avg_pool1d defaults",
          pool_torch, lambda: _pool_ms(False), lambda: _pool_ms(True),
          ("after:proj",), ("avg_pool1d|stride",), inputs={"x": uniform(2, 8, 6)}, fails_with="shape",
          cause_pattern=r"\bstride\b[^.]*\b(2|kernel_size)\b|\bavg_pool1d\b[^.]*\bstride\b"),
    entry("h18b_functional_rfft_magnitude_ops_abs_keeps_complex_dtype", H18,
          "probe:torch 2.13 torch.fft.rfft(...).abs() / MindSpore 2.10 ops.abs(ops.rfft(...))",
          rfft_torch, lambda: _rfft_ms(False), lambda: _rfft_ms(True),
          ("after:proj",), ("ops.abs|complex|rfft|real|imag",), inputs={"frames": uniform(2, 3, 8)},
          fails_with="dtype",
          cause_pattern=r"\b(ops\.)?abs\b[^.]*\bcomplex\w*\b|\bcomplex\w*\b[^.]*\b(ops\.)?abs\b"
                      r"|\bComplexAbs\b|\b(ops\.)?real\b[^.]*\b(ops\.)?imag\b"),
]

# The gradient-only entries' naive ports compute the same forward values: they fail in the backward check only.
_SINGLE = [dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))
           if e.name in ("h18b_vq_straight_through_detach_without_stop_gradient",
                         "h18b_wav2vec2_feature_grad_mult_cell_without_bprop") else e
           for e in _SINGLE]

ENTRIES = _PORTS + _SINGLE
