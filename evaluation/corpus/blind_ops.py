"""Blind held-out corpus (issue 15), part 2: functional ops inside forward/construct, losses, optimizers.

Written without reading migcheck's localization code or the other corpus entries' expected causes.
"""
from __future__ import annotations

import dataclasses
import math

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops
from torch import nn as tnn

from migcheck.case import FrameworkPair
from migcheck.specs import given, integers, mask, uniform
from evaluation.corpus.build import entry

B = "blind"


# --------------------------------------------------------------------------- functional ops in forward/construct
class GluPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 6)

    def forward(self, x):  # x: (N, 6, 6); a gated channel mix along dim 1
        return F.glu(self.fc(x), dim=1)


class GluMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.fc = mnn.Dense(6, 6)
        self.axis = -1 if naive else 1

    def construct(self, x):
        return ops.glu(self.fc(x), axis=self.axis)


class CausalPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 6)
        self.out = tnn.Linear(6, 6)

    def forward(self, x):
        h = self.fc(x)
        t = h.shape[1]
        scores = h @ h.transpose(1, 2) / math.sqrt(6)
        future = torch.triu(torch.ones(t, t), diagonal=1).bool()
        attn = scores.masked_fill(future, -1e9).softmax(-1)
        return self.out(attn @ h)


class CausalMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.fc = mnn.Dense(6, 6)
        self.out = mnn.Dense(6, 6)
        self.diagonal = 0 if naive else 1

    def construct(self, x):
        h = self.fc(x)
        t = h.shape[1]
        scores = ops.matmul(h, h.transpose(0, 2, 1)) / math.sqrt(6)
        future = ops.triu(ops.ones((t, t), ms.float32), diagonal=self.diagonal).astype(ms.bool_)
        attn = ops.softmax(ops.masked_fill(scores, future, -1e9), axis=-1)
        return self.out(ops.matmul(attn, h))


class PadMaskPt(tnn.Module):
    """Attention over keys with a padding mask (True = padded key, torch's key_padding_mask convention)."""

    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 6)
        self.out = tnn.Linear(6, 6)

    def forward(self, x, pad):
        h = self.fc(x)
        scores = h @ h.transpose(1, 2) / math.sqrt(6)
        attn = scores.masked_fill(pad[:, None, :], -1e9).softmax(-1)
        return self.out(attn @ h)


class PadMaskMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.fc = mnn.Dense(6, 6)
        self.out = mnn.Dense(6, 6)
        self.naive = naive

    def construct(self, x, pad):
        h = self.fc(x)
        scores = ops.matmul(h, h.transpose(0, 2, 1)) / math.sqrt(6)
        # naive: MindSpore's attention_mask convention (1 = attend) applied to torch's key_padding_mask
        masked = ops.logical_not(pad) if self.naive else pad
        attn = ops.softmax(ops.masked_fill(scores, masked[:, None, :], -1e9), axis=-1)
        return self.out(ops.matmul(attn, h))


class MaxPoolFeatPt(tnn.Module):
    """Max over the sequence, then a head: torch.max(dim) returns (values, indices)."""

    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 6)
        self.head = tnn.Linear(6, 3)

    def forward(self, x):
        values, _ = torch.max(self.fc(x), dim=1)
        return self.head(values)


class MaxPoolFeatMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.fc = mnn.Dense(6, 6)
        self.head = mnn.Dense(6, 3)
        self.argmax = ops.ArgMaxWithValue(axis=1)
        self.naive = naive

    def construct(self, x):
        first, second = self.argmax(self.fc(x))  # ArgMaxWithValue returns (index, value)
        values = first.astype(ms.float32) if self.naive else second
        return self.head(values)


class CenterPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 4)
        self.out = tnn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        return self.out(h - h.mean(dim=-1, keepdim=True))


class CenterMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        self.fc = mnn.Dense(4, 4)
        self.out = mnn.Dense(4, 4)
        self.mean = ops.ReduceMean(keep_dims=not naive)

    def construct(self, x):
        h = self.fc(x)
        return self.out(h - self.mean(h, -1))


# --------------------------------------------------------------------------- losses (the whole module)
class KlLogTargetMs(mnn.Cell):
    """torch's KLDivLoss(log_target=True): MindSpore's KLDivLoss takes probabilities, so exp() the target."""

    def __init__(self):
        super().__init__()
        self.inner = mnn.KLDivLoss("sum")

    def construct(self, x, target):
        return self.inner(x, ops.exp(target))


class CtcPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.loss = tnn.CTCLoss(blank=0)

    def forward(self, log_probs, targets, in_len, tgt_len):
        return self.loss(log_probs.log_softmax(-1), targets, in_len, tgt_len)


class CtcMs(mnn.Cell):
    def __init__(self, naive: bool):
        super().__init__()
        # naive: TensorFlow's convention (the old ops.CTCLoss) puts the blank last
        self.loss = mnn.CTCLoss(blank=4 if naive else 0)

    def construct(self, log_probs, targets, in_len, tgt_len):
        return self.loss(ops.log_softmax(log_probs, -1), targets.astype(ms.int32), in_len.astype(ms.int32),
                         tgt_len.astype(ms.int32))


# --------------------------------------------------------------------------- optimizers
class RegPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


class RegMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x)


def _adam_betas_pt(params):
    return torch.optim.Adam(params, lr=0.05, betas=(0.9, 0.98))


def _adam_betas_naive(params):
    return mnn.Adam(params, learning_rate=0.05)


def _adam_betas_correct(params):
    return mnn.Adam(params, learning_rate=0.05, beta1=0.9, beta2=0.98)


def _ams_pt(params):  # a GAN-style configuration
    return torch.optim.Adam(params, lr=0.05, betas=(0.5, 0.9), amsgrad=True)


def _ams_naive(params):
    return mnn.Adam(params, learning_rate=0.05, beta1=0.5, beta2=0.9)


def _ams_correct(params):
    return mnn.Adam(params, learning_rate=0.05, beta1=0.5, beta2=0.9, use_amsgrad=True)


def _pair(torch_factory, ms_factory):
    return torch_factory, (lambda: ms_factory(True)), (lambda: ms_factory(False))


def _opt(name, source, opt_pt, opt_naive, opt_correct, causes):
    e = entry(name, B, source, RegPt, RegMs, RegMs, ("optimizer",), causes,
              inputs={"x": uniform(8, 4), "y": uniform(8, 3)}, targets=("y",),
              loss=FrameworkPair(torch=tnn.MSELoss, mindspore=mnn.MSELoss), checks=("step",), steps=8,
              optimizer=FrameworkPair(torch=opt_pt, mindspore=opt_correct))
    naive = dataclasses.replace(e.naive, optimizer=FrameworkPair(torch=opt_pt, mindspore=opt_naive))
    return dataclasses.replace(e, naive=naive)



def _build():
    out = []
    # functional ops inside forward/construct
    out.append(entry("blind_glu_default_axis", B, "GLU", *_pair(GluPt, GluMs), ("after:fc",), ("dim|axis",),
                     inputs=[uniform(2, 6, 6)], fails_with="shape"))
    out.append(entry("blind_triu_diagonal", B, "triu", *_pair(CausalPt, CausalMs), ("after:fc",),
                     ("diagonal|triu",), inputs=[uniform(2, 5, 6)]))
    out.append(entry("blind_padding_mask_inverted", B, "masked_fill", *_pair(PadMaskPt, PadMaskMs), ("after:fc",),
                     ("mask|logical_not|invert",), inputs={"x": uniform(2, 5, 6), "pad": mask(2, 5, p=0.3)}))
    out.append(entry("blind_argmax_with_value_order", B, "ArgMaxWithValue", *_pair(MaxPoolFeatPt, MaxPoolFeatMs),
                     ("after:fc",), ("index|indices|argmax|order",), inputs=[uniform(2, 5, 6)]))
    out.append(entry("blind_reduce_mean_keep_dims", B, "ReduceMean", *_pair(CenterPt, CenterMs), ("after:fc",),
                     ("keepdim|keep_dims|broadcast",), inputs=[uniform(4, 4)]))
    # losses
    y = given(np.array([1, -1, 1, -1, 1, -1], np.int64))
    out.append(entry("blind_cosine_embedding_margin", B, "CosineEmbeddingLoss",
                     lambda: tnn.CosineEmbeddingLoss(margin=0.5), lambda: mnn.CosineEmbeddingLoss(),
                     lambda: mnn.CosineEmbeddingLoss(margin=0.5), ("<root>",), ("margin",),
                     inputs={"x1": uniform(6, 4), "x2": uniform(6, 4), "y": y}))
    out.append(entry("blind_margin_ranking_margin", B, "MarginRankingLoss",
                     lambda: tnn.MarginRankingLoss(margin=0.3), lambda: mnn.MarginRankingLoss(),
                     lambda: mnn.MarginRankingLoss(margin=0.3), ("<root>",), ("margin",),
                     inputs={"a": uniform(8), "b": uniform(8), "y": given(np.array([1, -1] * 4, np.float32))}))
    out.append(entry("blind_kl_div_log_target", B, "KLDivLoss", lambda: tnn.KLDivLoss(reduction="sum", log_target=True),
                     lambda: mnn.KLDivLoss("sum"), KlLogTargetMs, ("<root>",), ("log_target|log-target|exp(",),
                     inputs={"x": uniform(4, 5, low=-3, high=-0.1), "t": uniform(4, 5, low=-3, high=-0.1)}))
    out.append(entry("blind_ctc_blank_last", B, "CTCLoss", CtcPt, lambda: CtcMs(True), lambda: CtcMs(False),
                     ("loss",), ("blank",),
                     inputs={"log_probs": uniform(6, 2, 5, low=-4, high=4), "targets": integers(2, 3, low=1, high=4),
                             "in_len": given(np.array([6, 6], np.int64)), "tgt_len": given(np.array([3, 3], np.int64))}))
    # optimizers
    out.append(_opt("blind_adam_betas_dropped", "Adam", _adam_betas_pt, _adam_betas_naive, _adam_betas_correct,
                    ("beta2|beta|0.98",)))
    out.append(_opt("blind_adam_amsgrad_dropped", "Adam", _ams_pt, _ams_naive, _ams_correct, ("amsgrad",)))
    return out


ENTRIES = _build()
