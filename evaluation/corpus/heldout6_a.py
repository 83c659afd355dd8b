"""Held-out set 6, half a: single-API differences (family "h6", names h6a_*): layers and losses.

The functional ops and the error entry are in heldout6_a_ops.py, the learning-rate schedule in
heldout6_a_train.py, the two model blocks in heldout6_a_ports.py.

Written blind (no reading of migcheck's localization, mapping, judging or running code). Each entry is a small
network in which one layer, loss, functional op or learning-rate schedule is ported with one realistic mistake;
the correct port differs from the naive one in that one place only. Sources: MindSpore's PyTorch API-difference
pages where they apply, otherwise torch 2.13 / MindSpore 2.10 behaviour probed on CPU ("probe: ...").
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

FAMILY = "h6"
PROBE = "probe (torch 2.13 / MindSpore 2.10, CPU): "

# ---------------------------------------------------------------------------------------------------------------
# Layers and losses
# ---------------------------------------------------------------------------------------------------------------

# 1. GaussianNLLLoss: torch clamps `var` to eps inside no_grad (the clamp is invisible to autograd, the gradient
#    still reaches var); mindspore.nn.GaussianNLLLoss uses ops.maximum, whose gradient is zero where var < eps.

def _gnll_torch():
    import torch.nn as nn

    return nn.GaussianNLLLoss()


def _gnll_ms_naive():
    import mindspore.nn as nn

    return nn.GaussianNLLLoss()


def _gnll_ms_correct():
    import mindspore.nn as nn
    import mindspore.ops as ops

    class GaussianNLL(nn.Cell):
        def __init__(self, eps=1e-6):
            super().__init__()
            self.eps = eps

        def construct(self, mean, target, variance):
            # value clamped like torch, gradient passed straight through to `variance` like torch's no_grad clamp_
            var = variance + ops.stop_gradient(ops.maximum(variance, self.eps) - variance)
            loss = 0.5 * (ops.log(var) + ops.square(mean - target) / var)
            return loss.mean()

    return GaussianNLL()


_GNLL_VAR = np.array([[0.5, 2e-7, 0.3], [1e-7, 0.8, 1.2], [0.05, 0.6, 4e-7], [0.9, 0.2, 0.4]], dtype=np.float32)

GNLL = entry(
    "h6a_gaussian_nll_var_below_eps_gradient", FAMILY,
    PROBE + "torch.nn.GaussianNLLLoss clamps var with clamp_ under no_grad (gradient passes through); "
    "mindspore.nn.GaussianNLLLoss uses maximum(var, eps) (zero gradient below eps)",
    _gnll_torch, _gnll_ms_naive, _gnll_ms_correct,
    layers=("<root>",), causes=("GaussianNLLLoss|var|eps|clamp|maximum",),
    inputs={"mean": uniform(4, 3), "target": uniform(4, 3), "variance": given(_GNLL_VAR)},
    checks=("backward",),
    cause_pattern=r"\bvar(iance)?\b[^.]*\b(clamp\w*|maximum|eps|1e-0?6)\b|\b(clamp\w*|maximum)\b[^.]*\bvar(iance)?\b"
                  r"|\b(stop_gradient|no_grad|straight[- ]through)\b",
)


# 2. CrossEntropyLoss(ignore_index=0) (padding label) ported as SoftmaxCrossEntropyWithLogits(sparse=True), which
#    has no ignore_index: the padded positions are averaged in.

def _ce_torch():
    import torch.nn as nn

    return nn.CrossEntropyLoss(ignore_index=0)


def _ce_ms(ignore):
    def make():
        import mindspore as ms
        import mindspore.nn as nn

        class Loss(nn.Cell):
            def __init__(self):
                super().__init__()
                if ignore:
                    self.ce = nn.CrossEntropyLoss(ignore_index=0)
                else:
                    self.ce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

            def construct(self, logits, labels):
                return self.ce(logits, labels.astype(ms.int32))  # MindSpore's CPU kernels take int32 labels

        return Loss()
    return make


CE_IGNORE = entry(
    "h6a_cross_entropy_ignore_index_as_sparse_softmax_ce", FAMILY,
    "CrossEntropyLoss",  # the older SoftmaxCrossEntropyWithLogits(sparse=True) has no ignore_index
    _ce_torch, _ce_ms(False), _ce_ms(True),
    layers=("<root>",), causes=("ignore_index",),
    inputs={"logits": uniform(8, 5, low=-2.0, high=2.0),
            "labels": given(np.array([0, 2, 0, 1, 3, 0, 4, 2], dtype=np.int64))},
    cause_pattern=r"\bignore_index\b|\bignor\w*\b[^.]*\b(padding|label 0|class 0|index 0)\b",
)


# 3. nn.RNN(nonlinearity='relu') (an IRNN) ported without nonlinearity: MindSpore's default is tanh.

def _rnn_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(4, 6, nonlinearity="relu", batch_first=True)
            self.fc = nn.Linear(6, 3)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.fc(out)

    return Net()


def _rnn_ms(nonlinearity):
    def make():
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                if nonlinearity is None:
                    self.rnn = nn.RNN(4, 6, batch_first=True)
                else:
                    self.rnn = nn.RNN(4, 6, nonlinearity=nonlinearity, batch_first=True)
                self.fc = nn.Dense(6, 3)

            def construct(self, x):
                out, _ = self.rnn(x)
                return self.fc(out)

        return Net()
    return make


RNN_RELU = entry(
    "h6a_rnn_relu_nonlinearity_default_tanh", FAMILY,
    PROBE + "mindspore.nn.RNN nonlinearity defaults to 'tanh' (torch IRNN uses nonlinearity='relu')",
    _rnn_torch, _rnn_ms(None), _rnn_ms("relu"),
    layers=("rnn",), causes=("nonlinearity|relu|tanh",),
    inputs={"x": uniform(2, 5, 4, low=-2.0, high=2.0)},
    cause_pattern=r"\bnonlinearity\b[^.]*\brelu\b|\brelu\b[^.]*\bnonlinearity\b|\btanh\b[^.]*\brelu\b[^.]*\b(rnn|recurren\w*)\b",
)


# 4. MaxPool2d(3, stride=2, padding=1) (the ResNet stem pool) ported with pad_mode='same': on an even input the
#    output shape is the same, but 'same' pads only on the bottom/right, so every window shifts.

def _pool_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 1)
            self.pool = nn.MaxPool2d(3, stride=2, padding=1)

        def forward(self, x):
            return self.pool(self.conv(x))

    return Net()


def _pool_ms(same):
    def make():
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(2, 3, 1, has_bias=True)
                if same:
                    self.pool = nn.MaxPool2d(3, stride=2, pad_mode="same")
                else:
                    self.pool = nn.MaxPool2d(3, stride=2, pad_mode="pad", padding=1)

            def construct(self, x):
                return self.pool(self.conv(x))

        return Net()
    return make


MAXPOOL_SAME = entry(
    "h6a_maxpool_padding1_as_same_pad_mode", FAMILY,
    "MaxPool2d",
    _pool_torch, _pool_ms(True), _pool_ms(False),
    layers=("pool",), causes=("pad_mode|padding|same",),
    inputs={"x": uniform(2, 2, 8, 8)},
    cause_pattern=r"\bpad_mode\s*=\s*['\"]pad['\"]|\bpadding\s*=\s*1\b|\bpad_mode\b[^.]*\bsame\b"
                  r"|\bsame\b[^.]*\b(asymmetric\w*|bottom|right)\b",
)



ENTRIES = [GNLL, CE_IGNORE, RNN_RELU, MAXPOOL_SAME]
