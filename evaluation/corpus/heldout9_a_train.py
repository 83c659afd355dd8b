"""Held-out set 9, half a (family h9): one optimizer entry (step check), naive port with ONE difference from torch;
written blind."""
from __future__ import annotations

import dataclasses

from migcheck import FrameworkPair, uniform

from evaluation.corpus.build import entry

FAMILY = "h9"


# ----------------------------------------------------------------------------------------------- optimizer

def _t_wd():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 6)
            self.norm = torch.nn.LayerNorm(6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(self.norm(self.fc1(x)))

    return Net()


def _m_wd():
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 6)
            self.norm = nn.LayerNorm((6,), epsilon=1e-5)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x):
            return self.fc2(self.norm(self.fc1(x)))

    return Net()


def _sgd_wd(grouped: bool):
    def torch_opt(params):
        import torch

        return torch.optim.SGD(params, lr=0.1, weight_decay=0.2)

    def ms_opt(params):
        import mindspore.nn as nn

        if grouped:
            return nn.SGD([{"params": list(params), "weight_decay": 0.2}], learning_rate=0.1)
        return nn.SGD(params, learning_rate=0.1, weight_decay=0.2)

    return FrameworkPair(torch=torch_opt, mindspore=ms_opt)


ENTRIES = [
    entry("h9a_sgd_weight_decay_skips_gamma_beta", FAMILY, "Optimizer", _t_wd, _m_wd, _m_wd,
          ["optimizer"], ["weight_decay|decay_filter|gamma|beta"], inputs={"x": uniform(4, 5)}, checks=("step",),
          optimizer=_sgd_wd(False), steps=2,
          cause_pattern=r"\b(weight_decay|weight decay|decay_filter)\b[^.]*\b(gamma|beta|LayerNorm|norm|group|groups)\b"
                        r"|\b(gamma|beta)\b[^.]*\b(weight_decay|weight decay|decay_filter)\b"),
]

# The optimizer entry's correct port differs only in the optimizer factory.
ENTRIES[-1] = dataclasses.replace(ENTRIES[-1],
                                  correct=dataclasses.replace(ENTRIES[-1].correct, optimizer=_sgd_wd(True)))
