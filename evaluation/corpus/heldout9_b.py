"""Held-out set 9, half b: single-API differences (two gradient-only, two functional ops, one that raises)
plus the model blocks of heldout9_b_ports.py (written blind to migcheck's localization code)."""
from __future__ import annotations

import mindspore as ms
import numpy as np
import torch
from mindspore import nn as msnn
from mindspore import ops
from torch import nn
from torch.nn import functional as F

from evaluation.corpus.build import entry
from evaluation.corpus.heldout9_b_ports import ENTRIES as PORT_ENTRIES
from migcheck import given, integers, uniform

H9 = "h9"


# --- Embedding with padding_idx: the padding row's gradient -------------------------------------------------
class PadEmbedPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 4, padding_idx=0)
        self.fc = nn.Linear(4, 3)

    def forward(self, ids):
        return self.fc(self.embed(ids))


class MaskedPadEmbedding(ms.nn.Cell):
    """An embedding whose padding row receives no gradient (the row's value is still looked up)."""

    def __init__(self, vocab, dim, padding_idx):
        super().__init__()
        self.embedding_table = ms.Parameter(ms.Tensor(np.zeros((vocab, dim), np.float32)), name="embedding_table")
        self.padding_idx = padding_idx

    def construct(self, ids):
        out = ops.gather(self.embedding_table, ids, 0)
        keep = ops.expand_dims((ids != self.padding_idx).astype(ms.float32), -1)
        return out * keep + ops.stop_gradient(out) * (1 - keep)


class PadEmbedMs(ms.nn.Cell):
    def __init__(self, embed):
        super().__init__()
        self.embed = embed
        self.fc = msnn.Dense(4, 3)

    def construct(self, ids):
        return self.fc(self.embed(ids))


# --- Hardswish at the kink x = -3 ---------------------------------------------------------------------------
class HswishPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.Hardswish()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(self.act(x))


class Relu6Hswish(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu6 = msnn.ReLU6()

    def construct(self, x):
        return x * self.relu6(x + 3.0) / 6.0


class HswishMs(ms.nn.Cell):
    def __init__(self, act):
        super().__init__()
        self.act = act
        self.fc = msnn.Dense(6, 3)

    def construct(self, x):
        return self.fc(self.act(x))


HSWISH_X = [[-3.0, -1.5, 0.25, 1.0, -3.0, 2.5], [0.5, -3.0, -2.0, 4.0, -0.75, -3.0]]


# --- torch.gather along the feature axis --------------------------------------------------------------------
class GatherPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 4)

    def forward(self, x, idx):
        return torch.gather(self.fc(x), 1, idx)


class GatherMs(ms.nn.Cell):
    def __init__(self, elements):
        super().__init__()
        self.fc = msnn.Dense(5, 4)
        self.elements = elements

    def construct(self, x, idx):
        h = self.fc(x)
        return ops.gather_elements(h, 1, idx) if self.elements else ops.gather(h, idx, 1)


# --- local response normalization (AlexNet settings) --------------------------------------------------------
class LrnPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 1)

    def forward(self, x):
        return F.local_response_norm(F.relu(self.conv(x)), 5, alpha=1e-4, beta=0.75, k=2.0)


class LrnMs(ms.nn.Cell):
    def __init__(self, alpha):
        super().__init__()
        self.conv = msnn.Conv2d(3, 8, 1, has_bias=True)
        self.relu = msnn.ReLU()
        self.lrn = ops.LRN(depth_radius=2, bias=2.0, alpha=alpha, beta=0.75)

    def construct(self, x):
        return self.lrn(self.relu(self.conv(x)))


# --- LayerNorm built with an int normalized_shape -----------------------------------------------------------
class LnPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.norm = nn.LayerNorm(8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(self.norm(self.fc1(x)))


class LnMs(ms.nn.Cell):
    def __init__(self, shape):
        super().__init__()
        self.fc1 = msnn.Dense(6, 8)
        self.norm = msnn.LayerNorm(shape, epsilon=1e-5)
        self.fc2 = msnn.Dense(8, 4)

    def construct(self, x):
        return self.fc2(self.norm(self.fc1(x)))


ENTRIES = [
    entry("h9b_embedding_padding_row_gradient", H9, "probe:torch2.13/ms2.10 nn.Embedding(padding_idx) backward",
          PadEmbedPt, lambda: PadEmbedMs(msnn.Embedding(6, 4, padding_idx=0)),
          lambda: PadEmbedMs(MaskedPadEmbedding(6, 4, 0)),
          ("embed",), ("padding_idx|gradient",), inputs={"ids": given(np.array([[0, 2, 0, 5], [1, 0, 3, 0]]), dtype="int32")},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bpadding_idx\b[^.]*\b(gradient|grad|zero)\w*|\b(gradient|grad)\w*\b[^.]*\bpadding_idx\b"),
    entry("h9b_hardswish_gradient_at_minus_three", H9, "probe:torch2.13/ms2.10 Hardswish/HSwish backward at x=-3",
          HswishPt, lambda: HswishMs(msnn.HSwish()), lambda: HswishMs(Relu6Hswish()),
          ("act",), ("hardswish|hswish|gradient",), inputs={"x": given(np.array(HSWISH_X, np.float32))},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bh(ard)?_?swish\b[^.]*\b(gradient|grad|backward|derivative)\w*"
                        r"|\b(gradient|grad|backward|derivative)\w*\b[^.]*\bh(ard)?_?swish\b"),
    entry("h9b_gather_ported_as_ops_gather", H9, "gather",
          GatherPt, lambda: GatherMs(False), lambda: GatherMs(True),
          ("after:fc",), ("gather|gather_elements",), inputs={"x": uniform(3, 5), "idx": integers(3, 2, high=4)},
          fails_with="shape", cause_pattern=r"\bgather_elements\b|\bGatherD\b"),
    entry("h9b_local_response_norm_alpha_per_size", H9, "probe:torch2.13/ms2.10 F.local_response_norm vs ops.LRN",
          LrnPt, lambda: LrnMs(1e-4), lambda: LrnMs(1e-4 / 5),
          ("after:conv",), ("lrn|alpha|size",), inputs={"x": uniform(2, 3, 4, 4, low=-3.0, high=3.0)},
          cause_pattern=r"\balpha\b[^.]*(/\s*(5|size|n)\b|\bdivided\b|\b2(\.0)?e-0?5\b)|\bsize\b[^.]*\balpha\b[^.]*\bdivid"),
    entry("h9b_layernorm_int_normalized_shape_raises", H9, "LayerNorm",
          LnPt, lambda: LnMs(8), lambda: LnMs((8,)),
          ("norm",), ("normalized_shape|tuple",), inputs={"x": uniform(3, 6)}, fails_with="error",
          cause_pattern=r"\bnormalized_shape\b[^.]*\b(tuple|list)\b|\bLayerNorm\s*\(\s*\(\s*8\s*,\s*\)"),
] + PORT_ENTRIES
