"""Held-out set 11, half a: one optimizer entry (family "h11") and two model blocks (family "h11-port").

Written blind (without reading the localization, mapping, judging or running code); verified pass/fail only.
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, uniform

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


# ---------------------------------------------------------------- optimizer

def _torch_mlp():
    tnn = _tnn()
    return tnn.Sequential(tnn.Linear(4, 6), tnn.Tanh(), tnn.Linear(6, 2))


def _ms_mlp():
    mnn = _mnn()
    return mnn.SequentialCell([mnn.Dense(4, 6), mnn.Tanh(), mnn.Dense(6, 2)])


def _adagrad_entry():
    import torch
    mnn = _mnn()
    torch_opt = lambda p: torch.optim.Adagrad(p, lr=0.1)
    naive = FrameworkPair(torch=torch_opt, mindspore=lambda p: mnn.Adagrad(p, learning_rate=0.1))
    right = FrameworkPair(torch=torch_opt, mindspore=lambda p: mnn.Adagrad(p, accum=0.0, learning_rate=0.1))
    e = entry("h11a_adagrad_default_initial_accumulator", "h11", "Adagrad", _torch_mlp, _ms_mlp, _ms_mlp,
              ("optimizer",), ("accum|initial_accumulator_value",), inputs={"x": uniform(5, 4)},
              checks=("step",), optimizer=right, steps=3,
              cause_pattern=r"\baccum\s*=\s*0(\.0+)?(?![.\d])|\baccum\b[^.]{0,60}\bzero\b|\binitial_accumulator_value\b")
    import dataclasses
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, optimizer=naive))


ENTRIES.append(_adagrad_entry())


# ---------------------------------------------------------------- model blocks

def _torch_gem_head():
    import torch
    tnn = _tnn()

    class GeM(tnn.Module):
        """Generalized-mean pooling (Radenovic et al.): (mean over HxW of x^p)^(1/p)."""
        def __init__(self, p=3.0, eps=1e-6):
            super().__init__()
            self.p, self.eps = p, eps

        def forward(self, x):
            pooled = torch.nn.functional.avg_pool2d(x.clamp(min=self.eps).pow(self.p), (x.size(-2), x.size(-1)))
            return pooled.pow(1.0 / self.p)

    class Head(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(3, 4, 1)
            self.pool = GeM()
            self.fc = tnn.Linear(4, 3)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))
    return Head()


def _ms_gem_head(lppool):
    mnn, ops = _mnn(), _ops()

    class GeM(mnn.Cell):
        def __init__(self, p=3.0, eps=1e-6):
            super().__init__()
            self.p, self.eps = p, eps
            self.lp = mnn.LPPool2d(norm_type=3.0, kernel_size=(4, 4))
            self.avg = mnn.AvgPool2d(kernel_size=(4, 4), stride=(4, 4))

        def construct(self, x):
            x = ops.clamp(x, min=self.eps)
            if lppool:
                return self.lp(x)
            return ops.pow(self.avg(ops.pow(x, self.p)), 1.0 / self.p)

    class Head(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv2d(3, 4, 1, pad_mode="valid", has_bias=True)
            self.pool = GeM()
            self.fc = mnn.Dense(4, 3)

        def construct(self, x):
            return self.fc(ops.flatten(self.pool(ops.relu(self.conv(x)))))
    return Head()


ENTRIES.append(entry(
    "h11a_port_gem_pooling_as_lppool2d", "h11-port", "model:GeM pooling head (Radenovic et al. 2018)",
    _torch_gem_head, lambda: _ms_gem_head(True), lambda: _ms_gem_head(False),
    ("pool",), ("LPPool2d|sum|mean|avg_pool",), inputs={"x": uniform(2, 3, 4, 4)},
    cause_pattern=r"\bLPPool2?d?\b[^.]*\b(sum|average|mean|avg)|\b(avg_pool2d|AvgPool2d|ReduceMean)\b"))


def _torch_preln_encoder():
    tnn = _tnn()

    class Encoder(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = tnn.Linear(5, 8)
            self.layer = tnn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                                     norm_first=True)
            self.head = tnn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.layer(self.embed(x)))
    return Encoder()


def _ms_preln_encoder(norm_first):
    mnn = _mnn()

    class Encoder(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = mnn.Dense(5, 8)
            self.layer = mnn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                                     norm_first=norm_first)
            self.head = mnn.Dense(8, 3)

        def construct(self, x):
            return self.head(self.layer(self.embed(x)))
    return Encoder()


ENTRIES.append(entry(
    "h11a_port_preln_transformer_encoder_norm_first_dropped", "h11-port",
    "model:pre-LN Transformer encoder layer (Xiong et al. 2020)",
    _torch_preln_encoder, lambda: _ms_preln_encoder(False), lambda: _ms_preln_encoder(True),
    ("layer",), ("norm_first|pre-norm",), inputs={"x": uniform(2, 4, 5)},
    weight_map=[(r"linear1", "dense1"), (r"linear2", "dense2")],
    cause_pattern=r"\bnorm_first\b"))
