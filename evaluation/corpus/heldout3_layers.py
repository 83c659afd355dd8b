"""Held-out set 3 (blind), layers whose differing setting has no obvious table row: fc1 -> layer -> fc2.

Also the gradient-only Embedding options (padding_idx's frozen row, scale_grad_by_freq) and a layer
configured so that MindSpore raises. Each difference was probed on torch 2.13 / MindSpore 2.10 CPU.
"""
from __future__ import annotations

import mindspore as ms
import numpy as np
import torch
from mindspore import nn as mnn
from mindspore import ops

from evaluation.corpus.build import entry
from evaluation.corpus.heldout3_ops import PROBE
from migcheck.specs import given, uniform

FAM = "h3"


def t_sandwich(make_layer, din=4, dmid=6, dout=3, shape=None):
    """torch: fc1 -> (view to `shape`) -> layer -> flatten -> fc2."""
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(din, dmid)
            self.layer = make_layer()
            self.fc2 = torch.nn.Linear(dmid, dout)

        def forward(self, x):
            h = self.fc1(x)
            h = self.layer(h.view((-1,) + shape) if shape else h)
            return self.fc2(h.flatten(1))
    return Net


def m_sandwich(make_layer, din=4, dmid=6, dout=3, shape=None):
    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(din, dmid)
            self.layer = make_layer()
            self.fc2 = mnn.Dense(dmid, dout)

        def construct(self, x):
            h = self.fc1(x)
            h = self.layer(ops.reshape(h, (-1,) + shape) if shape else h)
            return self.fc2(ops.reshape(h, (h.shape[0], -1)))
    return Net


def layer_pair(name, source, t_layer, naive_layer, correct_layer, pattern, words, *, inputs=None, dims=None, **kw):
    dims = dims or {}
    return entry(name, FAM, source, t_sandwich(t_layer, **dims), m_sandwich(naive_layer, **dims),
                 m_sandwich(correct_layer, **dims), ("layer",), (words,),
                 inputs=inputs or {"x": uniform(4, dims.get("din", 4))}, cause_pattern=pattern, **kw)


bn_batch_stats = layer_pair(
    "h3_batchnorm_use_batch_statistics", "BatchNorm1d", lambda: torch.nn.BatchNorm1d(6),
    lambda: mnn.BatchNorm1d(6, use_batch_statistics=True), lambda: mnn.BatchNorm1d(6),
    r"\buse_batch_statistics\b|\bbatch statistics\b", "use_batch_statistics|batch statistics")

rrelu_eval = layer_pair(
    "h3_rrelu_random_in_eval", PROBE + "RReLU", lambda: torch.nn.RReLU(0.1, 0.3),
    lambda: mnn.RReLU(0.1, 0.3), lambda: mnn.LeakyReLU(0.2),
    r"\bRReLU\b[^.]*\beval|\bLeakyReLU\b[^.]*\b0\.2\b|\b(negative_)?slope\b[^.]*\b0\.2\b"
    r"|\b(lower|upper)\b[^.]*\bmean\b",
    "RReLU|LeakyReLU(0.2)")


class Lrn(mnn.Cell):
    """MindSpore's LRN primitive as a layer (no nn.LocalResponseNorm in 2.10)."""

    def __init__(self, alpha):
        super().__init__()
        self.lrn = ops.LRN(depth_radius=1, bias=1.0, alpha=alpha, beta=0.75)

    def construct(self, x):
        return self.lrn(x)


lrn_alpha = layer_pair(
    "h3_lrn_alpha_not_divided_by_size", "LRN",
    lambda: torch.nn.LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1.0),
    lambda: Lrn(0.5), lambda: Lrn(0.5 / 3),
    r"\balpha\b", "alpha / size", dims={"dmid": 8, "shape": (4, 1, 2)})

