"""Held-out set 15, half b: recommendation / tabular / RL / graph / speech ports and a few single APIs.

Written blind (without reading migcheck's localization, mapping or judging code). Each entry pairs a
naive MindSpore port (one realistic API mistake) with the correct port of the same torch module.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform


# --------------------------------------------------------------------------------------------------
# torch originals
# --------------------------------------------------------------------------------------------------

def _tabnet_torch():
    import torch
    import torch.nn as nn

    class AttentiveTransformer(nn.Module):
        """TabNet attentive transformer: fc -> ghost BN -> prior scaling -> sparsemax mask."""

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 6, bias=False)
            self.bn = nn.BatchNorm1d(6)

        def forward(self, x, prior):
            z = self.bn(self.fc(x)) * prior
            z_sorted, _ = torch.sort(z, dim=-1, descending=True)
            k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
            z_cumsum = torch.cumsum(z_sorted, dim=-1) - 1.0
            support = (k * z_sorted > z_cumsum).to(z.dtype)
            k_support = support.sum(dim=-1, keepdim=True)
            tau = torch.gather(z_cumsum, -1, k_support.long() - 1) / k_support
            return torch.clamp(z - tau, min=0.0)

    return AttentiveTransformer()


def _widedeep_torch():
    import torch
    import torch.nn as nn

    class WideDeep(nn.Module):
        """Wide&Deep with a multi-hot bag per row; the deep part averages the bag's embeddings."""

        def __init__(self):
            super().__init__()
            self.emb = nn.EmbeddingBag(20, 8)
            self.deep = nn.Linear(8, 4)
            self.wide = nn.Linear(3, 4)

        def forward(self, ids, dense):
            return self.deep(torch.relu(self.emb(ids))) + self.wide(dense)

    return WideDeep()


