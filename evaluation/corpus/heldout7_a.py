"""Held-out set 7, half a (family h7): single differences inside small nets, written blind (without reading
migcheck's localization, mapping, judging or running code, or other entries' causes). Each naive port has one
nameable MindSpore difference; each correct port the same net ported right. Sources: probes of torch 2.13 /
MindSpore 2.10 on CPU."""
from __future__ import annotations

import mindspore as ms
import torch
from mindspore import ops
from mindspore import nn as mnn
from torch import nn as tnn

from evaluation.corpus.build import entry
from migcheck.specs import integers, uniform

# ---------------------------------------------------------------- layers and losses


class TorchSmoothL1Beta0(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 4)
        self.loss = tnn.SmoothL1Loss(beta=0.0)  # torch: beta=0 is exactly L1Loss

    def forward(self, x, y):
        return self.loss(self.fc(x), y)


class MsSmoothL1(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc = mnn.Dense(6, 4)
        self.loss = mnn.L1Loss() if correct else mnn.SmoothL1Loss(beta=0.0, reduction="mean")

    def construct(self, x, y):
        return self.loss(self.fc(x), y)


class TorchFrameCE(tnn.Module):
    """Per-frame classifier: a 1x1 Conv1d gives (N, classes, T) logits; CrossEntropyLoss takes classes on dim 1."""
    def __init__(self):
        super().__init__()
        self.head = tnn.Conv1d(3, 5, 1)
        self.loss = tnn.CrossEntropyLoss()

    def forward(self, x, labels):
        return self.loss(self.head(x), labels)


class MsFrameCE(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.head = mnn.Conv1d(3, 5, 1, has_bias=True)
        self.loss = mnn.CrossEntropyLoss() if correct else mnn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                             reduction="mean")

    def construct(self, x, labels):
        return self.loss(self.head(x), labels.astype(ms.int32))


class TorchConv1x3(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, (1, 3), padding=(0, 1))
        self.fc = tnn.Linear(3, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean(dim=(2, 3)))


class MsConv1x3(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        pad = (0, 0, 1, 1) if correct else (0, 1)  # MindSpore: (top, bottom, left, right)
        self.conv = mnn.Conv2d(2, 3, (1, 3), pad_mode="pad", padding=pad, has_bias=True)
        self.fc = mnn.Dense(3, 2)

    def construct(self, x):
        return self.fc(ops.relu(self.conv(x)).mean(axis=(2, 3)))


class TorchPReLU(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(5, 4)
        self.act = tnn.PReLU(num_parameters=4)
        self.fc2 = tnn.Linear(4, 3)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MsPReLU(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(5, 4)
        self.act = mnn.PReLU(channel=4) if correct else mnn.PReLU()
        self.fc2 = mnn.Dense(4, 3)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TorchGruNoBias(tnn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = tnn.GRU(3, 4, bias=False, batch_first=True)
        self.fc = tnn.Linear(4, 2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out)


class MsGruNoBias(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.rnn = mnn.GRU(3, 4, has_bias=False, batch_first=True) if correct else mnn.GRU(3, 4, batch_first=True)
        self.fc = mnn.Dense(4, 2)

    def construct(self, x):
        out, _ = self.rnn(x)
        return self.fc(out)


LAYERS = [
    entry("h7a_smooth_l1_beta_zero_raises", "h7", "probe: SmoothL1Loss(beta=0.0), torch's L1 limit; MindSpore's kernel "
          "requires beta > 0", TorchSmoothL1Beta0, lambda: MsSmoothL1(False), lambda: MsSmoothL1(True), ("loss",),
          ("beta|L1Loss",), inputs={"x": uniform(4, 6), "y": uniform(4, 4)}, fails_with="error",
          cause_pattern=r"\bbeta\b[^.]*\b(0|0\.0|zero|positive|greater than 0|> ?0)\b|\bL1Loss\b|\bl1_loss\b"),
    entry("h7a_softmax_ce_with_logits_class_axis_raises", "h7", "probe: CrossEntropyLoss on (N, C, T) logits "
          "ported as SoftmaxCrossEntropyWithLogits(sparse=True), which wants classes on the last axis",
          TorchFrameCE, lambda: MsFrameCE(False), lambda: MsFrameCE(True), ("loss",),
          ("SoftmaxCrossEntropyWithLogits|CrossEntropyLoss|class axis",),
          inputs={"x": uniform(2, 3, 7), "labels": integers(2, 7, high=5)}, fails_with="error",
          cause_pattern=r"\bCrossEntropyLoss\b|\bcross_entropy\b|\bSoftmaxCrossEntropyWithLogits\b[^.]*\b(last|axis|"
                        r"class(es)?|transpose|channels?)\b|\b(transpose|swapaxes|moveaxis)\b[^.]*\b(class|logits)\w*"),
    entry("h7a_conv2d_padding_pair_raises", "h7", "Conv2d", TorchConv1x3, lambda: MsConv1x3(False),
          lambda: MsConv1x3(True), ("conv",), ("padding|pad size|top bottom left right",),
          inputs={"x": uniform(2, 2, 4, 5)}, fails_with="error",
          cause_pattern=r"\bpadding\b[^.]*\(\s*0\s*,\s*0\s*,\s*1\s*,\s*1\s*\)|\bpadding\b[^.]*\b(4|four)[- ]?"
                        r"(tuple|values|ints|integers|elements)\b|\btop\b[^.]*\bbottom\b[^.]*\bleft\b[^.]*\bright\b"),
    entry("h7a_prelu_per_channel_as_single_slope", "h7", "PReLU", TorchPReLU, lambda: MsPReLU(False),
          lambda: MsPReLU(True), ("act",), ("channel|num_parameters",), inputs={"x": uniform(3, 5)},
          fails_with="structure",
          cause_pattern=r"\bchannel\s*=\s*4\b|\bchannel\b[^.]*\bnum_parameters\b|\bnum_parameters\b[^.]*\bchannel\b"),
    entry("h7a_gru_bias_false_as_default_has_bias", "h7", "GRU", TorchGruNoBias, lambda: MsGruNoBias(False),
          lambda: MsGruNoBias(True), ("rnn",), ("has_bias|bias",), inputs={"x": uniform(2, 5, 3)},
          fails_with="structure", cause_pattern=r"\bhas_bias\s*=\s*False\b|\bhas_bias\b[^.]*\bFalse\b"),
]

ENTRIES = LAYERS
