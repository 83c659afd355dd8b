"""Held-out set 15, half b: more model blocks (graph / recommendation / time series)."""
from __future__ import annotations

import dataclasses

from evaluation.corpus.build import entry
from migcheck.specs import uniform


def _egnn_torch():
    import torch
    import torch.nn as nn

    class EGNNCoordUpdate(nn.Module):
        """EGNN coordinate update (Satorras et al. reference code): normalised differences, detached norm."""

        def __init__(self):
            super().__init__()
            self.edge_mlp = nn.Linear(1, 8)
            self.coord_mlp = nn.Linear(8, 1, bias=False)

        def forward(self, coord):
            diff = coord[:, :, None, :] - coord[:, None, :, :]
            radial = torch.sum(diff ** 2, dim=-1, keepdim=True)
            norm = torch.sqrt(radial).detach() + 1.0
            diff = diff / norm
            trans = diff * self.coord_mlp(torch.relu(self.edge_mlp(radial)))
            return coord + trans.mean(dim=2)

    return EGNNCoordUpdate()


def _egnn_ms(stop_gradient):
    import mindspore.nn as mnn
    from mindspore import ops

    class EGNNCoordUpdate(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.edge_mlp = mnn.Dense(1, 8)
            self.coord_mlp = mnn.Dense(8, 1, has_bias=False)

        def construct(self, coord):
            diff = coord[:, :, None, :] - coord[:, None, :, :]
            radial = ops.sum(diff ** 2, dim=-1, keepdim=True)
            norm = ops.sqrt(radial)
            if stop_gradient:
                norm = ops.stop_gradient(norm)
            diff = diff / (norm + 1.0)
            trans = diff * self.coord_mlp(ops.relu(self.edge_mlp(radial)))
            return coord + trans.mean(axis=2)

    return EGNNCoordUpdate()


def _afm_torch():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class AFMLayer(nn.Module):
        """Attentional FM pooling (DeepCTR-torch AFMLayer): attention over the field pairs."""

        def __init__(self):
            super().__init__()
            self.attention = nn.Linear(4, 6)
            self.projection_h = nn.Linear(6, 1, bias=False)
            self.projection_p = nn.Linear(4, 1, bias=False)

        def forward(self, emb):
            rows, cols = torch.triu_indices(5, 5, offset=1)
            inner = emb[:, rows, :] * emb[:, cols, :]
            score = self.projection_h(torch.relu(self.attention(inner)))
            weights = F.softmax(score, dim=1)
            return self.projection_p((weights * inner).sum(dim=1))

    return AFMLayer()


def _afm_ms(axis1):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class AFMLayer(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.attention = mnn.Dense(4, 6)
            self.projection_h = mnn.Dense(6, 1, has_bias=False)
            self.projection_p = mnn.Dense(4, 1, has_bias=False)
            self.softmax = mnn.Softmax(axis=1) if axis1 else mnn.Softmax()
            idx = ops.triu_indices(5, 5, 1)
            self.rows = idx[0].astype(ms.int32)
            self.cols = idx[1].astype(ms.int32)

        def construct(self, emb):
            inner = ops.gather(emb, self.rows, 1) * ops.gather(emb, self.cols, 1)
            score = self.projection_h(ops.relu(self.attention(inner)))
            weights = self.softmax(score)
            return self.projection_p((weights * inner).sum(axis=1))

    return AFMLayer()


def _patchtst_torch():
    import torch.nn as nn

    class PatchTSTFeedForward(nn.Module):
        """PatchTST encoder feed-forward sub-layer (post-norm with BatchNorm over the patch tokens)."""

        def __init__(self):
            super().__init__()
            self.ff = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 8))
            self.norm = nn.BatchNorm1d(8)

        def forward(self, x):
            y = x + self.ff(x)
            return self.norm(y.transpose(1, 2)).transpose(1, 2)

    return PatchTSTFeedForward()


def _patchtst_ms(exact):
    import mindspore.nn as mnn
    from mindspore import ops

    class PatchTSTFeedForward(mnn.Cell):
        def __init__(self):
            super().__init__()
            gelu = mnn.GELU(approximate=False) if exact else mnn.GELU()
            self.ff = mnn.SequentialCell([mnn.Dense(8, 16), gelu, mnn.Dense(16, 8)])
            self.norm = mnn.BatchNorm1d(8, momentum=0.9)

        def construct(self, x):
            y = x + self.ff(x)
            return ops.transpose(self.norm(ops.transpose(y, (0, 2, 1))), (0, 2, 1))

    return PatchTSTFeedForward()


def _backward_only(e):
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


ENTRIES = [
    _backward_only(entry(
        "h15b_port_egnn_coord_update_detach_dropped_no_stop_gradient", "h15-port",
        "model:EGNN coordinate update (vgsatorras/egnn norm .detach() -> mindspore needs ops.stop_gradient; "
        "Tensor has no detach)",
        _egnn_torch, lambda: _egnn_ms(False), lambda: _egnn_ms(True),
        ["<root>"], ["stop_gradient|detach"], checks=("forward", "backward"), fails_with="nonfinite",
        inputs={"coord": uniform(2, 4, 3)},
        cause_pattern=r"\bstop_gradient\b|\bdetach\w*\b")),
    entry("h15b_port_afm_pair_attention_softmax_cell_default_axis", "h15-port",
          "model:AFM attention pooling (DeepCTR-torch AFMLayer softmax dim=1 -> mindspore nn.Softmax default axis=-1)",
          _afm_torch, lambda: _afm_ms(False), lambda: _afm_ms(True),
          ["after:projection_h"], ["softmax axis"],
          inputs={"emb": uniform(3, 5, 4)},
          cause_pattern=r"\bsoftmax\b[^.]*\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\s*=\s*1\b[^.]*\bsoftmax\b"),
    entry("h15b_port_patchtst_ffn_gelu_cell_default_approximate", "h15-port",
          "model:PatchTST encoder FFN (torch nn.GELU exact erf -> mindspore nn.GELU default approximate=True)",
          _patchtst_torch, lambda: _patchtst_ms(False), lambda: _patchtst_ms(True),
          ["ff.1"], ["GELU approximate"],
          inputs={"x": uniform(3, 6, 8, low=-3.0, high=3.0)},
          cause_pattern=r"\bapproximate\s*=\s*(False|['\"]none['\"])|\bgelu\b[^.]*\b(tanh|approximat\w*|erf|exact)\b"),
]