def _deepfm_torch():
    import torch
    import torch.nn as nn

    class FM(nn.Module):
        def forward(self, emb):
            square_of_sum = torch.pow(torch.sum(emb, dim=1), 2)
            sum_of_square = torch.sum(emb * emb, dim=1)
            return 0.5 * torch.sum(square_of_sum - sum_of_square, dim=1, keepdim=True)

    class DeepFM(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(15, 1)
            self.fm = FM()
            self.dnn = nn.Linear(15, 1)

        def forward(self, emb):
            flat = emb.flatten(1)
            return torch.sigmoid(self.linear(flat) + self.fm(emb) + self.dnn(torch.relu(flat)))

    return DeepFM()


def _ppo_torch():
    import torch
    import torch.nn as nn
    from torch.distributions import Categorical

    class DiscretePolicy(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(6, 16)
            self.pi = nn.Linear(16, 4)

        def forward(self, obs, action):
            logits = self.pi(torch.tanh(self.body(obs)))
            return Categorical(logits=logits).log_prob(action)

    return DiscretePolicy()


# --------------------------------------------------------------------------------------------------
# MindSpore ports
# --------------------------------------------------------------------------------------------------

def _tabnet_ms(descending):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class AttentiveTransformer(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(8, 6, has_bias=False)
            self.bn = mnn.BatchNorm1d(6, momentum=0.9)

        def construct(self, x, prior):
            z = self.bn(self.fc(x)) * prior
            if descending:
                z_sorted, _ = ops.sort(z, axis=-1, descending=True)
            else:
                z_sorted, _ = ops.sort(z, axis=-1)
            k = ops.arange(1, z.shape[-1] + 1, dtype=ms.float32)
            z_cumsum = ops.cumsum(z_sorted, axis=-1) - 1.0
            support = (k * z_sorted > z_cumsum).astype(ms.float32)
            k_support = support.sum(axis=-1, keepdims=True)
            tau = ops.gather_elements(z_cumsum, -1, k_support.astype(ms.int32) - 1) / k_support
            return ops.clamp(z - tau, min=0.0)

    return AttentiveTransformer()


def _widedeep_ms(reduce):
    import mindspore.nn as mnn
    from mindspore import ops

    class WideDeep(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = mnn.Embedding(20, 8)
            self.deep = mnn.Dense(8, 4)
            self.wide = mnn.Dense(3, 4)
            self.pool = ops.ReduceMean() if reduce == "mean" else ops.ReduceSum()

        def construct(self, ids, dense):
            bag = self.pool(self.emb(ids), 1)
            return self.deep(ops.relu(bag)) + self.wide(dense)

    return WideDeep()


def _deepfm_ms(keep_dims):
    import mindspore.nn as mnn
    from mindspore import ops

    class FM(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.sum = ops.ReduceSum()
            self.sum_out = ops.ReduceSum(keep_dims=True) if keep_dims else ops.ReduceSum()

        def construct(self, emb):
            square_of_sum = ops.pow(self.sum(emb, 1), 2)
            sum_of_square = self.sum(emb * emb, 1)
            return 0.5 * self.sum_out(square_of_sum - sum_of_square, 1)

    class DeepFM(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.linear = mnn.Dense(15, 1)
            self.fm = FM()
            self.dnn = mnn.Dense(15, 1)

        def construct(self, emb):
            flat = emb.reshape(emb.shape[0], -1)
            return ops.sigmoid(self.linear(flat) + self.fm(emb) + self.dnn(ops.relu(flat)))

    return DeepFM()


def _ppo_ms(softmax_first):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.nn.probability.distribution as msd
    from mindspore import ops

    class DiscretePolicy(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.body = mnn.Dense(6, 16)
            self.pi = mnn.Dense(16, 4)
            self.dist = msd.Categorical(dtype=ms.int32)

        def construct(self, obs, action):
            logits = self.pi(ops.tanh(self.body(obs)))
            probs = ops.softmax(logits, axis=-1) if softmax_first else logits
            return self.dist.log_prob(action.astype(ms.int32), probs)

    return DiscretePolicy()


ENTRIES = [
    entry("h15b_port_tabnet_attentive_sparsemax_sort_descending_dropped", "h15-port",
          "model:TabNet attentive transformer (dreamquark pytorch-tabnet sparsemax -> MindSpore port with ops.sort)",
          _tabnet_torch, lambda: _tabnet_ms(False), lambda: _tabnet_ms(True),
          ["after:bn"], ["descending|sort order"],
          inputs={"x": uniform(6, 8), "prior": uniform(6, 6, low=0.5, high=1.0)},
          cause_pattern=r"\bdescending\b|\bsort\w*\b[^.]*\b(ascending|decreasing|reverse\w*)\b"),
    entry("h15b_port_wide_deep_embeddingbag_default_mean_pooled_by_sum", "h15-port",
          "model:Wide&Deep deep part (torch nn.EmbeddingBag default mode='mean' -> mindspore nn.Embedding + reduce)",
          _widedeep_torch, lambda: _widedeep_ms("sum"), lambda: _widedeep_ms("mean"),
          ["emb"], ["EmbeddingBag mode mean|ReduceMean"],
          inputs={"ids": integers(5, 3, high=20), "dense": uniform(5, 3)},
          weight_map={"emb.weight": "emb.embedding_table", "deep.weight": "deep.weight", "deep.bias": "deep.bias",
                      "wide.weight": "wide.weight", "wide.bias": "wide.bias"},
          cause_pattern=r"\bmode\s*=\s*['\"]?mean\b|\bEmbeddingBag\b[^.]*\bmean\b|\bmean\b[^.]*\bEmbeddingBag\b"
                        r"|\b(ReduceMean|reduce_?mean|ops\.mean)\b"),
    entry("h15b_port_deepfm_fm_interaction_reducesum_keep_dims_default", "h15-port",
          "model:DeepFM FM term (DeepCTR-torch FM keepdim=True -> mindrec-style ops.ReduceSum default keep_dims=False)",
          _deepfm_torch, lambda: _deepfm_ms(False), lambda: _deepfm_ms(True),
          ["fm"], ["keep_dims|keepdim"], fails_with="shape",
          inputs={"emb": uniform(4, 5, 3)},
          cause_pattern=r"\bkeep_?dims?\b|\bkeepdims?\b"),
    entry("h15b_port_ppo_categorical_policy_logits_passed_as_probs", "h15-port",
          "model:PPO discrete policy head (torch Categorical(logits=) -> mindspore nn.probability Categorical(probs))",
          _ppo_torch, lambda: _ppo_ms(False), lambda: _ppo_ms(True),
          ["after:pi"], ["probs|softmax|logits"],
          inputs={"obs": uniform(5, 6), "action": integers(5, high=4)},
          cause_pattern=r"\bprobs\b[^.]*\b(logits|softmax)\b|\blogits\b[^.]*\b(probs|probabilit\w*|softmax)\b"
                        r"|\bsoftmax\b[^.]*\b(logits|probs|Categorical)\b"),
]
