"""Held-out set 7, half b: single-API entries (family h7).

Written blind (without reading migcheck's localization, mapping, judging or running code, the bundled cases or
the other corpus entries' causes). Each naive port has one mistake; each correct twin agrees with torch. Sources
are probes of torch 2.13 / MindSpore 2.10 on CPU. Groups: gradient-only (forward agrees; `fails_on=("backward",)`),
functional ops in construct, and one port that MindSpore refuses at construction.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

ENTRIES = []


# ---------------------------------------------------------------------------------------------------------------
# Gradient-only 1: peak (L-infinity) normalization of clipped PCM audio. torch.linalg.vector_norm(ord=inf) shares
# the gradient evenly among tied peaks (like amax); MindSpore's ops.norm(ord=inf) gives it all to one element.
# The forward agrees exactly. Clipped audio has many tied peaks (+-1.0 or repeated quantized maxima).
# ---------------------------------------------------------------------------------------------------------------
_PCM = np.array([
    [0.25, -1.0, 0.5, 1.0, -0.125, 0.375, -1.0, 0.0],
    [0.5, 0.5, -0.25, 0.125, 0.5, -0.5, 0.25, 0.0],
    [-0.75, 0.25, 0.75, -0.375, 0.625, 0.75, -0.125, 0.5],
], dtype=np.float32)


def _peaknorm_torch():
    import torch

    class PeakNormFrontend(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.frontend = torch.nn.Conv1d(1, 4, 3, padding=1)

        def forward(self, wav):
            peak = torch.linalg.vector_norm(wav, ord=float("inf"), dim=-1, keepdim=True)
            wav = wav / peak
            return self.frontend(wav.unsqueeze(1))

    return PeakNormFrontend()


def _peaknorm_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class PeakNormFrontend(nn.Cell):
            def __init__(self):
                super().__init__()
                self.frontend = nn.Conv1d(1, 4, 3, pad_mode="pad", padding=1, has_bias=True)

            def construct(self, wav):
                if correct:
                    peak = ops.amax(ops.abs(wav), axis=-1, keepdims=True)
                else:
                    peak = ops.norm(wav, float("inf"), dim=-1, keepdim=True)
                wav = wav / peak
                return self.frontend(ops.expand_dims(wav, 1))

        return PeakNormFrontend()
    return make


ENTRIES.append(entry(
    "h7b_norm_inf_peak_normalize_tie_gradient", "h7", "probe: ops.norm(ord=inf) backward at tied peaks",
    _peaknorm_torch, _peaknorm_ms(False), _peaknorm_ms(True), ("<root>",),
    ("norm|inf|amax|tie",), inputs={"wav": given(_PCM)}, checks=("forward", "backward"), fails_on=("backward",),
    cause_pattern=r"\bnorm\b[^.\n]*\b(inf|infinity|ord)\b|\bamax\b|\bties?\b[^.\n]*\b(norm|max)\b",
))


# ---------------------------------------------------------------------------------------------------------------
# Gradient-only 2: pairwise hashing loss. The Hamming distance between +-1 codes, (K - a.b) / 2, is an integer, so
# dissimilar pairs often sit exactly on the hinge (distance == margin). torch's HingeEmbeddingLoss (clamp_min)
# passes the full gradient there; MindSpore's nn.HingeEmbeddingLoss passes half (a maximum(0, margin - x) tie).
# The loss values agree.
# ---------------------------------------------------------------------------------------------------------------
_CODES_A = np.array([[1, -1, 1, 1, -1, 1], [1, 1, 1, -1, -1, -1], [-1, -1, 1, 1, 1, -1], [1, -1, -1, 1, 1, 1]],
                    dtype=np.float32)
_CODES_B = np.array([[1, -1, -1, -1, -1, 1], [1, 1, 1, -1, 1, -1], [1, -1, 1, -1, 1, -1], [1, 1, -1, 1, -1, 1]],
                    dtype=np.float32)
_PAIR = np.array([-1, 1, -1, -1], dtype=np.float32)  # 1: similar pair, -1: dissimilar


def _hash_torch():
    import torch

    class PairHashLoss(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.criterion = torch.nn.HingeEmbeddingLoss(margin=2.0)
            self.pair = torch.from_numpy(_PAIR)

        def forward(self, codes_a, codes_b):
            hamming = 0.5 * (codes_a.shape[1] - (codes_a * codes_b).sum(-1))
            return self.criterion(hamming, self.pair)

    return PairHashLoss()


def _hash_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import Tensor, ops

        class PairHashLoss(nn.Cell):
            def __init__(self):
                super().__init__()
                self.criterion = nn.HingeEmbeddingLoss(margin=2.0)
                self.pair = Tensor(_PAIR)

            def construct(self, codes_a, codes_b):
                hamming = 0.5 * (codes_a.shape[1] - (codes_a * codes_b).sum(-1))
                if correct:  # torch's formula: clamp_min passes the gradient at the hinge
                    return ops.where(self.pair == 1, hamming, ops.clamp(2.0 - hamming, min=0.0)).mean()
                return self.criterion(hamming, self.pair)

        return PairHashLoss()
    return make


ENTRIES.append(entry(
    "h7b_hinge_embedding_loss_gradient_at_margin", "h7", "probe: nn.HingeEmbeddingLoss backward at distance == margin",
    _hash_torch, _hash_ms(False), _hash_ms(True), ("criterion",), ("HingeEmbeddingLoss|margin|hinge",),
    inputs={"codes_a": given(_CODES_A), "codes_b": given(_CODES_B)}, checks=("forward", "backward"),
    fails_on=("backward",),
    cause_pattern=(r"\bHingeEmbeddingLoss\b|\bhinge_embedding_loss\b|"
                   r"\bclamp(_min)?\b[^.\n]*\b(margin|hinge|boundary)\b|"
                   r"\b(margin|hinge|boundary)\b[^.\n]*\b(clamp|half|0\.5)\b"),
))


# ---------------------------------------------------------------------------------------------------------------
# Functional op 1: torch.flatten(x) flattens everything (start_dim=0); mindspore.ops.flatten's start_dim defaults
# to 1, so a critic head's (N, 1) value stays (N, 1) instead of (N,).
# ---------------------------------------------------------------------------------------------------------------
def _critic_torch():
    import torch

    class Critic(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 8)
            self.fc2 = torch.nn.Linear(8, 1)

        def forward(self, obs):
            return torch.flatten(self.fc2(torch.relu(self.fc1(obs))))

    return Critic()


def _critic_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class Critic(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(6, 8)
                self.fc2 = nn.Dense(8, 1)

            def construct(self, obs):
                value = self.fc2(ops.relu(self.fc1(obs)))
                return ops.flatten(value, start_dim=0) if correct else ops.flatten(value)

        return Critic()
    return make


ENTRIES.append(entry(
    "h7b_flatten_default_start_dim_one", "h7", "probe: ops.flatten start_dim default 1 vs torch.flatten 0",
    _critic_torch, _critic_ms(False), _critic_ms(True), ("after:fc2",), ("flatten|start_dim",),
    inputs={"obs": uniform(5, 6)}, fails_with="shape",
    cause_pattern=r"\bstart_dim\b[^.\n]*\b0\b|\bflatten\b[^.\n]*\bstart_dim\b",
))


# ---------------------------------------------------------------------------------------------------------------
# Functional op 2: class prototypes (prototypical networks). torch.unique sorts the classes (sorted=True);
# mindspore.ops.unique returns them in order of first occurrence, so the prototype rows come out permuted.
# ---------------------------------------------------------------------------------------------------------------
_LABELS = np.array([2, 0, 3, 2, 1, 0, 3, 1, 2, 0], dtype=np.int64)


def _proto_torch():
    import torch

    class Prototypes(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = torch.nn.Linear(5, 4)

        def forward(self, support, labels):
            z = self.encoder(support)
            classes, inverse = torch.unique(labels, return_inverse=True)
            sums = torch.zeros(classes.shape[0], z.shape[1], dtype=z.dtype).index_add(0, inverse, z)
            counts = torch.bincount(inverse, minlength=classes.shape[0]).to(z.dtype).unsqueeze(1)
            return sums / counts

    return Prototypes()


def _proto_ms(correct: bool):
    def make():
        import mindspore
        import mindspore.nn as nn
        from mindspore import ops

        class Prototypes(nn.Cell):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Dense(5, 4)

            def construct(self, support, labels):
                z = self.encoder(support)
                classes, inverse = ops.unique(labels)
                if correct:
                    classes = ops.sort(classes)[0]
                    inverse = ops.searchsorted(classes, labels)
                n = classes.shape[0]
                inverse = inverse.astype(mindspore.int32)
                sums = ops.unsorted_segment_sum(z, inverse, n)
                counts = ops.unsorted_segment_sum(ops.ones_like(z[:, :1]), inverse, n)
                return sums / counts

        return Prototypes()
    return make


ENTRIES.append(entry(
    "h7b_unique_first_occurrence_order_prototypes", "h7", "probe: ops.unique order vs torch.unique(sorted=True)",
    _proto_torch, _proto_ms(False), _proto_ms(True), ("after:encoder",), ("unique|sorted|sort",),
    inputs={"support": uniform(10, 5), "labels": given(_LABELS)},
    cause_pattern=r"\bunique\b[^.\n]*\b(sort|sorted|order|occurrence)\b|\b(sort|sorted)\b[^.\n]*\bunique\b",
))


# ---------------------------------------------------------------------------------------------------------------
# Error: SqueezeNet-style MaxPool2d(3, 2, ceil_mode=True). MindSpore's nn.MaxPool2d accepts ceil_mode only with
# pad_mode='pad'; with the default pad_mode='valid' it raises at construction.
# ---------------------------------------------------------------------------------------------------------------
def _pool_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.pool = torch.nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)
            self.fc = torch.nn.Linear(4 * 3 * 3, 5)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(torch.relu(self.conv(x))), 1))

    return Net()


def _pool_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=True)
                if correct:
                    self.pool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", ceil_mode=True)
                else:
                    self.pool = nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)
                self.fc = nn.Dense(4 * 3 * 3, 5)

            def construct(self, x):
                return self.fc(ops.flatten(self.pool(ops.relu(self.conv(x))), start_dim=1))

        return Net()
    return make


ENTRIES.append(entry(
    "h7b_maxpool_ceil_mode_without_pad_mode_raises", "h7", "probe: nn.MaxPool2d ceil_mode needs pad_mode='pad'",
    _pool_torch, _pool_ms(False), _pool_ms(True), ("pool",), ("pad_mode|ceil_mode",),
    inputs={"x": uniform(2, 3, 8, 8)}, fails_with="error",
    cause_pattern=r"\bpad_mode\b[^.\n]*\bpad\b",
))