groupnorm_eps = layer_pair(
    "h3_groupnorm_eps_default", "GroupNorm", lambda: torch.nn.GroupNorm(2, 6, eps=1e-2),
    lambda: mnn.GroupNorm(2, 6), lambda: mnn.GroupNorm(2, 6, eps=1e-2),
    r"\beps(ilon)?\b[^.]*(1e-0?2|0\.01|1e-0?5)\b", "eps 1e-2", dims={"dmid": 12, "shape": (6, 2)},
    inputs={"x": uniform(4, 4, low=-0.05, high=0.05)})

layernorm_axes = layer_pair(
    "h3_layernorm_two_dims_begin_norm_axis", "LayerNorm", lambda: torch.nn.LayerNorm((3, 4)),
    lambda: mnn.LayerNorm((3, 4)), lambda: mnn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1),
    r"\bbegin_(norm|params)_axis\b", "begin_norm_axis", dims={"dmid": 12, "shape": (3, 4)}, fails_with="error")


# -- Embedding options that only show in gradients --------------------------------------------------------
IDS = given(np.array([[0, 1, 2, 0, 3], [4, 0, 5, 1, 1]], np.int32))


def t_bag(**emb_kw):
    class Bag(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(6, 4, **emb_kw)
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, ids):
            return self.fc(self.emb(ids).mean(1))
    return Bag


def m_bag(make_emb):
    class Bag(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = make_emb()
            self.fc = mnn.Dense(4, 3)

        def construct(self, ids):
            return self.fc(self.emb(ids).mean(1))
    return Bag


class PaddedEmbedding(mnn.Cell):
    """An embedding whose padding row gets no gradient (torch's padding_idx), via stop_gradient."""

    def __init__(self, padding_idx=0):
        super().__init__()
        self.embedding_table = ms.Parameter(ops.zeros((6, 4), ms.float32), name="embedding_table")
        self.padding_idx = padding_idx

    def construct(self, ids):
        out = ops.gather(self.embedding_table, ids, 0)
        return ops.where((ids != self.padding_idx).expand_dims(-1), out, ops.stop_gradient(out))


class FreqScaledEmbedding(mnn.Cell):
    """torch's scale_grad_by_freq: each row's gradient divided by its count in the batch; forward unchanged."""

    def __init__(self):
        super().__init__()
        self.embedding_table = ms.Parameter(ops.zeros((6, 4), ms.float32), name="embedding_table")

    def construct(self, ids):
        out = ops.gather(self.embedding_table, ids, 0)
        counts = ops.one_hot(ids.reshape(-1), 6, ms.Tensor(1.0), ms.Tensor(0.0)).sum(0)
        scale = (1.0 / ops.gather(counts, ids, 0)).expand_dims(-1)
        return out * scale + ops.stop_gradient(out * (1.0 - scale))


EMB_MAP = {"emb.weight": "emb.embedding_table", "fc.weight": "fc.weight", "fc.bias": "fc.bias"}

embedding_padding_idx = entry(
    "h3_embedding_padding_idx_gradient", FAM, PROBE + "Embedding", t_bag(padding_idx=0),
    m_bag(lambda: mnn.Embedding(6, 4, padding_idx=0)), m_bag(PaddedEmbedding), ("emb",), ("padding_idx",),
    inputs={"ids": IDS}, checks=("backward",), weight_map=EMB_MAP, cause_pattern=r"\bpadding_idx\b")

embedding_scale_grad = entry(
    "h3_embedding_scale_grad_by_freq", FAM, PROBE + "Embedding", t_bag(scale_grad_by_freq=True),
    m_bag(lambda: mnn.Embedding(6, 4)), m_bag(FreqScaledEmbedding), ("emb",), ("scale_grad_by_freq",),
    inputs={"ids": IDS}, checks=("step",), optimizer="sgd", steps=2, weight_map=EMB_MAP,
    cause_pattern=r"\bscale_grad_by_freq\b|\b(frequency|count)\b[^.]*\bgrad")

ENTRIES = [bn_batch_stats, rrelu_eval, lrn_alpha, groupnorm_eps, layernorm_axes, embedding_padding_idx,
           embedding_scale_grad]
