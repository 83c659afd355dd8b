"""Held-out set 4, half a: single-difference layers inside small nets (family "h4", names h4a_*).

Written blind (no reading of migcheck's localization, mapping or judging code, nor of other entries' causes).
Each pitfall was probed on torch 2.13 / MindSpore 2.10 (CPU): the naive port gives other numbers, another
shape or an error; the correct twin agrees. The four model blocks live in heldout4_a_ports.py.
"""
from __future__ import annotations

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from evaluation.corpus.build import entry
from migcheck.specs import integers, uniform

FAM = "h4"
PROBE = "probe: torch 2.13 / MindSpore 2.10 CPU: "


# --- activations -------------------------------------------------------------------------------------------

class TorchLeaky(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.act = tnn.LeakyReLU()
        self.fc2 = tnn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def ms_leaky(act):
    class MsLeaky(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.act = act()
            self.fc2 = mnn.Dense(8, 4)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))
    return MsLeaky


class TorchElu(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.act = tnn.ELU(alpha=0.5)
        self.fc2 = tnn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MsElu05(mnn.Cell):
    """ELU with alpha=0.5 written out: nn.ELU / ops.Elu accept alpha=1.0 only."""

    def construct(self, x):
        return ops.where(x > 0, x, 0.5 * (ops.exp(ops.minimum(x, 0.0)) - 1.0))


def ms_elu(act):
    class MsElu(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.act = act()
            self.fc2 = mnn.Dense(8, 4)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))
    return MsElu


# --- normalization -----------------------------------------------------------------------------------------

