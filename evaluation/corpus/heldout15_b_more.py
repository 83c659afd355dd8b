"""Held-out set 15, half b: gradient-only, functional-op and error entries (small nets)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform


def _grouped_points():
    """Ball-query groups (B=2, C=3, npoint=3, nsample=4); short groups padded by repeating the first index."""
    rng = np.random.RandomState(15)
    pts = rng.uniform(-1.0, 1.0, size=(2, 3, 3, 4)).astype(np.float32)
    pts[:, :, 0, 2:] = pts[:, :, 0, :1]  # group 0: two neighbours found, padded with the first
    pts[:, :, 2, 1:] = pts[:, :, 2, :1]  # group 2: one neighbour found
    return pts


def _valid_mask():
    m = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], dtype=bool)
    return m


# ---------------------------------------------------------------- torch originals

def _sa_torch():
    import torch
    import torch.nn as nn

    class SetAbstractionMLP(nn.Module):
        """PointNet++ set abstraction: shared 1x1 MLP over each group, then max over the group's samples."""

        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 1)

        def forward(self, grouped):
            feat = torch.relu(self.conv(grouped))
            return torch.max(feat, 3)[0]

    return SetAbstractionMLP()


def _rbf_torch():
    import torch
    import torch.nn as nn

    class PairDistance(nn.Module):
        def forward(self, pos):
            return torch.norm(pos[:, :, None, :] - pos[:, None, :, :], dim=-1)

    class RBFFilter(nn.Module):
        """SchNet-style continuous filter: all-pairs distances (self pairs included) -> Gaussian RBF -> dense."""

        def __init__(self):
            super().__init__()
            self.dist = PairDistance()
            self.filter = nn.Linear(6, 4)

        def forward(self, pos):
            d = self.dist(pos)
            centers = torch.linspace(0.0, 2.0, 6)
            rbf = torch.exp(-4.0 * (d[..., None] - centers) ** 2)
            return self.filter(rbf).sum(2)

    return RBFFilter()


def _tower_torch():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class TwoTowerScorer(nn.Module):
        """Two-tower retrieval scorer; the item table is a raw Parameter shared with a sampled-softmax head."""

        def __init__(self):
            super().__init__()
            self.user = nn.Linear(5, 6)
            self.item_table = nn.Parameter(torch.randn(12, 6) * 0.3)

        def forward(self, user_feats, item_ids):
            u = torch.tanh(self.user(user_feats))
            v = F.embedding(item_ids, self.item_table)
            return (u[:, None, :] * v).sum(-1)

    return TwoTowerScorer()


def _hann_torch():
    import torch
    import torch.nn as nn

    class WindowedFrames(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, frames):
            return self.proj(frames) * torch.hann_window(8)

    return WindowedFrames()


def _count_torch():
    import torch
    import torch.nn as nn

    class MaskedMeanPool(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, x, valid):
            h = self.proj(x) * valid[..., None]
            return h.sum(1) / torch.count_nonzero(valid, dim=1)[:, None]

    return MaskedMeanPool()


# ---------------------------------------------------------------- MindSpore ports

