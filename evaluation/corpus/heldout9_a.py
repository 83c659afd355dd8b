"""Held-out set 9, half a (family h9): layers and losses inside small nets, each naive port with ONE difference
from torch named by MindSpore's API-difference notes or a probe of torch 2.13 / MindSpore 2.10 on CPU; written blind."""
from __future__ import annotations

from migcheck import integers, mask, uniform

from evaluation.corpus.build import entry

FAMILY = "h9"


# ----------------------------------------------------------------------------------------------- layers and losses

def _t_gelu():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 8)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _m_gelu(fast: bool):
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 8)
            self.act = nn.FastGelu() if fast else nn.GELU(approximate=False)
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _t_gru():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.GRU(4, 5, batch_first=True)
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.head(out)

    return Net()


def _m_gru(batch_first: bool):
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 5, batch_first=True) if batch_first else nn.GRU(4, 5)
            self.head = nn.Dense(5, 2)

        def construct(self, x):
            out, _ = self.rnn(x)
            return self.head(out)

    return Net()


def _t_ln():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(6, 8, bias=False)
            self.norm = torch.nn.LayerNorm(8)
            self.out = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.out(self.norm(self.proj(x)))

    return Net()


def _m_ln(eps_given: bool):
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = nn.Dense(6, 8, has_bias=False)
            self.norm = nn.LayerNorm((8,), epsilon=1e-5) if eps_given else nn.LayerNorm((8,))
            self.out = nn.Dense(8, 3)

        def construct(self, x):
            return self.out(self.norm(self.proj(x)))

    return Net()


def _t_ce():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 4)
            self.loss = torch.nn.CrossEntropyLoss()

        def forward(self, x, label):
            return self.loss(self.fc(x), label)

    return Net()


def _m_ce(reduction_given: bool):
    import mindspore as ms
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 4)
            self.loss = (nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean") if reduction_given
                         else nn.SoftmaxCrossEntropyWithLogits(sparse=True))

        def construct(self, x, label):
            return self.loss(self.fc(x), label.astype(ms.int32))

    return Net()


def _t_dice():
    import torch

    class SoftDice(torch.nn.Module):
        """The usual hand-written soft Dice loss of segmentation code: smoothing in numerator and denominator."""

        def __init__(self, smooth=1.0):
            super().__init__()
            self.smooth = smooth

        def forward(self, prob, target):
            inter = (prob * target).sum()
            return 1 - (2 * inter + self.smooth) / (prob.sum() + target.sum() + self.smooth)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 5)
            self.loss = SoftDice(1.0)

        def forward(self, x, target):
            return self.loss(torch.sigmoid(self.fc(x)), target.float())

    return Net()


def _m_dice(hand_written: bool):
    import mindspore as ms
    import mindspore.nn as nn

    class SoftDice(nn.Cell):
        def __init__(self, smooth=1.0):
            super().__init__()
            self.smooth = smooth

        def construct(self, prob, target):
            inter = (prob * target).sum()
            return 1 - (2 * inter + self.smooth) / (prob.sum() + target.sum() + self.smooth)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 5)
            self.loss = SoftDice(1.0) if hand_written else nn.DiceLoss(smooth=1.0)
            self.sigmoid = nn.Sigmoid()

        def construct(self, x, target):
            return self.loss(self.sigmoid(self.fc(x)), target.astype(ms.float32))

    return Net()


ENTRIES = [
    entry("h9a_gelu_ported_as_fast_gelu", FAMILY, "GELU", _t_gelu, lambda: _m_gelu(True), lambda: _m_gelu(False),
          ["act"], ["FastGelu|GELU|approximate"], inputs={"x": uniform(4, 6, low=-3.0, high=3.0)},
          cause_pattern=r"\bFastGe[Ll]u\b|\bfast_gelu\b|\bGELU\b[^.]*\bapproximate\s*=\s*False\b"
                        r"|\bapproximate\s*=\s*(False|'none'|\"none\")"),
    entry("h9a_gru_batch_first_not_passed", FAMILY, "GRU", _t_gru, lambda: _m_gru(False), lambda: _m_gru(True),
          ["rnn"], ["batch_first"], inputs={"x": uniform(3, 6, 4)},
          cause_pattern=r"\bbatch_first\b"),
    entry("h9a_layernorm_default_epsilon_small_features", FAMILY, "LayerNorm", _t_ln, lambda: _m_ln(False),
          lambda: _m_ln(True), ["norm"], ["epsilon|eps"], inputs={"x": uniform(4, 6, low=-0.003, high=0.003)},
          cause_pattern=r"\b(epsilon|eps)\b[^.]*\b(1e-0?5|0\.00001|1e-0?7)\b"),
    entry("h9a_softmax_ce_with_logits_default_reduction", FAMILY, "CrossEntropyLoss", _t_ce, lambda: _m_ce(False),
          lambda: _m_ce(True), ["loss"], ["reduction"],
          inputs={"x": uniform(5, 6), "label": integers(5, high=4)}, fails_with="shape",
          cause_pattern=r"\breduction\b[^.]*\bmean\b|\bmean\b[^.]*\breduction\b"),
    entry("h9a_soft_dice_loss_ported_as_nn_diceloss", FAMILY, "probe: hand-written soft Dice vs nn.DiceLoss",
          _t_dice, lambda: _m_dice(False), lambda: _m_dice(True), ["loss"], ["DiceLoss|smooth|formula"],
          inputs={"x": uniform(4, 6), "target": mask(4, 5)},
          cause_pattern=r"\bDiceLoss\b|\bsmooth\b[^.]*\b(numerator|denominator)\b|\bsquared?\b[^.]*\bsums?\b"),
]
