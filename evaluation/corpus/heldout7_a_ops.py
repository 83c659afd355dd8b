"""Held-out set 7, half a (family h7): functional ops in forward/construct and one gradient-only
difference, written blind (without reading migcheck's localization, mapping, judging or running code, or other
entries' causes). Each naive port has one nameable MindSpore
difference; each correct port is the same net ported right. Sources: probes of torch 2.13 / MindSpore 2.10 on
CPU."""
from __future__ import annotations

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import Parameter, Tensor, ops
from mindspore import nn as mnn
from torch import nn as tnn

from evaluation.corpus.build import entry
from migcheck.specs import uniform

# ---------------------------------------------------------------- functional ops in forward / construct


class TorchFrames(tnn.Module):
    """Sliding windows of a feature vector (Tensor.unfold(dim, size, step)), each window projected, then averaged."""
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 12)
        self.fc2 = tnn.Linear(4, 3)

    def forward(self, x):
        frames = self.fc1(x).unfold(-1, 4, 2)  # (N, 5, 4)
        return self.fc2(frames).mean(dim=1)


class MsFrames(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(6, 12)
        self.fc2 = mnn.Dense(4, 3)
        self.correct = correct

    def construct(self, x):
        h = self.fc1(x)
        if self.correct:
            frames = ops.stack([h[:, i * 2:i * 2 + 4] for i in range(5)], axis=1)
        else:
            frames = h.unfold(-1, 4, 2)
        return self.fc2(frames).mean(axis=1)


class TorchConvFn(tnn.Module):
    """A learned 1-D kernel applied with F.conv1d(..., padding=1) to a reshaped projection."""
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(5, 16)
        self.kernel = tnn.Parameter(torch.randn(3, 2, 3) * 0.3)
        self.fc2 = tnn.Linear(24, 2)

    def forward(self, x):
        h = self.fc1(x).reshape(x.shape[0], 2, 8)
        return self.fc2(F.conv1d(h, self.kernel, padding=1).flatten(1))


class MsConvFn(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(5, 16)
        self.kernel = Parameter(Tensor(np.zeros((3, 2, 3), np.float32)), name="kernel")
        self.fc2 = mnn.Dense(24, 2)
        self.correct = correct

    def construct(self, x):
        h = self.fc1(x).reshape(x.shape[0], 2, 8)
        if self.correct:
            y = ops.conv1d(h, self.kernel, pad_mode="pad", padding=1)
        else:
            y = ops.conv1d(h, self.kernel, padding=1)
        return self.fc2(y.reshape(y.shape[0], -1))


class TorchRound(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(4, 6)
        self.fc2 = tnn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(torch.round(self.fc1(x), decimals=2))


class MsRound(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(4, 6)
        self.fc2 = mnn.Dense(6, 3)
        self.correct = correct

    def construct(self, x):
        h = self.fc1(x)
        q = ops.round(h * 100.0) / 100.0 if self.correct else ops.round(h, decimals=2)
        return self.fc2(q)


class TorchFold(tnn.Module):
    """Columns (N, C*k*k, L) from a projection folded back to a 4x4 map (F.fold, 2x2 blocks, stride 1)."""
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 72)
        self.fc2 = tnn.Linear(32, 3)

    def forward(self, x):
        cols = self.fc1(x).reshape(x.shape[0], 8, 9)
        return self.fc2(F.fold(cols, (4, 4), 2).flatten(1))


class MsFold(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(6, 72)
        self.fc2 = mnn.Dense(32, 3)
        self.correct = correct

    def construct(self, x):
        cols = self.fc1(x).reshape(x.shape[0], 8, 9)
        size = Tensor([4, 4], ms.int32) if self.correct else (4, 4)
        y = ops.fold(cols, size, 2)
        return self.fc2(y.reshape(y.shape[0], -1))


FUNCTIONAL = [
    entry("h7a_tensor_unfold_sliding_windows_raises", "h7", "probe: torch Tensor.unfold(dim, size, step) (sliding "
          "windows) vs MindSpore Tensor.unfold (im2col: kernel_size, dilation, padding, stride)", TorchFrames,
          lambda: MsFrames(False), lambda: MsFrames(True), ("after:fc1",), ("unfold|sliding window",),
          inputs={"x": uniform(3, 6)}, fails_with="error",
          cause_pattern=r"\bunfold\b[^.]*\b(im2col|sliding|windows?|stack|slices?|slicing|frames?|as_strided|"
                        r"kernel_size)\b|\b(stack|slices?|slicing|as_strided)\b[^.]*\bunfold\b"),
    entry("h7a_functional_conv1d_padding_without_pad_mode_raises", "h7", "probe: F.conv1d(..., padding=1) ported as "
          "ops.conv1d(..., padding=1), whose pad_mode defaults to 'valid'", TorchConvFn, lambda: MsConvFn(False),
          lambda: MsConvFn(True), ("after:fc1",), ("pad_mode|padding",), inputs={"x": uniform(3, 5)},
          fails_with="error", cause_pattern=r"\bpad_mode\s*=\s*['\"]?pad\b|\bpad_mode\b[^.]*['\"]pad['\"]"),
    entry("h7a_round_decimals_raises_on_cpu", "h7", "probe: torch.round(x, decimals=2) ported as ops.round(x, "
          "decimals=2): MindSpore 2.10's CPU kernel takes decimals=0 only", TorchRound, lambda: MsRound(False),
          lambda: MsRound(True), ("after:fc1",), ("decimals|round",), inputs={"x": uniform(4, 4)},
          checks=("forward",), fails_with="error",
          cause_pattern=r"\bdecimals\b|\bround\b[^.]*\b(100(\.0)?|1e2|10 ?\*\* ?2)\b"),
    entry("h7a_fold_output_size_tuple_raises", "h7", "probe: F.fold(x, (4, 4), 2) ported as ops.fold(x, (4, 4), 2): "
          "MindSpore's output_size must be a Tensor", TorchFold, lambda: MsFold(False), lambda: MsFold(True),
          ("after:fc1",), ("output_size|fold",), inputs={"x": uniform(2, 6)}, fails_with="error",
          cause_pattern=r"\boutput_size\b[^.]*\bTensor\b|\bTensor\(\s*\[\s*4\s*,\s*4\s*\]"),
]

# ---------------------------------------------------------------- gradient only


class TorchInfNorm(tnn.Module):
    """A scalar quantizer (straight-through rounding to steps of 0.5), then scaled by its max-abs (L-inf) norm.
    The rounding makes ties for the largest magnitude; torch splits the norm's gradient evenly among them."""
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(4, 6)
        self.fc2 = tnn.Linear(6, 3)

    def forward(self, x):
        h = self.fc1(x) * 2.0
        q = (torch.round(h * 2.0) / 2.0).detach() + (h - h.detach())
        n = torch.linalg.vector_norm(q, ord=float("inf"), dim=-1, keepdim=True)
        return self.fc2(q / (n + 1e-3))


class MsInfNorm(mnn.Cell):
    def __init__(self, correct):
        super().__init__()
        self.fc1 = mnn.Dense(4, 6)
        self.fc2 = mnn.Dense(6, 3)
        self.correct = correct

    def construct(self, x):
        h = self.fc1(x) * 2.0
        q = ops.stop_gradient(ops.round(h * 2.0) / 2.0) + (h - ops.stop_gradient(h))
        if self.correct:
            n = ops.amax(ops.abs(q), axis=-1, keepdims=True)
        else:
            n = ops.norm(q, float("inf"), dim=-1, keepdim=True)
        return self.fc2(q / (n + 1e-3))


GRADIENT = [
    entry("h7a_inf_norm_gradient_at_ties", "h7", "probe: torch.linalg.vector_norm(ord=inf) splits its gradient "
          "among tied maxima; ops.norm(ord=inf) gives it all to one", TorchInfNorm, lambda: MsInfNorm(False),
          lambda: MsInfNorm(True), ("after:fc1",), ("norm|inf|ties",), inputs={"x": uniform(8, 4)},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bamax\b|\bnorm\b[^.]*\binf\w*\b[^.]*\bti(e|es|ed)\b|\bti(e|es|ed)\b[^.]*\bnorm\b"),
]

ENTRIES = FUNCTIONAL + GRADIENT
