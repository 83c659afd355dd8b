"""Held-out set 7, half a (family h7-port): two small model blocks written from their public architecture
descriptions and ported as porters do, each naive port with one MindSpore API difference. Written blind
(without reading migcheck's localization, mapping, judging or running code, or other entries' causes)."""
from __future__ import annotations

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import Parameter, Tensor, ops
from mindspore import nn as mnn
from torch import nn as tnn

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

# ---------------------------------------------------------------- SincNet front end (Ravanelli & Bengio, 2018)
# The first layer learns only each band-pass filter's low cut-off and band width; the filter is
# 2 f2 sinc(2 f2 n) - 2 f1 sinc(2 f1 n) (normalized frequencies), windowed, and convolved with the waveform;
# then |.|, max-pooling and a classifier. This one uses a Blackman window (torch.blackman_window).

TAPS = 9


class TorchSincConv(tnn.Module):
    def __init__(self, filters=4):
        super().__init__()
        self.low = tnn.Parameter(torch.linspace(0.02, 0.2, filters).unsqueeze(1))
        self.band = tnn.Parameter(torch.full((filters, 1), 0.1))

    def forward(self, x):
        n = torch.arange(TAPS, dtype=torch.float32) - (TAPS - 1) / 2
        f1 = self.low.abs() + 0.01
        f2 = f1 + self.band.abs()
        taps = 2 * f2 * torch.sinc(2 * f2 * n) - 2 * f1 * torch.sinc(2 * f1 * n)
        window = torch.blackman_window(TAPS, periodic=False)
        return F.conv1d(x, (taps * window).unsqueeze(1), padding=TAPS // 2)


class TorchSincNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.sinc = TorchSincConv()
        self.pool = tnn.MaxPool1d(3)
        self.fc = tnn.Linear(32, 3)

    def forward(self, wav):
        return self.fc(self.pool(self.sinc(wav).abs()).flatten(1))


class MsSincConv(mnn.Cell):
    def __init__(self, correct, filters=4):
        super().__init__()
        self.low = Parameter(Tensor(np.linspace(0.02, 0.2, filters, dtype=np.float32)[:, None]), name="low")
        self.band = Parameter(Tensor(np.full((filters, 1), 0.1, np.float32)), name="band")
        self.correct = correct

    def construct(self, x):
        n = ops.arange(TAPS, dtype=ms.float32) - (TAPS - 1) / 2
        f1 = ops.abs(self.low) + 0.01
        f2 = f1 + ops.abs(self.band)
        taps = 2 * f2 * ops.sinc(2 * f2 * n) - 2 * f1 * ops.sinc(2 * f1 * n)
        if self.correct:
            window = ops.blackman_window(Tensor(TAPS, ms.int32), periodic=False)
        else:
            window = ops.blackman_window(TAPS, periodic=False)
        return ops.conv1d(x, (taps * window).expand_dims(1), pad_mode="pad", padding=TAPS // 2)


class MsSincNet(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.sinc = MsSincConv(correct)
        self.pool = mnn.MaxPool1d(3, 3)
        self.fc = mnn.Dense(32, 3)

    def construct(self, wav):
        y = self.pool(ops.abs(self.sinc(wav)))
        return self.fc(y.reshape(y.shape[0], -1))


# ---------------------------------------------------------------- pointer-generator output (See et al., 2017)
# P(w) = p_gen * P_vocab(w) + (1 - p_gen) * sum of the attention on the source positions holding w, computed in
# log space: logaddexp(log p_gen + log P_vocab, log(1 - p_gen) + log P_copy). Banned vocabulary entries are masked
# to -inf before the softmax; a word that is both banned and absent from the source has -inf on both sides.

VOCAB, SRC = 6, 4
SRC_IDS = np.array([[0, 1, 1, 2], [3, 3, 4, 0], [5, 2, 0, 1], [1, 1, 1, 1]], np.int64)
ALLOWED = np.array([[1, 0, 1, 0, 1, 0], [0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 0, 0], [1, 1, 1, 1, 1, 1]], bool)


class TorchPointerGen(tnn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.vocab = tnn.Linear(hidden, VOCAB)
        self.attn = tnn.Linear(hidden, SRC)
        self.gate = tnn.Linear(hidden, 1)

    def forward(self, state, src_ids, allowed):
        log_vocab = F.log_softmax(self.vocab(state).masked_fill(~allowed, float("-inf")), dim=-1)
        attn = F.softmax(self.attn(state), dim=-1)
        copy = (attn.unsqueeze(-1) * F.one_hot(src_ids, VOCAB).float()).sum(1)
        p_gen = torch.sigmoid(self.gate(state))
        log_final = torch.logaddexp(torch.log(p_gen) + log_vocab, torch.log(1 - p_gen) + torch.log(copy))
        return log_final.exp()


class MsPointerGen(mnn.Cell):
    def __init__(self, correct, hidden=8):
        super().__init__()
        self.vocab = mnn.Dense(hidden, VOCAB)
        self.attn = mnn.Dense(hidden, SRC)
        self.gate = mnn.Dense(hidden, 1)
        self.correct = correct

    def construct(self, state, src_ids, allowed):
        logits = ops.masked_fill(self.vocab(state), ops.logical_not(allowed), float("-inf"))
        log_vocab = ops.log_softmax(logits, -1)
        attn = ops.softmax(self.attn(state), -1)
        onehot = ops.one_hot(src_ids, VOCAB, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))
        copy = (attn.expand_dims(-1) * onehot).sum(1)
        p_gen = ops.sigmoid(self.gate(state))
        a = ops.log(p_gen) + log_vocab
        b = ops.log(1 - p_gen) + ops.log(copy)
        if self.correct:
            m = ops.maximum(a, b)
            log_final = ops.where(m == float("-inf"), m, m + ops.log1p(ops.exp(-ops.abs(a - b))))
        else:
            log_final = ops.logaddexp(a, b)
        return ops.exp(log_final)


ENTRIES = [
    entry("h7a_port_sincnet_blackman_window_int_length_raises", "h7-port", "model: SincNet (Ravanelli & Bengio "
          "2018) band-pass front end with a Blackman window; probe: ops.blackman_window takes its window_length as "
          "a Tensor (ops.hann_window takes an int)", TorchSincNet, lambda: MsSincNet(False), lambda: MsSincNet(True),
          ("sinc",), ("blackman_window|window_length|Tensor",), inputs={"wav": uniform(2, 1, 24)},
          fails_with="error",
          cause_pattern=r"\bwindow_length\b[^.]*\bTensor\b|\bblackman_window\b[^.]*\bTensor\b|\bTensor\(\s*(9|TAPS)"
                        r"\s*,\s*(ms\.|mindspore\.)?int32\s*\)"),
    entry("h7a_port_pointer_generator_logaddexp_both_neg_inf", "h7-port", "model: pointer-generator network (See "
          "et al. 2017) output distribution in log space; probe: ops.logaddexp(-inf, -inf) is NaN (torch: -inf)",
          TorchPointerGen, lambda: MsPointerGen(False), lambda: MsPointerGen(True), ("after:gate",),
          ("logaddexp|-inf|nan",),
          inputs={"state": uniform(4, 8), "src_ids": given(SRC_IDS), "allowed": given(ALLOWED)},
          fails_with="nonfinite",
          cause_pattern=r"\blogaddexp\b[^.]*(-inf|\binf\w*|\bnan\b)|(-inf|\binfinit\w*|\bnan\b)[^.]*\blogaddexp\b"),
]
