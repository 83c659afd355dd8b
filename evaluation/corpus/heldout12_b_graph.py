"""Held-out set 12, half b: graph blocks (written blind; family "h12-port")."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform


def _t():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as mops
    return ms, mnn, mops


# ---------------------------------------------------------------------------------------------------------------
# P3: dense multi-head GAT layer, scores laid out (target, source, head)
# ---------------------------------------------------------------------------------------------------------------

ADJ = np.array([[1, 1, 0, 0, 1],
                [1, 1, 1, 0, 0],
                [0, 1, 1, 1, 0],
                [0, 0, 1, 1, 1],
                [1, 0, 1, 1, 1]], dtype=np.float32)


def gat_torch():
    torch, tnn, F = _t()

    class DenseGAT(tnn.Module):
        def __init__(self, fin=5, fout=3, heads=2):
            super().__init__()
            self.heads, self.fout = heads, fout
            self.fc = tnn.Linear(fin, fout * heads, bias=False)
            self.attn_src = tnn.Parameter(torch.randn(heads, fout) * 0.5)
            self.attn_dst = tnn.Parameter(torch.randn(heads, fout) * 0.5)
            self.leaky = tnn.LeakyReLU(0.2)
            self.out = tnn.Linear(fout * heads, 4)

        def forward(self, x, adj):
            n = x.shape[0]
            h = self.fc(x).view(n, self.heads, self.fout)
            a_s = (h * self.attn_src).sum(-1)
            a_d = (h * self.attn_dst).sum(-1)
            e = self.leaky(a_d[:, None, :] + a_s[None, :, :])          # (target, source, head)
            e = e.masked_fill(adj[:, :, None] == 0, -1e9)
            alpha = F.softmax(e, dim=1)                                  # over each target's neighbours
            agg = torch.matmul(alpha.permute(2, 0, 1), h.permute(1, 0, 2))  # (head, target, fout)
            agg = agg.permute(1, 0, 2).reshape(n, self.heads * self.fout)
            return self.out(F.elu(agg))

    return DenseGAT()


def _gat_ms(axis_given):
    ms, mnn, mops = _m()

    class DenseGAT(mnn.Cell):
        def __init__(self, fin=5, fout=3, heads=2):
            super().__init__()
            self.heads, self.fout = heads, fout
            self.fc = mnn.Dense(fin, fout * heads, has_bias=False)
            self.attn_src = ms.Parameter(ms.Tensor(np.zeros((heads, fout), np.float32)), name="attn_src")
            self.attn_dst = ms.Parameter(ms.Tensor(np.zeros((heads, fout), np.float32)), name="attn_dst")
            self.leaky = mnn.LeakyReLU(0.2)
            self.out = mnn.Dense(fout * heads, 4)

        def construct(self, x, adj):
            n = x.shape[0]
            h = self.fc(x).view(n, self.heads, self.fout)
            a_s = (h * self.attn_src).sum(-1)
            a_d = (h * self.attn_dst).sum(-1)
            e = self.leaky(a_d[:, None, :] + a_s[None, :, :])
            e = mops.masked_fill(e, (adj == 0)[:, :, None], -1e9)
            if axis_given:
                alpha = mops.softmax(e, axis=1)
            else:
                alpha = mops.softmax(e)
            agg = mops.matmul(alpha.transpose(2, 0, 1), h.transpose(1, 0, 2))
            agg = agg.transpose(1, 0, 2).reshape(n, self.heads * self.fout)
            return self.out(mops.elu(agg))

    return DenseGAT()


# ---------------------------------------------------------------------------------------------------------------
# P6: GIN-style layer, sum aggregation of neighbour messages by scatter
# ---------------------------------------------------------------------------------------------------------------

SRC = np.array([0, 1, 2, 3, 4, 1, 2, 0], dtype=np.int64)
DST = np.array([1, 0, 1, 2, 3, 4, 4, 4], dtype=np.int64)


def gin_torch():
    torch, tnn, F = _t()

    class GINLayer(tnn.Module):
        def __init__(self, fin=4, hidden=6):
            super().__init__()
            self.lin = tnn.Linear(fin, hidden)
            self.eps = tnn.Parameter(torch.tensor([0.1]))
            self.mlp = tnn.Sequential(tnn.Linear(hidden, hidden), tnn.ReLU(), tnn.Linear(hidden, 3))

        def forward(self, x, src, dst):
            h = self.lin(x)
            msg = h[src]
            index = dst[:, None].expand(-1, h.shape[1])
            agg = torch.zeros_like(h).scatter_add(0, index, msg)
            return self.mlp((1 + self.eps) * h + agg)

    return GINLayer()


def _gin_ms(reduce_add):
    ms, mnn, mops = _m()

    class GINLayer(mnn.Cell):
        def __init__(self, fin=4, hidden=6):
            super().__init__()
            self.lin = mnn.Dense(fin, hidden)
            self.eps = ms.Parameter(ms.Tensor([0.1], ms.float32), name="eps")
            self.mlp = mnn.SequentialCell([mnn.Dense(hidden, hidden), mnn.ReLU(), mnn.Dense(hidden, 3)])

        def construct(self, x, src, dst):
            h = self.lin(x)
            msg = mops.gather(h, src, 0)
            index = mops.broadcast_to(dst[:, None], (dst.shape[0], h.shape[1]))
            if reduce_add:
                agg = mops.tensor_scatter_elements(mops.zeros_like(h), index, msg, axis=0, reduction="add")
            else:
                agg = mops.tensor_scatter_elements(mops.zeros_like(h), index, msg, axis=0)
            return self.mlp((1 + self.eps) * h + agg)

    return GINLayer()


ENTRIES = [
    entry("h12b_port_dense_gat_softmax_over_neighbours_default_axis", "h12-port",
          "model:pyGAT / PyG GATConv dense multi-head layer (mindspore_gl GATConv port)",
          gat_torch, lambda: _gat_ms(False), lambda: _gat_ms(True),
          ("after:leaky",), ("softmax|axis|dim",),
          inputs={"x": uniform(5, 5), "adj": given(ADJ)},
          cause_pattern=r"\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\s+1\b|\bsoftmax\b[^.]*\b(axis|dim)\b[^.]*\b1\b"),
    entry("h12b_port_gin_scatter_sum_tensor_scatter_elements_reduction", "h12-port",
          "model:PyG GINConv sum aggregation (mindspore_gl GINConv port)",
          gin_torch, lambda: _gin_ms(False), lambda: _gin_ms(True),
          ("after:lin",), ("scatter|reduction|add",),
          inputs={"x": uniform(5, 4), "src": given(SRC), "dst": given(DST)},
          cause_pattern=(r"\breduction\b[^.]*\b(add|sum)\b|\b(scatter_add|index_add|unsorted_segment_sum|"
                         r"tensor_scatter_add)\b")),
]