def _sa_ms(first_index):
    import mindspore.nn as mnn
    from mindspore import ops

    class SetAbstractionMLP(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv2d(3, 8, 1, has_bias=True)
            self.reduce_max = ops.ReduceMax()

        def construct(self, grouped):
            feat = ops.relu(self.conv(grouped))
            if first_index:
                return ops.max(feat, axis=3)[0]
            return self.reduce_max(feat, 3)

    return SetAbstractionMLP()


def _rbf_ms(safe):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class PairDistance(mnn.Cell):
        def construct(self, pos):
            diff = pos[:, :, None, :] - pos[:, None, :, :]
            if not safe:
                return ops.norm(diff, dim=-1)
            sq = (diff * diff).sum(-1)
            nonzero = sq > 0
            return ops.where(nonzero, ops.sqrt(ops.where(nonzero, sq, ops.ones_like(sq))), ops.zeros_like(sq))

    class RBFFilter(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.dist = PairDistance()
            self.filter = mnn.Dense(6, 4)

        def construct(self, pos):
            d = self.dist(pos)
            centers = ops.linspace(0.0, 2.0, 6).astype(ms.float32)
            rbf = ops.exp(-4.0 * (d[..., None] - centers) ** 2)
            return self.filter(rbf).sum(2)

    return RBFFilter()


def _tower_ms(gather):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import Parameter, Tensor, ops

    class TwoTowerScorer(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.user = mnn.Dense(5, 6)
            self.item_table = Parameter(Tensor(np.zeros((12, 6), np.float32)), name="item_table")

        def construct(self, user_feats, item_ids):
            u = ops.tanh(self.user(user_feats))
            ids = item_ids.astype(ms.int32)
            v = ops.gather(self.item_table, ids, 0) if gather else ops.embedding(ids, self.item_table)
            return (u[:, None, :] * v).sum(-1)

    return TwoTowerScorer()


def _hann_ms(float32):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class WindowedFrames(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(8, 8)

        def construct(self, frames):
            window = ops.hann_window(8, dtype=ms.float32) if float32 else ops.hann_window(8)
            return self.proj(frames) * window

    return WindowedFrames()


def _count_ms(cast):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class MaskedMeanPool(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 4)

        def construct(self, x, valid):
            h = self.proj(x) * valid[..., None]
            counts = ops.count_nonzero(valid.astype(ms.int32) if cast else valid, 1)
            return h.sum(1) / counts[:, None]

    return MaskedMeanPool()


def _backward_only(e):
    """A gradient-only entry: the naive port's forward agrees, so it is expected to fail on backward only."""
    import dataclasses

    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


ENTRIES = [
    _backward_only(entry("h15b_pointnet2_group_max_reducemax_padded_duplicates_gradient", "h15",
          "probe:torch.max(x, dim)[0] gradient goes to one tied element; mindspore ops.ReduceMax splits it "
          "(PointNet++ set abstraction over ball-query groups padded with repeats)",
          _sa_torch, lambda: _sa_ms(False), lambda: _sa_ms(True),
          ["after:conv"], ["ReduceMax|tie|ArgMaxWithValue"], checks=("forward", "backward"),
          inputs={"grouped": given(_grouped_points())},
          cause_pattern=r"\b(ReduceMax|reduce_max|amax)\b[^.]*\b(ties?|tied|split\w*|evenly|equal\w*|duplicat\w*)\b"
                        r"|\b(ties?|tied|duplicat\w*)\b[^.]*\b(ReduceMax|reduce_max|amax|ops\.max|ArgMaxWithValue)\b")),
    _backward_only(entry("h15b_schnet_pair_distance_ops_norm_gradient_self_pairs", "h15",
          "probe:torch.norm(dim=-1) gradient at a zero vector is 0, mindspore ops.norm gives NaN "
          "(SchNet/EGNN all-pairs distances including i==j)",
          _rbf_torch, lambda: _rbf_ms(False), lambda: _rbf_ms(True),
          ["dist"], ["norm|zero|nan"], checks=("forward", "backward"), fails_with="nonfinite",
          inputs={"pos": uniform(2, 4, 3)},
          cause_pattern=r"\bnorm\b[^.]*\b(zero|nan|0)\b[^.]*\bgrad\w*|\bgrad\w*\b[^.]*\bnorm\b[^.]*\b(zero|nan)\b"
                        r"|\b(where|safe)\b[^.]*\bsqrt\b|\bsqrt\b[^.]*\b(where|safe|mask\w*)\b")),
    entry("h15b_embedding_shared_item_table_no_cpu_kernel_raises", "h15",
          "probe:mindspore.ops.embedding has no CPU kernel (torch.nn.functional.embedding on a shared table)",
          _tower_torch, lambda: _tower_ms(False), lambda: _tower_ms(True),
          ["after:user"], ["embedding|CPU|gather"], fails_with="error",
          inputs={"user_feats": uniform(4, 5), "item_ids": integers(4, 3, high=12)},
          cause_pattern=r"\bembedding\b[^.]*\b(CPU|kernel|unregistered|not\s+supported|unsupported)\b"
                        r"|\b(ops\.gather|Gather)\b|\bgather\b[^.]*\b(item_table|table|axis\s*=\s*0|0)\b"),
    entry("h15b_functional_hann_window_default_float64", "h15",
          "probe:mindspore.ops.hann_window returns float64 unless dtype= is given (torch.hann_window: float32)",
          _hann_torch, lambda: _hann_ms(False), lambda: _hann_ms(True),
          ["after:proj"], ["hann_window|float64|dtype"], fails_with="dtype",
          inputs={"frames": uniform(3, 5, 8)},
          cause_pattern=r"\bhann_window\b[^.]*\b(dtype|float64|float32)\b|\bdtype\s*=\s*(ms\.|mindspore\.|mstype\.)?"
                        r"float32\b|\bfloat64\b[^.]*\bwindow\b"),
    entry("h15b_functional_count_nonzero_bool_mask_raises", "h15",
          "probe:mindspore.ops.count_nonzero refuses a bool tensor (torch.count_nonzero counts a bool mask)",
          _count_torch, lambda: _count_ms(False), lambda: _count_ms(True),
          ["after:proj"], ["count_nonzero|bool|int32"], fails_with="error",
          inputs={"x": uniform(3, 5, 4), "valid": given(_valid_mask())},
          cause_pattern=r"\bcount_nonzero\b[^.]*\b(bool\w*|int32|int64|astype|cast)\b"
                        r"|\b(bool\w*)\b[^.]*\bcount_nonzero\b"),
]
