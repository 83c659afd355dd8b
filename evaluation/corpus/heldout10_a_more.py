"""Held-out set 10, half a: the optimizer entry (family h10, step check) and two model blocks (family h10-port) from
public architecture descriptions, each naive port with one API difference; written blind."""
from __future__ import annotations

import dataclasses

import numpy as np

from migcheck import FrameworkPair, uniform

from evaluation.corpus.build import entry


# ---------------------------------------------------------------- optimizer (step check)

def _t_mlp():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 6)
            self.fc2 = torch.nn.Linear(6, 2)

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(x)))

    return Net()


def _m_mlp():
    import mindspore.nn as nn
    import mindspore.ops as ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 6)
            self.fc2 = nn.Dense(6, 2)

        def construct(self, x):
            return self.fc2(ops.tanh(self.fc1(x)))

    return Net()


def _t_rmsprop(params):
    import torch

    return torch.optim.RMSprop(params, lr=0.01)          # alpha=0.99, eps=1e-8


def _m_rmsprop(torch_values: bool):
    def make(params):
        import mindspore.nn as nn
        import mindspore.ops as ops

        if torch_values:
            opt = nn.RMSProp(params, learning_rate=0.01, decay=0.99, epsilon=1e-8)
        else:
            opt = nn.RMSProp(params, learning_rate=0.01, epsilon=1e-8)
        for slot in opt.ms:                              # torch's square_avg starts at 0 (MindSpore's at 1)
            slot.set_data(ops.zeros_like(slot))
        return opt
    return make


# ---------------------------------------------------------------- blocks

def _t_maxpool_same():
    import math

    import torch
    import torch.nn.functional as F

    class MaxPool2dSame(torch.nn.Module):
        """timm's MaxPool2dSame (TF 'SAME' max pooling of the tf_* EfficientNet/MixNet ports): pad asymmetrically
        with -inf to TF's output size, then an unpadded max pool."""

        def __init__(self, k=3, s=2):
            super().__init__()
            self.k, self.s = k, s

        def forward(self, x):
            ih, iw = x.shape[-2:]
            ph = max((math.ceil(ih / self.s) - 1) * self.s + self.k - ih, 0)
            pw = max((math.ceil(iw / self.s) - 1) * self.s + self.k - iw, 0)
            x = F.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), value=-float("inf"))
            return F.max_pool2d(x, self.k, self.s)

    class Stem(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 3, 1)
            self.pool = MaxPool2dSame(3, 2)
            self.proj = torch.nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return self.proj(self.pool(self.conv(x)))

    return Stem()


def _m_maxpool_same(neg_inf: bool):
    def make():
        import math

        import mindspore.nn as nn
        import mindspore.ops as ops

        class MaxPool2dSame(nn.Cell):
            def __init__(self, k=3, s=2):
                super().__init__()
                self.k, self.s = k, s
                self.pool = nn.MaxPool2d(k, s)

            def construct(self, x):
                ih, iw = x.shape[-2:]
                ph = max((math.ceil(ih / self.s) - 1) * self.s + self.k - ih, 0)
                pw = max((math.ceil(iw / self.s) - 1) * self.s + self.k - iw, 0)
                if neg_inf:
                    x = ops.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), value=-float("inf"))
                else:
                    x = ops.Pad(((0, 0), (0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2)))(x)
                return self.pool(x)

        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(2, 3, 1, has_bias=True)
                self.pool = MaxPool2dSame(3, 2)
                self.proj = nn.Conv2d(3, 2, 1, has_bias=True)

            def construct(self, x):
                return self.proj(self.pool(self.conv(x)))

        return Stem()
    return make


def _t_fspool():
    import torch

    class FSPool(torch.nn.Module):
        """Featurewise sort pooling (Zhang, Hare, Prugel-Bennett 2019), fixed set size: sort each feature over the
        set in descending order, then a learned weighted sum over the sorted positions."""

        def __init__(self, set_size=5, dim=4):
            super().__init__()
            self.embed = torch.nn.Linear(3, dim)
            self.weight = torch.nn.Parameter(torch.linspace(1.0, 0.2, set_size)[:, None].repeat(1, dim))
            self.head = torch.nn.Linear(dim, 2)

        def forward(self, x):                               # x: (B, N, 3)
            h = self.embed(x)                               # (B, N, dim)
            h, _ = h.sort(dim=1, descending=True)           # over the set
            return self.head((h * self.weight).sum(dim=1))

    return FSPool()


def _m_fspool(axis1: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class FSPool(nn.Cell):
            def __init__(self, set_size=5, dim=4):
                super().__init__()
                self.embed = nn.Dense(3, dim)
                ramp = np.linspace(1.0, 0.2, set_size, dtype=np.float32)[:, None]
                self.weight = ms.Parameter(ms.Tensor(np.repeat(ramp, dim, axis=1)), name="weight")
                self.sort = ops.Sort(axis=1, descending=True) if axis1 else ops.Sort(descending=True)
                self.head = nn.Dense(dim, 2)

            def construct(self, x):
                h = self.embed(x)
                h, _ = self.sort(h)
                return self.head((h * self.weight).sum(axis=1))

        return FSPool()
    return make


ENTRIES = [
    entry("h10a_port_timm_maxpool2d_same_pad_zeros_not_neg_inf", "h10-port",
          "model:timm MaxPool2dSame (tf_ EfficientNet/MixNet 'SAME' pooling); pad", _t_maxpool_same,
          _m_maxpool_same(False), _m_maxpool_same(True), ("pool",), ("pad value|-inf|ops.Pad",),
          inputs={"x": uniform(2, 2, 6, 6)},
          cause_pattern=r"-\s*(?:float\(\s*['\"]inf['\"]\s*\)|inf(?:inity)?)\b|\bvalue\s*=\s*-|"
                        r"\bops\.Pad\b[^.\n]*\bzero|\bpad(?:ding|s)?\b[^.\n]*\bzeros?\b[^.\n]*\binf"),
    entry("h10a_port_fspool_sort_over_set_ops_sort_default_axis", "h10-port",
          "model:FSPool (Zhang et al. 2019); probe: Tensor.sort(dim=1) vs ops.Sort()", _t_fspool, _m_fspool(False),
          _m_fspool(True), ("after:embed",), ("Sort|axis|dim",), inputs={"x": uniform(3, 5, 3)},
          cause_pattern=r"\bSort\b[^.\n]*\baxis\s*=?\s*1\b|\baxis\s*=\s*1\b|\b(?:sort|Sort)\b[^.\n]*\b(?:dim|axis)\b"
                        r"[^.\n]*\b(?:1|last|-1)\b"),
    entry("h10a_rmsprop_default_decay", "h10", "RMSProp", _t_mlp, _m_mlp, _m_mlp, ("optimizer",),
          ("decay|alpha|RMSProp",), inputs={"x": uniform(4, 5)}, checks=("step",), steps=3,
          optimizer=FrameworkPair(torch=_t_rmsprop, mindspore=_m_rmsprop(False)),
          cause_pattern=r"\bdecay\b[^.\n]*\b0\.99\b|\balpha\b[^.\n]*\b0\.99\b"),
]


def _with_correct_optimizer(e, optimizer):
    """The two cases differ in the optimizer only: give the correct case its own."""
    return dataclasses.replace(e, correct=dataclasses.replace(e.correct, optimizer=optimizer))


ENTRIES[-1] = _with_correct_optimizer(ENTRIES[-1], FrameworkPair(torch=_t_rmsprop, mindspore=_m_rmsprop(True)))
