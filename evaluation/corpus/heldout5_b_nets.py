"""Held-out set 5, half b: the small Linear -> op -> Linear nets its single-API entries share."""
from __future__ import annotations

from migcheck.specs import uniform

PROBE = "probe: torch 2.13 / MindSpore 2.10 CPU, "
X = {"x": uniform(4, 5)}


def _torch_net(middle, n_in=5, n_mid=6, n_out=3):
    """Linear -> middle(h) -> Linear, torch side; `middle` is the functional code under test."""
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(n_in, n_mid)
            self.fc2 = torch.nn.Linear(n_mid, n_out)

        def forward(self, x):
            return self.fc2(middle(self.fc1(x)))

    return Net()


def _ms_net(middle, n_in=5, n_mid=6, n_out=3):
    """Dense -> middle(h) -> Dense, MindSpore side, the same parameter names."""
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(n_in, n_mid)
            self.fc2 = nn.Dense(n_mid, n_out)

        def construct(self, x):
            return self.fc2(middle(self.fc1(x)))

    return Net()
