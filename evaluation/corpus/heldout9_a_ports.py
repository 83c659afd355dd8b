"""Held-out set 9, half a (family h9-port): two small blocks from public architectures, each naive port with one
API difference, written blind."""
from __future__ import annotations

from migcheck import uniform

from evaluation.corpus.build import entry

FAMILY = "h9-port"


# DenseNet transition layer (Huang et al. 2017): BN -> ReLU -> 1x1 conv -> 2x2 average pooling, stride 2.
def _t_transition():
    import torch

    class Transition(torch.nn.Module):
        def __init__(self, cin=4, cout=2):
            super().__init__()
            self.norm = torch.nn.BatchNorm2d(cin)
            self.relu = torch.nn.ReLU()
            self.conv = torch.nn.Conv2d(cin, cout, kernel_size=1, bias=False)
            self.pool = torch.nn.AvgPool2d(2)

        def forward(self, x):
            return self.pool(self.conv(self.relu(self.norm(x))))

    return Transition()


def _m_transition(stride_given: bool):
    import mindspore.nn as nn

    class Transition(nn.Cell):
        def __init__(self, cin=4, cout=2):
            super().__init__()
            self.norm = nn.BatchNorm2d(cin)
            self.relu = nn.ReLU()
            self.conv = nn.Conv2d(cin, cout, kernel_size=1, has_bias=False)
            self.pool = nn.AvgPool2d(kernel_size=2, stride=2) if stride_given else nn.AvgPool2d(kernel_size=2)

        def construct(self, x):
            return self.pool(self.conv(self.relu(self.norm(x))))

    return Transition()


# Weight Standardization (Qiao et al. 2019) conv followed by GroupNorm + ReLU: the weight of each output channel is
# centred and divided by its standard deviation (torch's Tensor.std, unbiased) before the convolution.
def _t_wsconv():
    import torch
    import torch.nn.functional as F

    class WSConv2d(torch.nn.Conv2d):
        def forward(self, x):
            w = self.weight
            w = w - w.mean(dim=(1, 2, 3), keepdim=True)
            std = w.view(w.size(0), -1).std(dim=1).view(-1, 1, 1, 1) + 1e-5
            return F.conv2d(x, w / std, self.bias, self.stride, self.padding)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = WSConv2d(3, 4, kernel_size=3, padding=1)
            self.gn = torch.nn.GroupNorm(2, 4)
            self.relu = torch.nn.ReLU()

        def forward(self, x):
            return self.relu(self.gn(self.conv(x)))

    return Block()


def _m_wsconv(ddof_given: bool):
    import numpy as np
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops

    class WSConv2d(nn.Cell):
        def __init__(self, cin, cout, k):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.zeros((cout, cin, k, k), np.float32)), name="weight")
            self.bias = ms.Parameter(ms.Tensor(np.zeros((cout,), np.float32)), name="bias")
            self.cout = cout

        def construct(self, x):
            w = self.weight
            w = w - w.mean(axis=(1, 2, 3), keep_dims=True)
            flat = w.view(self.cout, -1)
            std = flat.std(axis=1, ddof=1) if ddof_given else flat.std(axis=1)
            w = w / (std.view(-1, 1, 1, 1) + 1e-5)
            out = ops.conv2d(x, w, None, 1, "pad", 1)
            return out + self.bias.view(1, -1, 1, 1)

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = WSConv2d(3, 4, 3)
            self.gn = nn.GroupNorm(2, 4)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.gn(self.conv(x)))

    return Block()


ENTRIES = [
    entry("h9a_port_densenet_transition_avgpool_stride", FAMILY, "AvgPool2d", _t_transition,
          lambda: _m_transition(False), lambda: _m_transition(True), ["pool"], ["stride|AvgPool2d"],
          inputs={"x": uniform(2, 4, 6, 6)}, fails_with="shape",
          cause_pattern=r"\bstride\s*=\s*2\b|\bstride\b[^.]*\b(kernel_size|default|1)\b"),
    entry("h9a_port_weight_standardized_conv_std_ddof", FAMILY, "std", _t_wsconv, lambda: _m_wsconv(False),
          lambda: _m_wsconv(True), ["conv"], ["ddof|unbiased|std"], inputs={"x": uniform(2, 3, 5, 5)},
          cause_pattern=r"\bddof\s*=\s*1\b|\bunbiased\b|\bcorrection\s*=\s*1\b|\bbessel\b"),
]
