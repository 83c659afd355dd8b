"""Held-out set 22, half a (blind): more single-API entries (tensors built in construct, layer settings)."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import uniform


def _t():
    import torch
    import torch.nn as tnn
    return torch, tnn


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return ms, mnn, ops


# --------------------------------------------------------------------------------------------------------------
# 1. A "look at the other set members" mask built in forward with torch's in-place fill_diagonal_; MindSpore's
#    Tensor.fill_diagonal returns a new tensor, and the port drops what it returns.

def others_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 6)
            self.out = tnn.Linear(6, 3)

        def forward(self, x):
            h = self.proj(x)
            n = x.shape[1]
            scores = h @ h.transpose(1, 2) / math.sqrt(h.shape[-1])
            mask = torch.zeros(n, n)
            mask.fill_diagonal_(-1e4)
            attn = torch.softmax(scores + mask, dim=-1)
            return self.out(attn @ h)

    return Net()


def _others_ms(assign: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 6)
            self.out = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.proj(x)
            n = x.shape[1]
            scores = ops.matmul(h, h.swapaxes(1, 2)) / math.sqrt(h.shape[-1])
            mask = ops.zeros((n, n), ms.float32)
            if assign:
                mask = mask.fill_diagonal(-1e4)
            else:
                mask.fill_diagonal(-1e4)
            attn = ops.softmax(scores + mask, axis=-1)
            return self.out(ops.matmul(attn, h))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 2. A similarity graph with self-loops added in place on the diagonal view (torch's diagonal() is a view, so
#    add_ writes into the adjacency); MindSpore's Tensor.diagonal returns a copy, so the add is lost.

def graph_torch():
    torch, tnn = _t()

    class GraphBuilder(tnn.Module):
        def forward(self, h):
            adj = 0.5 * (torch.tanh(h @ h.transpose(1, 2)) + 1.0)
            adj.diagonal(dim1=-2, dim2=-1).add_(1.0)
            return adj / adj.sum(dim=-1, keepdim=True)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 6)
            self.graph = GraphBuilder()
            self.out = tnn.Linear(6, 3)

        def forward(self, x):
            h = self.proj(x)
            return self.out(self.graph(h) @ h)

    return Net()


def _graph_ms(eye: bool):
    ms, mnn, ops = _m()

    class GraphBuilder(mnn.Cell):
        def construct(self, h):
            adj = 0.5 * (ops.tanh(ops.matmul(h, h.swapaxes(1, 2))) + 1.0)
            if eye:
                adj = adj + ops.eye(adj.shape[-1], adj.shape[-1], ms.float32)
            else:
                adj.diagonal(0, -2, -1).add_(1.0)
            return adj / adj.sum(axis=-1, keepdims=True)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 6)
            self.graph = GraphBuilder()
            self.out = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.proj(x)
            return self.out(ops.matmul(self.graph(h), h))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 3. A Kaiser taper over the output features built in forward: torch.kaiser_window is float32 by default,
#    mindspore.ops.kaiser_window float64, and the port passes no dtype.

def taper_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(5, 8)

        def forward(self, x):
            y = self.fc(x)
            return y * torch.kaiser_window(y.shape[-1], periodic=False, beta=6.0)

    return Net()


def _taper_ms(dtype: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(5, 8)

        def construct(self, x):
            y = self.fc(x)
            if dtype:
                win = ops.kaiser_window(y.shape[-1], False, 6.0, dtype=ms.float32)
            else:
                win = ops.kaiser_window(y.shape[-1], False, 6.0)
            return y * win

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 4. An in-place activation whose side effect the torch block relies on: ReLU(inplace=True) overwrites the
#    pre-activation that the residual sum reads again; MindSpore's ReLU cell has no in-place mode, so the port's
#    residual adds the un-rectified tensor.

def inplace_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 6)
            self.act = tnn.ReLU(inplace=True)
            self.fc2 = tnn.Linear(6, 6)
            self.fc3 = tnn.Linear(6, 3)

        def forward(self, x):
            h = self.fc1(x)
            y = self.fc2(self.act(h))
            return self.fc3(h + y)

    return Net()


def _inplace_ms(rebind: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 6)
            self.act = mnn.ReLU()
            self.fc2 = mnn.Dense(6, 6)
            self.fc3 = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            if rebind:
                h = self.act(h)
                y = self.fc2(h)
            else:
                y = self.fc2(self.act(h))
            return self.fc3(h + y)

    return Net()


ENTRIES = [
    entry("h22a_functional_exclude_self_mask_fill_diagonal_result_dropped", "h22",
          "probe:Tensor.fill_diagonal returns a new tensor vs torch fill_diagonal_ in place", others_torch,
          lambda: _others_ms(False), lambda: _others_ms(True), layers=("after:proj",),
          causes=("fill_diagonal|in-place|mask",), inputs={"x": uniform(2, 5, 4)},
          cause_pattern=r"\bfill_diagonal_?\b[^.\n]*\b(returns?|out[- ]of[- ]place|in[- ]place|assign\w*|result)\b"
                        r"|\b(returns?|out[- ]of[- ]place|in[- ]place|assign\w*|result)\b[^.\n]*\bfill_diagonal_?\b"),
    entry("h22a_similarity_graph_self_loops_add_on_diagonal_copy", "h22",
          "probe:Tensor.diagonal returns a copy, add_ on it is lost (torch diagonal is a view)", graph_torch,
          lambda: _graph_ms(False), lambda: _graph_ms(True), layers=("graph",),
          causes=("diagonal|in-place|view",), inputs={"x": uniform(2, 5, 4)},
          cause_pattern=r"\bdiagonal\b[^.\n]*\b(view|cop(y|ies)|in[- ]place|written back|write back|add_)\b"
                        r"|\b(view|cop(y|ies)|in[- ]place|add_)\b[^.\n]*\bdiagonal\b|\bops\.eye\b"),
    entry("h22a_functional_kaiser_taper_ops_kaiser_window_default_float64", "h22",
          "probe:mindspore.ops.kaiser_window default dtype float64 vs torch.kaiser_window float32", taper_torch,
          lambda: _taper_ms(False), lambda: _taper_ms(True), layers=("after:fc",),
          causes=("kaiser_window|dtype|float64",), inputs={"x": uniform(3, 5)}, fails_with="dtype",
          cause_pattern=r"\bkaiser_window\b[^.\n]*\b(float64|float32|dtype)\b"
                        r"|\b(float64|float32|dtype)\b[^.\n]*\bkaiser_window\b"),
    entry("h22a_relu_inplace_overwrite_read_by_residual_not_reproduced", "h22",
          "probe:torch.nn.ReLU(inplace=True) side effect vs mindspore.nn.ReLU", inplace_torch, lambda: _inplace_ms(False), lambda: _inplace_ms(True), layers=("act",),
          causes=("inplace|relu|residual",), inputs={"x": uniform(4, 5)},
          cause_pattern=r"\binplace\s*=\s*True\b|\bin[- ]?place\b[^.\n]*\b(relu|activation|overwr\w*|modif\w*)"
                        r"|\b(relu|activation)\b[^.\n]*\bin[- ]?place\b"),
]
