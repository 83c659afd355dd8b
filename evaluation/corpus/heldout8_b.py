"""Held-out set 8, half b, single-API entries (family h8): blind single-difference ports.

Two gradient-only entries (forward agrees), two functional ops inside small nets and one port that raises.
Each naive port differs from its correct port in one place only.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

MODELS = "model:"


# --------------------------------------------------------------------------------------------------------------------
# Single-API: functional ops
# --------------------------------------------------------------------------------------------------------------------

def _resample_torch():
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):  # frame-rate resampler between two projections
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 4)
            self.fc2 = tnn.Linear(4, 3)

        def forward(self, x):  # x: (N, T, 4)
            h = self.fc1(x).transpose(1, 2)
            h = F.interpolate(h, size=5, mode="nearest-exact")
            return self.fc2(h.transpose(1, 2))

    return Net()


def _resample_ms(mode):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(4, 4)
                self.fc2 = mnn.Dense(4, 3)

            def construct(self, x):
                h = ops.transpose(self.fc1(x), (0, 2, 1))
                h = ops.interpolate(h, size=(5,), mode=mode)
                return self.fc2(ops.transpose(h, (0, 2, 1)))

        return Net()
    return make


def _lowrank_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):  # rank-2 reconstruction of a projected batch (SVD denoising)
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 6)
            self.fc2 = tnn.Linear(6, 3)

        def forward(self, x):  # x: (8, 5)
            h = self.fc1(x)
            U, S, Vh = torch.linalg.svd(h, full_matrices=False)
            low = (U[:, :2] * S[:2]) @ Vh[:2]
            return self.fc2(low)

    return Net()


def _lowrank_ms(transpose_v):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(5, 6)
                self.fc2 = mnn.Dense(6, 3)

            def construct(self, x):
                h = self.fc1(x)
                s, u, v = ops.svd(h, full_matrices=False)
                vh = v.T if transpose_v else v
                low = ops.matmul(u[:, :2] * s[:2], vh[:2])
                return self.fc2(low)

        return Net()
    return make


# --------------------------------------------------------------------------------------------------------------------
# Single-API: gradient-only
# --------------------------------------------------------------------------------------------------------------------

def _poly_torch():
    import torch
    import torch.nn as tnn

    class PolyFeatures(tnn.Module):  # x -> [x^0, x^1, x^2, x^3] per feature, then a linear read-out
        def __init__(self):
            super().__init__()
            self.register_buffer("powers", torch.arange(4, dtype=torch.float32), persistent=False)
            self.fc = tnn.Linear(12, 2)

        def forward(self, x):  # x: (N, 3)
            feats = torch.pow(x.unsqueeze(-1), self.powers)
            return self.fc(feats.flatten(1))

    return PolyFeatures()


def _poly_ms(safe):
    def make():
        import mindspore.nn as mnn
        from mindspore import Tensor, ops

        class PolyFeatures(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.powers = Tensor(np.arange(4, dtype=np.float32))
                self.fc = mnn.Dense(12, 2)

            def construct(self, x):
                if safe:  # x^0 is the constant 1: build it without pow so its gradient is exactly zero
                    rest = ops.pow(x.unsqueeze(-1), self.powers[1:])
                    feats = ops.cat([ops.ones_like(rest[..., :1]), rest], axis=-1)
                else:
                    feats = ops.pow(x.unsqueeze(-1), self.powers)
                return self.fc(feats.reshape(feats.shape[0], -1))

        return PolyFeatures()
    return make


def _median_torch():
    import torch.nn as tnn

    class MedianCentre(tnn.Module):  # robust centring of a quantised signal, then a projection
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(6, 2)

        def forward(self, x):  # x: (6,)
            return self.fc(x - x.median())

    return MedianCentre()


def _median_ms(evenly):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class MedianCentre(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(6, 2)

            def construct(self, x):
                med = ops.median(x, axis=0)[0]
                if evenly:  # spread the median's gradient evenly over the tied elements, as torch.median() does
                    tie = ops.stop_gradient((x == med).astype(x.dtype))
                    med = (x * tie).sum() / tie.sum()
                return self.fc(x - med)

        return MedianCentre()
    return make


# --------------------------------------------------------------------------------------------------------------------
# Single-API: raises
# --------------------------------------------------------------------------------------------------------------------

def _dwconv_torch():
    import torch.nn as tnn

    class Net(tnn.Module):  # Conformer-style depthwise temporal conv
        def __init__(self):
            super().__init__()
            self.pw = tnn.Conv1d(4, 4, 1)
            self.dw = tnn.Conv1d(4, 4, 3, padding=1, groups=4)
            self.act = tnn.SiLU()

        def forward(self, x):
            return self.act(self.dw(self.pw(x)))

    return Net()


def _dwconv_ms(kw):
    def make():
        import mindspore.nn as mnn

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.pw = mnn.Conv1d(4, 4, 1, has_bias=True)
                self.dw = mnn.Conv1d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True, **{kw: 4})
                self.act = mnn.SiLU()

            def construct(self, x):
                return self.act(self.dw(self.pw(x)))

        return Net()
    return make


# --------------------------------------------------------------------------------------------------------------------

ENTRIES = [
    entry("h8b_interpolate_nearest_exact_as_nearest", "h8", "ops/mindspore.ops.interpolate (probe: nearest-exact)",
          _resample_torch, _resample_ms("nearest"), _resample_ms("nearest-exact"), ("after:fc1",),
          ("nearest-exact",), inputs={"x": uniform(2, 7, 4)},
          cause_pattern=r"nearest[-_]exact"),
    entry("h8b_svd_returns_v_not_vh", "h8", "probe:ops.svd returns (s, u, v) with v not transposed",
          _lowrank_torch, _lowrank_ms(False), _lowrank_ms(True), ("after:fc1",), ("svd|transpose",),
          inputs={"x": uniform(8, 5)},
          cause_pattern=r"\bsvd\b[^\n]*\b(transpos\w*|v\.t|vh|v\^?h|adjoint|conj\w*)\b|\b(transpos\w*|vh)\b[^\n]*\bsvd\b"),
    entry("h8b_pow_zero_exponent_gradient_at_zero_base", "h8", "probe:ops.pow gradient at base 0 with exponent 0",
          _poly_torch, _poly_ms(False), _poly_ms(True), ("<root>",), ("pow|exponent",),
          inputs={"x": given(np.array([[0.0, 0.5, -1.0], [1.5, 0.0, 0.25]], np.float32))},
          checks=("forward", "backward"), fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\bpow\b[^\n]*\b(nan|zero|0)\b|\bexponent\b[^\n]*\b(zero|0)\b[^\n]*\bbase\b"),
    entry("h8b_global_median_tie_gradient_not_split", "h8", "probe:torch.median() spreads the gradient over ties",
          _median_torch, _median_ms(False), _median_ms(True), ("<root>",), ("median|tie",),
          inputs={"x": given(np.array([0.5, -1.0, 0.5, 2.0, 0.5, -0.25], np.float32))},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bmedian\b[^\n]*\b(ties?|tied|evenly|equal(ly)?|split\w*|distribut\w*|shared?)\b"),
    entry("h8b_conv1d_groups_keyword_raises", "h8", "Conv1d",
          _dwconv_torch, _dwconv_ms("groups"), _dwconv_ms("group"), ("dw",), ("group",),
          inputs={"x": uniform(2, 4, 6)}, fails_with="error",
          cause_pattern=r"\bgroup\s*=|\bgroup\b[^\n]*\bgroups\b|\bgroups\b[^\n]*\bgroup\b"),
]
