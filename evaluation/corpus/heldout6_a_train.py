"""Held-out set 6, half a: a learning-rate schedule checked by the step check (family "h6", names h6a_*).
Written blind like heldout6_a.py."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, uniform

FAMILY = "h6"
PROBE = "probe (torch 2.13 / MindSpore 2.10, CPU): "

# ---------------------------------------------------------------------------------------------------------------
# Learning-rate schedule
# ---------------------------------------------------------------------------------------------------------------

# 9. CosineAnnealingWarmRestarts(T_0=2) ported with nn.cosine_decay_lr(decay_epoch=2): no restart, the rate stays at
#    min_lr after the first period.

def _mlp_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 5)
            self.fc2 = nn.Linear(5, 2)

        def forward(self, x):
            return self.fc2(self.fc1(x).tanh())

    return Net()


def _mlp_ms():
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 5)
            self.fc2 = nn.Dense(5, 2)

        def construct(self, x):
            return self.fc2(self.fc1(x).tanh())

    return Net()


def _mse():
    import mindspore.nn as mnn
    import torch.nn as tnn

    return FrameworkPair(torch=lambda: tnn.MSELoss(), mindspore=lambda: mnn.MSELoss())


def _sgd_torch(params):
    import torch

    return torch.optim.SGD(params, lr=0.1)


def _sgd_ms_cosine_decay(params):
    import mindspore.nn as nn

    return nn.SGD(params, learning_rate=nn.cosine_decay_lr(0.0, 0.1, 4, 1, 2))


def _sgd_ms_restarts(params):
    import math

    import mindspore.nn as nn

    t0 = 2
    rates = [0.5 * 0.1 * (1 + math.cos(math.pi * (i % t0) / t0)) for i in range(4)]
    return nn.SGD(params, learning_rate=rates)


def _warm_restarts(opt):
    import torch

    return torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)


WARM_RESTARTS = entry(
    "h6a_cosine_warm_restarts_as_cosine_decay_lr", FAMILY,
    PROBE + "torch CosineAnnealingWarmRestarts(T_0=2) vs mindspore.nn.cosine_decay_lr (no restart)",
    _mlp_torch,
    lambda: _mlp_ms(), lambda: _mlp_ms(),
    layers=("optimizer",), causes=("restart|CosineAnnealingWarmRestarts|cosine_decay_lr",),
    inputs={"x": uniform(6, 4), "y": uniform(6, 2)},
    targets=("y",), loss=_mse(), checks=("step",), steps=4, lr_schedule=_warm_restarts,
    optimizer=FrameworkPair(torch=_sgd_torch, mindspore=_sgd_ms_restarts),
    cause_pattern=r"\b(warm[- ]?restarts?|restart\w*|T_0)\b",
)


def _naive_optimizer(e, naive_opt):
    """The two cases differ in the MindSpore optimizer (its schedule) only."""
    import dataclasses

    naive = dataclasses.replace(e.naive, optimizer=FrameworkPair(torch=e.naive.optimizer.torch, mindspore=naive_opt))
    return dataclasses.replace(e, naive=naive)


WARM_RESTARTS = _naive_optimizer(WARM_RESTARTS, _sgd_ms_cosine_decay)



ENTRIES = [WARM_RESTARTS]
