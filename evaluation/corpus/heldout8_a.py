"""Held-out set 8, half a: single-API differences (family "h8"), written blind: layers and losses inside small nets.

Every naive port differs from its correct twin in one place only. Functional ops, the gradient-only entry and the
learning-rate schedule are in heldout8_a_ops.py.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

FAM = "h8"


# ---------------------------------------------------------------- layers and losses

def _kl_torch():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 5)
            self.criterion = torch.nn.KLDivLoss(reduction="batchmean")

        def forward(self, x, p):
            return self.criterion(F.log_softmax(self.fc(x), dim=-1), p)
    return Net()


def _kl_ms(reduction):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(6, 5)
                self.criterion = nn.KLDivLoss() if reduction is None else nn.KLDivLoss(reduction=reduction)

            def construct(self, x, p):
                return self.criterion(ops.log_softmax(self.fc(x), -1), p)
        return Net()
    return make


def _probs(rows, cols, seed):
    z = np.random.default_rng(seed).normal(size=(rows, cols))
    e = np.exp(z - z.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def _convt_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv1d(2, 4, 3, padding=1)
            self.up = torch.nn.ConvTranspose1d(4, 3, 3, stride=2)

        def forward(self, x):
            return self.up(torch.relu(self.conv(x)))
    return Net()


def _convt_ms(pad_mode):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(2, 4, 3, pad_mode="pad", padding=1, has_bias=True)
                if pad_mode is None:
                    self.up = nn.Conv1dTranspose(4, 3, 3, stride=2, has_bias=True)
                else:
                    self.up = nn.Conv1dTranspose(4, 3, 3, stride=2, pad_mode=pad_mode, has_bias=True)

            def construct(self, x):
                return self.up(ops.relu(self.conv(x)))
        return Net()
    return make


def _avgpool_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv1d(3, 4, 3, padding=1)
            self.pool = torch.nn.AvgPool1d(2)

        def forward(self, x):
            return self.pool(torch.relu(self.conv(x)))
    return Net()


def _avgpool_ms(stride):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv1d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
                self.pool = nn.AvgPool1d(kernel_size=2) if stride is None else nn.AvgPool1d(kernel_size=2, stride=stride)

            def construct(self, x):
                return self.pool(ops.relu(self.conv(x)))
        return Net()
    return make


ENTRIES = [
    entry("h8a_kldiv_batchmean_as_default_mean", FAM, "KLDivLoss", _kl_torch, _kl_ms(None), _kl_ms("batchmean"),
          ["criterion"], ["KLDivLoss|reduction|batchmean"],
          inputs={"x": uniform(4, 6), "p": given(_probs(4, 5, 7))},
          cause_pattern=r"\bbatchmean\b"),
    entry("h8a_conv_transpose1d_default_same_pad_mode", FAM, "ConvTranspose1d", _convt_torch, _convt_ms(None),
          _convt_ms("valid"), ["up"], ["Conv1dTranspose|pad_mode|same"],
          inputs={"x": uniform(2, 2, 6)}, fails_with="shape",
          cause_pattern=r"\bpad_mode\b[^.]*\b(valid|pad)\b|\b(valid|pad)\b[^.]*\bpad_mode\b"),
    entry("h8a_avgpool1d_default_stride_one", FAM, "AvgPool1d", _avgpool_torch, _avgpool_ms(None), _avgpool_ms(2),
          ["pool"], ["AvgPool1d|stride"], inputs={"x": uniform(2, 3, 8)}, fails_with="shape",
          cause_pattern=r"\bstride\b[^.]*\b2\b|\bstride\b[^.]*\bkernel[_ ]size\b"),
]
