"""Held-out set 15, half a: small model blocks (family h15-port), each ported with one nameable difference.

Written blind (without reading migcheck's localization, mapping, judging or running code)."""
from __future__ import annotations

import dataclasses

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, uniform

P = "h15-port"


# PointNet++ feature propagation: inverse-distance interpolation from the 3 nearest source points, then a shared MLP.

def _fp_torch():
    import torch

    class FeaturePropagation(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = torch.nn.Linear(4 + 2, 8)

        def forward(self, xyz1, xyz2, feat1, feat2):
            d = ((xyz1[:, None, :] - xyz2[None, :, :]) ** 2).sum(-1)
            dist, idx = torch.topk(d, 3, dim=-1, largest=False)
            w = 1.0 / (dist + 1e-8)
            w = w / w.sum(-1, keepdim=True)
            interp = (feat2[idx] * w[..., None]).sum(1)
            return torch.relu(self.mlp(torch.cat([interp, feat1], -1)))
    return FeaturePropagation()


def _fp_ms(smallest):
    def make():
        from mindspore import nn, ops

        class FeaturePropagation(nn.Cell):
            def __init__(self):
                super().__init__()
                self.mlp = nn.Dense(4 + 2, 8)

            def construct(self, xyz1, xyz2, feat1, feat2):
                d = ((xyz1[:, None, :] - xyz2[None, :, :]) ** 2).sum(-1)
                if smallest:
                    dist, idx = ops.topk(d, 3, dim=-1, largest=False)
                else:
                    dist, idx = ops.topk(d, 3, dim=-1)
                w = 1.0 / (dist + 1e-8)
                w = w / w.sum(-1, keepdims=True)
                interp = (ops.gather(feat2, idx, 0) * w[..., None]).sum(1)
                return ops.relu(self.mlp(ops.cat([interp, feat1], -1)))
        return FeaturePropagation()
    return make


# A pre-norm transformer MLP block (LayerNorm -> Linear -> GELU -> Linear, residual) trained with AdamW.

def _mlp_torch():
    import torch

    class MlpBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(8)
            self.fc1 = torch.nn.Linear(8, 16)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(16, 8)

        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm(x))))
    return MlpBlock()


def _mlp_ms():
    from mindspore import nn

    class MlpBlock(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm((8,), epsilon=1e-5)
            self.fc1 = nn.Dense(8, 16)
            self.act = nn.GELU(approximate=False)
            self.fc2 = nn.Dense(16, 8)

        def construct(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm(x))))
    return MlpBlock()


def _adamw_torch(params):
    import torch
    return torch.optim.AdamW(params, lr=0.01, weight_decay=0.01)


def _adamw_naive(params):
    from mindspore import nn
    return nn.AdamWeightDecay(params, learning_rate=0.01, eps=1e-8, weight_decay=0.01)


def _adamw_correct(params):
    from mindspore.experimental import optim
    return optim.AdamW(params, lr=0.01, weight_decay=0.01)


def _adamw_entry():
    e = entry("h15a_port_transformer_mlp_block_adamw_as_adamweightdecay", P, "AdamWeightDecay", _mlp_torch, _mlp_ms,
              _mlp_ms,
              ["optimizer"], ["AdamWeightDecay|bias correction|experimental.optim.AdamW"],
              inputs={"x": uniform(4, 8)},
              checks=("step",), steps=3, optimizer=FrameworkPair(torch=_adamw_torch, mindspore=_adamw_correct),
              cause_pattern=r"\bbias[- ]correct\w*\b|\b(?:mint|experimental)\.optim\.AdamW\b|"
                            r"\bAdamWeightDecay\b[^.]*\b(?:no|without|lacks?)\b[^.]*\bcorrect\w*\b")
    naive = dataclasses.replace(e.naive, optimizer=FrameworkPair(torch=_adamw_torch, mindspore=_adamw_naive))
    return dataclasses.replace(e, naive=naive)


ENTRIES = [
    entry("h15a_port_pointnet2_feature_propagation_three_nn_topk_largest_dropped", P,
          "model:PointNet++ feature propagation (three_nn via topk)", _fp_torch, _fp_ms(False), _fp_ms(True),
          ["<root>"], ["largest|topk|nearest"],
          inputs={"xyz1": uniform(6, 3), "xyz2": uniform(5, 3), "feat1": uniform(6, 2), "feat2": uniform(5, 4)},
          checks=("forward", "backward"),
          cause_pattern=r"\blargest\s*=\s*False\b|\blargest\b[^.]{0,40}\bFalse\b|\bk\s+smallest\b|"
                        r"\bnearest\b[^.]*\b(?:farthest|largest)\b|\b(?:farthest|largest)\b[^.]*\bnearest\b"),
    _adamw_entry(),
]