class TorchBnMlp(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.bn = tnn.BatchNorm1d(8)
        self.fc2 = tnn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


def ms_bn_mlp(momentum):
    class MsBnMlp(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.bn = mnn.BatchNorm1d(8, momentum=momentum)
            self.fc2 = mnn.Dense(8, 4)

        def construct(self, x):
            return self.fc2(ops.relu(self.bn(self.fc1(x))))
    return MsBnMlp


# --- pooling -----------------------------------------------------------------------------------------------

class TorchAvgPad(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1)
        self.pool = tnn.AvgPool2d(3, stride=1, padding=1)

    def forward(self, x):
        return self.pool(self.conv(x))


def ms_avg_pad(pool):
    class MsAvgPad(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv2d(2, 3, 1, pad_mode="valid", has_bias=True)
            self.pool = pool()

        def construct(self, x):
            return self.pool(self.conv(x))
    return MsAvgPad


class TorchMaxPool1d(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv1d(3, 4, 3, padding=1)
        self.pool = tnn.MaxPool1d(2)

    def forward(self, x):
        return self.pool(torch.tanh(self.conv(x)))


def ms_maxpool1d(pool):
    class MsMaxPool1d(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv1d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
            self.pool = pool()

        def construct(self, x):
            return self.pool(ops.tanh(self.conv(x)))
    return MsMaxPool1d


# --- convolutions ------------------------------------------------------------------------------------------

class TorchUpConv(tnn.Module):
    def __init__(self):
        super().__init__()
        self.pre = tnn.Conv2d(2, 2, 1)
        self.up = tnn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up(torch.relu(self.pre(x)))


class MsUpConvLiteral(mnn.Cell):
    """torch's arguments copied. MindSpore (like the Conv2dTranspose page's advice, nn.Pad after the layer) fills
    output_padding's extra row/column with zeros, bias included; torch computes them (probed)."""

    def __init__(self):
        super().__init__()
        self.pre = mnn.Conv2d(2, 2, 1, pad_mode="valid", has_bias=True)
        self.up = mnn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True)

    def construct(self, x):
        return self.up(ops.relu(self.pre(x)))


class MsUpConvCropped(mnn.Cell):
    """The full transposed convolution (2H+1), cropped as torch's padding=1, output_padding=1 does."""

    def __init__(self):
        super().__init__()
        self.pre = mnn.Conv2d(2, 2, 1, pad_mode="valid", has_bias=True)
        self.up = mnn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="valid", has_bias=True)

    def construct(self, x):
        y = self.up(ops.relu(self.pre(x)))
        return y[:, :, 1:, 1:]


class TorchCircConv(tnn.Module):
    def __init__(self):
        super().__init__()
        self.pre = tnn.Conv2d(2, 2, 1)
        self.conv = tnn.Conv2d(2, 3, 3, padding=1, padding_mode="circular")

    def forward(self, x):
        return self.conv(torch.relu(self.pre(x)))


class MsCircConvZeros(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.pre = mnn.Conv2d(2, 2, 1, pad_mode="valid", has_bias=True)
        self.conv = mnn.Conv2d(2, 3, 3, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        return self.conv(ops.relu(self.pre(x)))


class MsCircConvWrapped(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.pre = mnn.Conv2d(2, 2, 1, pad_mode="valid", has_bias=True)
        self.conv = mnn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True)

    def construct(self, x):
        return self.conv(ops.pad(ops.relu(self.pre(x)), (1, 1, 1, 1), mode="circular"))


# --- recurrent ---------------------------------------------------------------------------------------------

class TorchLstmHead(tnn.Module):
    def __init__(self):
        super().__init__()
        self.proj = tnn.Linear(3, 4)
        self.rnn = tnn.LSTM(4, 5, batch_first=True)
        self.head = tnn.Linear(5, 2)

    def forward(self, x):
        out, _ = self.rnn(self.proj(x))
        return self.head(out)


def ms_lstm_head(batch_first):
    class MsLstmHead(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(3, 4)
            self.rnn = mnn.LSTM(4, 5, batch_first=batch_first)
            self.head = mnn.Dense(5, 2)

        def construct(self, x):
            out, _ = self.rnn(self.proj(x))
            return self.head(out)
    return MsLstmHead


# --- losses inside a net (the loss is the net's output) ----------------------------------------------------

class TorchHuberNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 3)
        self.loss = tnn.HuberLoss(delta=2.0)

    def forward(self, x, y):
        return self.loss(self.fc(x), y)


class TorchSmoothL1Net(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 3)
        self.loss = tnn.SmoothL1Loss(beta=0.5)

    def forward(self, x, y):
        return self.loss(self.fc(x), y)


def ms_loss_net(loss):
    class MsLossNet(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(4, 3)
            self.loss = loss()

        def construct(self, x, y):
            return self.loss(self.fc(x), y)
    return MsLossNet


class TorchCeNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(5, 4)
        self.loss = tnn.CrossEntropyLoss(label_smoothing=0.1)

    def forward(self, x, label):
        return self.loss(self.fc(x), label)


def ms_ce_net(loss):
    class MsCeNet(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(5, 4)
            self.loss = loss()

        def construct(self, x, label):
            return self.loss(self.fc(x), label.astype(ms.int32))
    return MsCeNet


class TorchConvHead(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv1d(3, 4, 3, padding=1)
        self.fc = tnn.Linear(6, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)))


def ms_conv_head(**bias):
    class MsConvHead(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv1d(3, 4, 3, pad_mode="pad", padding=1, **bias)
            self.fc = mnn.Dense(6, 2)

        def construct(self, x):
            return self.fc(ops.relu(self.conv(x)))
    return MsConvHead


_LOSS_IN = {"x": uniform(6, 4, low=-2.0, high=2.0), "y": uniform(6, 3, low=-4.0, high=4.0)}

ENTRIES = [
    entry("h4a_leaky_relu_default_alpha", FAM, "LeakyReLU",
          TorchLeaky, ms_leaky(mnn.LeakyReLU), ms_leaky(lambda: mnn.LeakyReLU(alpha=0.01)),
          ["act"], ["alpha|negative_slope|0.01"], inputs=[(5, 6)],
          cause_pattern=r"\b(alpha|negative_slope)\b[^\n]*\b0?\.01\b|\b0?\.01\b[^\n]*\b(alpha|negative_slope)\b"),
    entry("h4a_elu_alpha_not_one_raises", FAM, PROBE + "nn.ELU(alpha=0.5) raises 'alpha must be 1.0' at run time",
          TorchElu, ms_elu(lambda: mnn.ELU(alpha=0.5)), ms_elu(MsElu05),
          ["act"], ["alpha|elu"], inputs=[(5, 6)], fails_with="error",
          cause_pattern=r"\balpha\b[^\n]*\b(1(\.0)?|0?\.5)\b|\belu\b[^\n]*\balpha\b"),
    entry("h4a_batchnorm1d_momentum_torch_value", FAM, "BatchNorm1d",
          TorchBnMlp, ms_bn_mlp(0.1), ms_bn_mlp(0.9),
          ["bn"], ["momentum|0.9"], inputs=[(8, 6)], checks=("train",),
          cause_pattern=r"\bmomentum\b[^\n]*\b0?\.9\b|\b0?\.9\b[^\n]*\bmomentum\b|\b1\s*-\s*momentum\b"),
    entry("h4a_avgpool_same_excludes_padding", FAM, PROBE + "nn.AvgPool2d pad_mode='same' divides by the valid count",
          TorchAvgPad, ms_avg_pad(lambda: mnn.AvgPool2d(3, 1, pad_mode="same")),
          ms_avg_pad(lambda: mnn.AvgPool2d(3, 1, pad_mode="pad", padding=1)),
          ["pool"], ["count_include_pad|pad_mode|padding"], inputs=[(2, 2, 5, 5)],
          cause_pattern=r"\bcount_include_pad\b|\bpad_mode\s*=\s*['\"]?pad\b|\bpadding\s*=\s*1\b"),
    entry("h4a_maxpool1d_default_stride_one", FAM, "MaxPool1d",
          TorchMaxPool1d, ms_maxpool1d(lambda: mnn.MaxPool1d(kernel_size=2)),
          ms_maxpool1d(lambda: mnn.MaxPool1d(kernel_size=2, stride=2)),
          ["pool"], ["stride"], inputs=[(2, 3, 8)], fails_with="shape",
          cause_pattern=r"\bstride\b[^\n]*\b2\b|\bstride\b[^\n]*\bkernel_size\b"),
    entry("h4a_conv_transpose_output_padding_zero_filled", FAM,
          "Conv2dTranspose",
          TorchUpConv, MsUpConvLiteral, MsUpConvCropped,
          ["up"], ["output_padding"], inputs=[(1, 2, 4, 4)],
          cause_pattern=r"\boutput_padding\b"),
    entry("h4a_conv_circular_padding_mode", FAM, PROBE + "Conv2d padding_mode='circular' has no nn.Conv2d pad_mode",
          TorchCircConv, MsCircConvZeros, MsCircConvWrapped,
          ["conv"], ["circular|padding_mode"], inputs=[(2, 2, 5, 5)],
          cause_pattern=r"\bcircular\b"),
    entry("h4a_lstm_batch_first_dropped", FAM, "LSTM",
          TorchLstmHead, ms_lstm_head(False), ms_lstm_head(True),
          ["rnn"], ["batch_first"], inputs=[(2, 6, 3)],
          cause_pattern=r"\bbatch_first\b[^\n]*\btrue\b|\btrue\b[^\n]*\bbatch_first\b"),
    entry("h4a_huber_ported_as_smoothl1", FAM, PROBE + "HuberLoss(delta) = delta * SmoothL1Loss(beta=delta)",
          TorchHuberNet, ms_loss_net(lambda: mnn.SmoothL1Loss(beta=2.0, reduction="mean")),
          ms_loss_net(lambda: mnn.HuberLoss(delta=2.0)),
          ["loss"], ["HuberLoss|delta"], inputs=_LOSS_IN, checks=("forward", "backward"),
          cause_pattern=r"\bHuberLoss\b|\bhuber\b|\bdelta\b[^\n]*\b2(\.0)?\b|\bdelta\b[^\n]*\b(times|multipl\w*|scal\w*)\b"),
    entry("h4a_smoothl1_default_reduction_none", FAM, "SmoothL1Loss",
          TorchSmoothL1Net, ms_loss_net(lambda: mnn.SmoothL1Loss(beta=0.5)),
          ms_loss_net(lambda: mnn.SmoothL1Loss(beta=0.5, reduction="mean")),
          ["loss"], ["reduction|mean"], inputs=_LOSS_IN, fails_with="shape",
          cause_pattern=r"\breduction\b[^\n]*\bmean\b|\bmean\b[^\n]*\breduction\b"),
    entry("h4a_cross_entropy_label_smoothing_lost", FAM,
          PROBE + "nn.SoftmaxCrossEntropyWithLogits has no label_smoothing; nn.CrossEntropyLoss has",
          TorchCeNet, ms_ce_net(lambda: mnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
          ms_ce_net(lambda: mnn.CrossEntropyLoss(label_smoothing=0.1)),
          ["loss"], ["label_smoothing"], inputs={"x": uniform(6, 5), "label": integers(6, high=4)},
          checks=("forward", "backward"),
          cause_pattern=r"\blabel_smoothing\b|\blabel smoothing\b"),
    entry("h4a_conv1d_has_bias_default_false", FAM, "Conv1d",
          TorchConvHead, ms_conv_head(), ms_conv_head(has_bias=True),
          ["conv"], ["has_bias|bias"], inputs=[(2, 3, 6)], fails_with="structure",
          cause_pattern=r"\bhas_bias\s*=\s*true\b|\bhas_bias\b[^\n]*\btrue\b"),
]

from evaluation.corpus import heldout4_a_ports  # noqa: E402  (the model blocks)

ENTRIES += heldout4_a_ports.ENTRIES
