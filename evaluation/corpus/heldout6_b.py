"""Held-out set 6, half b: single-API entries (family h6). Two gradient-only differences (forward agrees, the
gradient does not) and two functional ops. Written blind to migcheck's localization, mapping, judging and
running code; each naive port carries one mistake, each correct port none. Blocks: heldout6_b_ports.py."""
from __future__ import annotations

import math

import numpy as np

from migcheck import given, uniform
from evaluation.corpus.build import entry

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


# --- SELU in a self-normalizing MLP: MindSpore's SeLU backward is wrong for negative inputs ---------------

def _torch_snn():
    import torch

    class SNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.act = torch.nn.SELU()
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return SNN()


def _ms_snn(selu_cell):
    def make():
        from mindspore import nn

        class SNN(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(4, 6)
                self.act = selu_cell()
                self.fc2 = nn.Dense(6, 3)

            def construct(self, x):
                return self.fc2(self.act(self.fc1(x)))

        return SNN()
    return make


def _ms_builtin_selu():
    from mindspore import nn
    return nn.SeLU()


def _ms_written_selu():
    from mindspore import nn, ops

    class SELU(nn.Cell):
        """scale * (x if x > 0 else alpha * (exp(x) - 1)), written out so its gradient is the analytic one."""

        def construct(self, x):
            neg = SELU_ALPHA * (ops.exp(ops.minimum(x, 0.0)) - 1.0)
            return SELU_SCALE * ops.where(x > 0, x, neg)

    return SELU()


# --- x-vector statistics pooling: std over frames where a channel is constant (silent / padded segment) ----

def _torch_xvector():
    import torch

    class StatsPool(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.frame = torch.nn.Linear(3, 5)
            self.act = torch.nn.ReLU()
            self.segment = torch.nn.Linear(10, 2)

        def forward(self, x):  # x: (batch, frames, features)
            h = self.act(self.frame(x))
            stats = torch.cat([h.mean(dim=1), h.std(dim=1)], dim=-1)
            return self.segment(stats)

    return StatsPool()


def _ms_xvector(written_std):
    def make():
        from mindspore import nn, ops

        class StatsPool(nn.Cell):
            def __init__(self):
                super().__init__()
                self.frame = nn.Dense(3, 5)
                self.act = nn.ReLU()
                self.segment = nn.Dense(10, 2)

            def construct(self, x):
                h = self.act(self.frame(x))
                mu = h.mean(axis=1)
                if written_std:
                    d = h - h.mean(axis=1, keep_dims=True)
                    var = (d * d).sum(axis=1) / (h.shape[1] - 1)
                    live = var > 0
                    sd = ops.where(live, ops.sqrt(ops.where(live, var, ops.ones_like(var))), ops.zeros_like(var))
                else:
                    sd = ops.std(h, axis=1, ddof=1)
                return self.segment(ops.concat((mu, sd), axis=-1))

        return StatsPool()
    return make


# Two frames per segment; the first segment is silence (all frames identical), as padded batches have.
_FRAMES = np.array([[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                    [[0.3, -0.7, 0.9], [-0.4, 0.8, 0.2]],
                    [[0.5, 0.1, -0.6], [0.5, 0.1, -0.6]]], dtype=np.float32)


# --- SigLIP-style sigmoid scores: log-sigmoid of logits sharpened by a temperature of 0.01 --------------------

def _torch_logsig():
    import torch
    import torch.nn.functional as F

    class SigmoidScore(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            return F.logsigmoid(self.fc(x) * 100.0)

    return SigmoidScore()


def _ms_logsig(stable):
    def make():
        from mindspore import nn, ops

        class SigmoidScore(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)
                self.logsigmoid = nn.LogSigmoid()

            def construct(self, x):
                z = self.fc(x) * 100.0
                if stable:
                    return -ops.softplus(-z)
                return self.logsigmoid(z)

        return SigmoidScore()
    return make


# --- cosine similarity of small-magnitude projections (eps handling) --------------------------------------

def _torch_cos():
    import torch
    import torch.nn.functional as F

    class Siamese(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(5, 4, bias=False)

        def forward(self, x1, x2):
            return F.cosine_similarity(self.proj(x1), self.proj(x2), dim=-1)

    return Siamese()


def _ms_cos(per_norm):
    def make():
        from mindspore import nn, ops

        class Siamese(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(5, 4, has_bias=False)

            def construct(self, x1, x2):
                a, b = self.proj(x1), self.proj(x2)
                if per_norm:
                    eps = 1e-8
                    na = ops.clamp(ops.norm(a, dim=-1, keepdim=True), min=eps)
                    nb = ops.clamp(ops.norm(b, dim=-1, keepdim=True), min=eps)
                    return ((a / na) * (b / nb)).sum(axis=-1)
                return ops.cosine_similarity(a, b, dim=-1)

        return Siamese()
    return make


ENTRIES = [
    entry("h6b_selu_gradient_negative_inputs", "h6",
          "probe: mindspore.nn.SeLU / ops.selu backward on CPU (MindSpore 2.10) vs torch.nn.SELU for x < 0",
          _torch_snn, _ms_snn(_ms_builtin_selu), _ms_snn(_ms_written_selu),
          ("act",), ("selu|SeLU|gradient",), inputs={"x": uniform(4, 4)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bselu\b.{0,160}\b(gradient|gradients|backward|grad|derivative|bprop)\b"
                        r"|\b(gradient|gradients|backward|grad|derivative|bprop)\b.{0,160}\bselu\b"),
    entry("h6b_std_gradient_constant_frames", "h6",
          "probe: torch.Tensor.std backward at zero spread is 0; mindspore.ops.std backward there is nan",
          _torch_xvector, _ms_xvector(False), _ms_xvector(True),
          ("after:act",), ("std|standard deviation|gradient",), inputs={"x": given(_FRAMES)},
          checks=("forward", "backward"), fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\b(std|standard deviation)\b.{0,200}\b(gradient|gradients|backward|grad|nan|sqrt)\b"
                        r"|\b(gradient|gradients|backward|grad|nan)\b.{0,200}\b(std|standard deviation)\b"),
    entry("h6b_logsigmoid_large_negative_logits", "h6",
          "probe: mindspore.nn.LogSigmoid (log of sigmoid) is -inf below about -88 in float32; torch.nn.functional.logsigmoid is exact",
          _torch_logsig, _ms_logsig(False), _ms_logsig(True),
          ("after:fc",), ("logsigmoid|LogSigmoid|softplus",), inputs={"x": uniform(4, 4, low=-4.0, high=4.0)}, fails_with="nonfinite",
          cause_pattern=r"\blog_?sigmoid\b|\bsoftplus\b"),
    entry("h6b_cosine_similarity_eps_product_of_norms", "h6",
          "probe: mindspore.ops.cosine_similarity clamps the product of the norms by eps; torch clamps each norm",
          _torch_cos, _ms_cos(False), _ms_cos(True),
          ("after:proj",), ("cosine_similarity|eps",),
          inputs={"x1": uniform(3, 5, low=-1e-5, high=1e-5), "x2": uniform(3, 5, low=-1e-5, high=1e-5)},
          cause_pattern=r"(cosine_similarity|cosine similarity).{0,200}\b(eps|epsilon|clamp\w*|norms?)\b"
                        r"|\b(eps|epsilon|clamp\w*|norms?)\b.{0,200}(cosine_similarity|cosine similarity)"),
]
