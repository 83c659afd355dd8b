"""Held-out set 7, half a (family h7): an optimizer difference (step check), written blind
(without reading migcheck's localization, mapping, judging or running code, or other entries' causes). Each naive port has one nameable MindSpore
difference; each correct port is the same net ported right. Sources: probes of torch 2.13 / MindSpore 2.10 on
CPU."""
from __future__ import annotations

import dataclasses

import torch
from mindspore import ops
from mindspore import nn as mnn
from torch import nn as tnn

from evaluation.corpus.build import entry
from migcheck.case import FrameworkPair
from migcheck.specs import uniform

# ---------------------------------------------------------------- optimizer


class TorchMlp(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(4, 5)
        self.fc2 = tnn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class MsMlp(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(4, 5)
        self.fc2 = mnn.Dense(5, 2)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)))


def _nesterov_entry():
    def torch_opt(params):
        return torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)

    good = FrameworkPair(torch=torch_opt, mindspore=lambda params: mnn.SGD(params, learning_rate=0.1, momentum=0.9,
                                                                             nesterov=True))
    bad = FrameworkPair(torch=torch_opt, mindspore=lambda params: mnn.Momentum(params, learning_rate=0.1, momentum=0.9,
                                                                                 use_nesterov=True))
    e = entry("h7a_sgd_nesterov_as_momentum_use_nesterov", "h7", "probe: torch.optim.SGD(momentum=0.9, nesterov=True) "
              "ported as nn.Momentum(use_nesterov=True), which applies Nesterov's step differently; nn.SGD(nesterov="
              "True) matches", TorchMlp, MsMlp, MsMlp, ("optimizer",), ("nesterov|Momentum|SGD",),
              inputs={"x": uniform(6, 4)}, checks=("step",), steps=3, optimizer=good,
              cause_pattern=r"\b(mindspore\.)?nn\.SGD\b|\bSGD\([^)]*\bnesterov\s*=\s*True|\bMomentum\b[^.]*"
                            r"\buse_nesterov\b|\buse_nesterov\b[^.]*\bMomentum\b")
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, optimizer=bad))


TRAIN = [_nesterov_entry()]

ENTRIES = TRAIN
