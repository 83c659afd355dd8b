"""Held-out set 14, half b: single-API entries (family h14) written blind from probes of torch 2.13 / MindSpore 2.10
on CPU and MindSpore's pytorch_diff pages."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform


def _ms():
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return mnn, ops


def _t():
    import torch
    import torch.nn as tnn
    return torch, tnn


# --- gradient-only: reduction max with ties --------------------------------------------------------------------
def _amax_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.act = tnn.ReLU6()
            self.fc = tnn.Linear(3, 2)

        def forward(self, x):
            return self.fc(torch.amax(self.act(x), dim=-1))
    return Net()


def _amax_ms(correct):
    mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.act = mnn.ReLU6()
            self.fc = mnn.Dense(3, 2)

        def construct(self, x):
            h = self.act(x)
            m = ops.amax(h, -1) if correct else ops.max(h, axis=-1)[0]
            return self.fc(m)
    return Net()


_TIES = np.array([[[1, 3, 3, 2], [4, 4, 4, 0], [2, 5, 1, 5]],
                  [[0.5, 0.5, 0.25, 0.5], [2, 1, 2, 1], [3, 3, 1, 1]]], np.float32)


# --- gradient-only: clamping saturated pixels --------------------------------------------------------------------
def _clamp_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = tnn.Flatten()
            self.fc = tnn.Linear(8, 3)

        def forward(self, x):
            return self.fc(torch.clamp(self.flatten(x), 0.0, 1.0))
    return Net()


def _clamp_ms(correct):
    import mindspore as ms
    mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = mnn.Flatten()
            self.fc = mnn.Dense(8, 3)
            self.lo = ms.Tensor(0.0, ms.float32)
            self.hi = ms.Tensor(1.0, ms.float32)

        def construct(self, x):
            h = self.flatten(x)
            h = ops.clamp(h, 0.0, 1.0) if correct else ops.clip_by_value(h, self.lo, self.hi)
            return self.fc(h)
    return Net()


_PIXELS = np.array([[[[0.0, 1.0, 0.25, 1.0], [0.5, 0.0, 1.0, 0.75]]],
                    [[[1.0, 0.125, 0.0, 0.0], [0.875, 1.0, 0.375, 1.0]]]], np.float32)


# --- functional: cross product of a batch of 3 vectors ----------------------------------------------------------
def _cross_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 6)
            self.fc = tnn.Linear(3, 2)

        def forward(self, x):
            u = self.proj(x)
            return self.fc(torch.linalg.cross(u[:, :3], u[:, 3:]))
    return Net()


def _cross_ms(correct):
    mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 6)
            self.fc = mnn.Dense(3, 2)

        def construct(self, x):
            u = self.proj(x)
            c = ops.cross(u[:, :3], u[:, 3:], dim=-1) if correct else ops.cross(u[:, :3], u[:, 3:])
            return self.fc(c)
    return Net()


# --- functional: global L1 normalisation ------------------------------------------------------------------------
def _norm_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 6)
            self.fc2 = tnn.Linear(6, 3)

        def forward(self, x):
            h = self.fc1(x)
            return self.fc2(h / torch.norm(h, 1))
    return Net()


def _norm_ms(correct):
    mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 6)
            self.fc2 = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            n = ops.norm(h.reshape(-1), 1) if correct else ops.norm(h, 1)
            return self.fc2(h / n)
    return Net()


# --- error: adaptive pooling to a length that does not divide the input -----------------------------------------
def _aap_torch():
    torch, tnn = _t()
    F = torch.nn.functional

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(7, 7)
            self.fc2 = tnn.Linear(12, 2)

        def forward(self, x):
            h = F.adaptive_avg_pool1d(self.fc1(x), 3)
            return self.fc2(h.flatten(1))
    return Net()


def _aap_ms(correct):
    mnn, ops = _ms()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(7, 7)
            self.fc2 = mnn.Dense(12, 2)

        def construct(self, x):
            h = self.fc1(x)
            if correct:
                h = ops.adaptive_avg_pool2d(h.expand_dims(2), (1, 3)).squeeze(2)
            else:
                h = ops.adaptive_avg_pool1d(h, 3)
            return self.fc2(h.reshape(h.shape[0], -1))
    return Net()


ENTRIES = [
    entry("h14b_amax_ported_as_ops_max_values_tie_gradient", "h14",
          "probe:torch.amax vs ops.max(axis) backward at ties",
          _amax_torch, lambda: _amax_ms(False), lambda: _amax_ms(True), ["after:act"],
          ["amax|ties|max|gradient split"], inputs={"x": given(_TIES)}, checks=("forward", "backward"),
          fails_on=("backward",),
          cause_pattern=r"\bamax\b|\bReduceMax\b|\btie[sd]?\b[^.]*\b(split|even|equal|shared|distribut)"),
    entry("h14b_clamp_ported_as_clip_by_value_gradient_at_bounds", "h14",
          "probe:torch.clamp vs ops.clip_by_value backward at the bounds", _clamp_torch, lambda: _clamp_ms(False),
          lambda: _clamp_ms(True), ["after:flatten"], ["clamp|clip_by_value|bound|gradient"],
          inputs={"x": given(_PIXELS)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bclip_by_value\b|\bops\.clamp\b|\bmint\.clamp\b"),
    entry("h14b_linalg_cross_as_ops_cross_default_dim", "h14", "cross", _cross_torch, lambda: _cross_ms(False),
          lambda: _cross_ms(True), ["after:proj"], ["cross|dim|first dimension of size 3"],
          inputs={"x": uniform(3, 4)},
          cause_pattern=r"\bcross\b[^.]*\b(dim|axis)\s*=\s*-1\b|\b(dim|axis)\s*=\s*-1\b[^.]*\bcross\b"),
    entry("h14b_torch_norm_p1_as_ops_norm_matrix_ord", "h14", "norm", _norm_torch, lambda: _norm_ms(False),
          lambda: _norm_ms(True), ["after:fc1"], ["norm|ord|matrix norm|flatten"], inputs={"x": uniform(4, 5)},
          cause_pattern=r"\bmatrix\b[^.]*\bnorm\b|\bnorm\b[^.]*\b(flatten|reshape|vector_norm|ravel|matrix)\b"),
    entry("h14b_adaptive_avg_pool1d_non_divisible_length_raises", "h14",
          "probe:ops.adaptive_avg_pool1d with an output size that does not divide the length", _aap_torch,
          lambda: _aap_ms(False), lambda: _aap_ms(True), ["after:fc1"], ["adaptive_avg_pool1d|divisible"],
          inputs={"x": uniform(2, 4, 7)}, fails_with="error",
          cause_pattern=r"\badaptive_avg_pool1d\b|\bAdaptiveAvgPool1d\b|\bdivisible\b"),
]
