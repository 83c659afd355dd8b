"""Held-out set 11, half a: layers and losses inside small nets (family "h11"); see also heldout11_a_ops/_more.

Written blind (without reading the localization, mapping, judging or running code); verified pass/fail only.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

ENTRIES: list = []


def _tnn():
    import torch.nn as tnn
    return tnn


def _mnn():
    import mindspore.nn as mnn
    return mnn


def _ops():
    import mindspore.ops as ops
    return ops


# ---------------------------------------------------------------- layers and losses

def _torch_avgpool_div():
    import torch
    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Conv2d(3, 4, 1)
            self.pool = tnn.AvgPool2d(2, 2, divisor_override=3)
            self.head = tnn.Linear(36, 5)

        def forward(self, x):
            return self.head(torch.flatten(self.pool(self.proj(x)), 1))
    return Net()


def _ms_avgpool_div(divisor):
    mnn, ops = _mnn(), _ops()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Conv2d(3, 4, 1, pad_mode="valid", has_bias=True)
            self.pool = (mnn.AvgPool2d(2, 2, divisor_override=divisor) if divisor
                         else mnn.AvgPool2d(2, 2))
            self.head = mnn.Dense(36, 5)

        def construct(self, x):
            return self.head(ops.flatten(self.pool(self.proj(x))))
    return Net()


ENTRIES.append(entry(
    "h11a_avgpool2d_divisor_override_dropped", "h11", "AvgPool2d",
    _torch_avgpool_div, lambda: _ms_avgpool_div(None), lambda: _ms_avgpool_div(3),
    ("pool",), ("divisor_override|divisor|AvgPool2d",), inputs={"x": uniform(2, 3, 6, 6)},
    cause_pattern=r"\bdivisor_override\b[^.]*\b3\b|\bdivis(or|ion)\b[^.]*\b3\b"))


def _torch_softshrink():
    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(6, 8)
            self.shrink = tnn.Softshrink(0.3)
            self.fc2 = tnn.Linear(8, 4)

        def forward(self, x):
            return self.fc2(self.shrink(self.fc1(x)))
    return Net()


def _ms_softshrink(hard):
    mnn = _mnn()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.shrink = mnn.HShrink(0.3) if hard else mnn.SoftShrink(0.3)
            self.fc2 = mnn.Dense(8, 4)

        def construct(self, x):
            return self.fc2(self.shrink(self.fc1(x)))
    return Net()


ENTRIES.append(entry(
    "h11a_softshrink_ported_as_hshrink", "h11", "probe:nn.Softshrink vs mindspore.nn.HShrink/SoftShrink",
    _torch_softshrink, lambda: _ms_softshrink(True), lambda: _ms_softshrink(False),
    ("shrink",), ("SoftShrink|HShrink|hardshrink|softshrink",), inputs={"x": uniform(4, 6)},
    cause_pattern=r"\bsoft_?shrink\b|\bSoftShrink\b"))


def _torch_mha_zero_attn():
    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.inp = tnn.Linear(5, 8)
            self.attn = tnn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=True)
            self.out = tnn.Linear(8, 3)

        def forward(self, x):
            h = self.inp(x)
            a = self.attn(h, h, h)[0]
            return self.out(a)
    return Net()


def _ms_mha_zero_attn(zero_attn):
    mnn = _mnn()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.inp = mnn.Dense(5, 8)
            self.attn = (mnn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=True) if zero_attn
                         else mnn.MultiheadAttention(8, 2, batch_first=True))
            self.out = mnn.Dense(8, 3)

        def construct(self, x):
            h = self.inp(x)
            a = self.attn(h, h, h)[0]
            return self.out(a)
    return Net()


ENTRIES.append(entry(
    "h11a_multihead_attention_add_zero_attn_dropped", "h11", "MultiheadAttention",
    _torch_mha_zero_attn, lambda: _ms_mha_zero_attn(False), lambda: _ms_mha_zero_attn(True),
    ("attn",), ("add_zero_attn|zero attention",), inputs={"x": uniform(2, 3, 5)},
    cause_pattern=r"\badd_zero_attn\b[^.]*\bTrue\b|\badd_zero_attn\b"))


def _torch_softmax_channels():
    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Conv1d(3, 4, 1)
            self.act = tnn.Softmax(dim=1)
            self.mix = tnn.Conv1d(4, 2, 1)

        def forward(self, x):
            return self.mix(self.act(self.proj(x)))
    return Net()


def _ms_softmax_channels(axis):
    mnn = _mnn()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Conv1d(3, 4, 1, pad_mode="valid", has_bias=True)
            self.act = mnn.Softmax() if axis is None else mnn.Softmax(axis=axis)
            self.mix = mnn.Conv1d(4, 2, 1, pad_mode="valid", has_bias=True)

        def construct(self, x):
            return self.mix(self.act(self.proj(x)))
    return Net()


ENTRIES.append(entry(
    "h11a_softmax_dim1_as_nn_softmax_default_axis", "h11", "Softmax",
    _torch_softmax_channels, lambda: _ms_softmax_channels(None), lambda: _ms_softmax_channels(1),
    ("act",), ("axis|dim|Softmax",), inputs={"x": uniform(2, 3, 5)},
    cause_pattern=r"\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\b[^.]{0,60}(?<![-\w.])1\b(?!\.\d)"))


def _torch_poisson():
    import torch
    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(4, 3)
            self.loss = tnn.PoissonNLLLoss(log_input=False)

        def forward(self, x, counts):
            rate = torch.nn.functional.softplus(self.fc(x)) + 0.1
            return self.loss(rate, counts)
    return Net()


def _ms_poisson(log_input):
    mnn, ops = _mnn(), _ops()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(4, 3)
            self.loss = mnn.PoissonNLLLoss() if log_input else mnn.PoissonNLLLoss(log_input=False)

        def construct(self, x, counts):
            rate = ops.softplus(self.fc(x)) + 0.1
            return self.loss(rate, counts)
    return Net()


ENTRIES.append(entry(
    "h11a_poisson_nll_rate_input_default_log_input", "h11", "PoissonNLLLoss",
    _torch_poisson, lambda: _ms_poisson(True), lambda: _ms_poisson(False),
    ("loss",), ("log_input|PoissonNLLLoss",),
    inputs={"x": uniform(6, 4), "counts": given(np.array([[0, 1, 3], [2, 0, 1], [4, 1, 0], [1, 1, 2], [0, 3, 1],
                                                           [2, 2, 0]], dtype=np.float32))},
    cause_pattern=r"\blog_input\b[^.]*\bFalse\b|\blog_input\s*=\s*False\b"))
