"""Held-out set 5, half a: optimizers and learning-rate schedules (family "h5", names h5a_*).

A small MLP with an MSE loss on both sides, checked by migcheck's step check; the naive and correct ports differ
in the MindSpore optimizer only. Written blind like heldout5_a.py; sources: torch 2.13 / MindSpore 2.10 defaults
and behaviour probed on CPU.
"""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, uniform

FAMILY = "h5"
PROBE = "probe (torch 2.13 / MindSpore 2.10, CPU): "


# Optimizers and schedules on a small MLP (step check, MSE loss).

def _mlp_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 6)
            self.act = nn.Tanh()
            self.fc2 = nn.Linear(6, 2)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _mlp_ms():
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 6)
            self.act = nn.Tanh()
            self.fc2 = nn.Dense(6, 2)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _mse():
    import mindspore.nn as mnn
    import torch.nn as tnn

    return FrameworkPair(torch=lambda: tnn.MSELoss(), mindspore=lambda: mnn.MSELoss())


def _opt(torch_factory, ms_factory):
    return FrameworkPair(torch=torch_factory, mindspore=ms_factory)


def _torch_adamax(params):
    import torch

    return torch.optim.Adamax(params)  # lr defaults to 2e-3


def _ms_adamax(lr):
    def make(params):
        import mindspore.nn as nn

        return nn.AdaMax(params) if lr is None else nn.AdaMax(params, learning_rate=lr)
    return make


def _torch_rprop(params):
    import torch

    return torch.optim.Rprop(params)  # lr defaults to 1e-2


def _ms_rprop(lr):
    def make(params):
        import mindspore.nn as nn

        return nn.Rprop(params) if lr is None else nn.Rprop(params, learning_rate=lr)
    return make


def _torch_sgd(params):
    import torch

    return torch.optim.SGD(params, lr=0.1)


def _multistep(opt):
    import torch

    return torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)


def _ms_piecewise(milestones, rates):
    def make(params):
        import mindspore.nn as nn

        return nn.SGD(params, learning_rate=nn.piecewise_constant_lr(milestones, rates))
    return make


def _torch_adam_l2(params):
    import torch

    return torch.optim.Adam(params, lr=0.01, weight_decay=0.1)  # L2: the decay is added to the gradient


def _ms_adam_l2(decoupled):
    def make(params):
        import mindspore.nn as nn

        if decoupled:
            return nn.AdamWeightDecay(params, learning_rate=0.01, eps=1e-8, weight_decay=0.1)
        return nn.Adam(params, learning_rate=0.01, weight_decay=0.1)
    return make


_TRAIN_INPUTS = {"x": uniform(5, 4), "y": uniform(5, 2)}


def _train_entry(name, source, torch_opt, naive_opt, correct_opt, causes, cause_pattern, **fields):
    """An optimizer entry: the same MLP on both sides; the two ports differ in the MindSpore optimizer only."""
    e = entry(name, FAMILY, source, _mlp_torch, _mlp_ms, _mlp_ms, ["optimizer"], causes, inputs=_TRAIN_INPUTS,
              targets=("y",), checks=("step",), loss=_mse(), optimizer=_opt(torch_opt, correct_opt),
              cause_pattern=cause_pattern, **fields)
    _NAIVE_OPTIMIZERS[name] = _opt(torch_opt, naive_opt)
    return e


_NAIVE_OPTIMIZERS: dict = {}


def _with_naive_optimizer(e):
    import dataclasses

    if e.name not in _NAIVE_OPTIMIZERS:
        return e
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, optimizer=_NAIVE_OPTIMIZERS[e.name]))



ENTRIES = [
    _train_entry("h5a_adamax_default_lr", PROBE + "torch.optim.Adamax lr=2e-3 default vs mindspore.nn.AdaMax "
                 "learning_rate=1e-3", _torch_adamax, _ms_adamax(None), _ms_adamax(0.002), ["learning_rate|lr"],
                 r"\b(learning_rate|lr)\b[^\n]{0,60}(\b0?\.002\b|\b2e-0?3\b)", steps=3),
    _train_entry("h5a_rprop_default_lr", PROBE + "torch.optim.Rprop lr=1e-2 default vs mindspore.nn.Rprop "
                 "learning_rate=0.1", _torch_rprop, _ms_rprop(None), _ms_rprop(0.01), ["learning_rate|lr"],
                 r"\b(learning_rate|lr)\b[^\n]{0,60}(\b0?\.01\b|\b1e-0?2\b)", steps=3),
    _train_entry("h5a_multisteplr_milestones_as_piecewise", PROBE + "MultiStepLR(milestones=[2, 4]) ported as "
                 "piecewise_constant_lr([2, 4], ...) (its milestones must end at the total step count)", _torch_sgd,
                 _ms_piecewise([2, 4], [0.1, 0.01]), _ms_piecewise([2, 4, 6], [0.1, 0.01, 0.001]),
                 ["milestone|piecewise_constant_lr"],
                 r"\bmilestones?\b[^\n]{0,120}\b(6|total|last|end|final|length)\b|\[\s*2\s*,\s*4\s*,\s*6\s*\]"
                 r"|\bpiecewise_constant_lr\b[^\n]{0,120}\b(length|total|steps|0?\.001)\b",
                 steps=6, lr_schedule=_multistep, fails_with="error"),
    _train_entry("h5a_adam_l2_as_adamweightdecay", PROBE + "torch.optim.Adam(weight_decay=0.1) (L2 on the gradient) "
                 "ported as mindspore.nn.AdamWeightDecay(weight_decay=0.1)", _torch_adam_l2, _ms_adam_l2(True),
                 _ms_adam_l2(False), ["adamweightdecay|decoupled|l2"],
                 r"\bnn\.Adam\b(?!WeightDecay)|\bAdam\(|\bdecoupl\w*|\bL2\b|\bbias[- _]correct\w*", steps=3),
]


ENTRIES = [_with_naive_optimizer(e) for e in ENTRIES]
