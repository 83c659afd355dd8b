"""Held-out set 5, half a: single-API differences (family "h5", names h5a_*).

Layers and losses inside small nets (optimizers and schedules: heldout5_a_train.py). Written blind (without reading
migcheck's localization, mapping, judging or running code, the bundled cases or other entries' causes). Each
naive port carries one realistic porting mistake; each correct twin is the same net ported right. Sources: the
torch 2.13 / MindSpore 2.10 defaults and behaviour, probed on CPU ("probe (...): ...").
"""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

FAMILY = "h5"
PROBE = "probe (torch 2.13 / MindSpore 2.10, CPU): "


# --------------------------------------------------------------------------------------------------------------
# Softmin without dim: torch picks dim=1 for a 4-D input (the implicit-dim rule), MindSpore's default axis is -1.

def _softmin_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1)
            self.act = nn.Softmin()  # dim=None: torch's implicit rule gives dim 1 for 4-D input
            self.conv2 = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return self.conv2(self.act(self.conv1(x)))

    return Net()


def _softmin_ms(axis):
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1, has_bias=True)
            self.act = nn.Softmin() if axis is None else nn.Softmin(axis=axis)
            self.conv2 = nn.Conv2d(3, 2, 1, has_bias=True)

        def construct(self, x):
            return self.conv2(self.act(self.conv1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# BCELoss on saturated probabilities: torch clamps each log term at -100; MindSpore's BCELoss does not compute
# the same value where the sigmoid has saturated (p == 1.0 or 1 - p below float32 resolution).

_BCE_TARGETS = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=np.float32)


def _bce_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)
            self.sig = nn.Sigmoid()
            self.loss = nn.BCELoss()

        def forward(self, x, t):
            return self.loss(self.sig(self.fc(x)), t)

    return Net()


def _bce_ms(clamped):
    import mindspore.nn as nn
    import mindspore.ops as ops

    class TorchBCE(nn.Cell):
        """torch's binary_cross_entropy: each log term clamped at -100, then the mean."""

        def construct(self, p, t):
            log_p = ops.clamp(ops.log(p), min=-100.0)
            log_q = ops.clamp(ops.log(1.0 - p), min=-100.0)
            return (-(t * log_p + (1.0 - t) * log_q)).mean()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.sig = nn.Sigmoid()
            self.loss = TorchBCE() if clamped else nn.BCELoss(reduction="mean")

        def construct(self, x, t):
            return self.loss(self.sig(self.fc(x)), t)

    return Net()


# --------------------------------------------------------------------------------------------------------------
# Nearest upsampling by a fractional scale_factor: MindSpore refuses scale_factor for 4-D nearest unless
# recompute_scale_factor=True, and then picks source rows by in/out size instead of torch's 1/scale_factor.

def _nearest_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1)
            self.up = nn.Upsample(scale_factor=1.25, mode="nearest")
            self.conv2 = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return self.conv2(self.up(self.conv1(x)))

    return Net()


def _nearest_ms(recompute):
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops

    class NearestScale(nn.Cell):
        """torch's nearest with a scale_factor: out = floor(in * s), source = floor(dst / s), clamped."""

        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def construct(self, x):
            h, w = x.shape[2], x.shape[3]
            oh, ow = int(math.floor(h * self.scale)), int(math.floor(w * self.scale))
            rows = [min(int(math.floor(i * (1.0 / self.scale))), h - 1) for i in range(oh)]
            cols = [min(int(math.floor(j * (1.0 / self.scale))), w - 1) for j in range(ow)]
            x = ops.gather(x, ms.Tensor(rows, ms.int32), 2)
            return ops.gather(x, ms.Tensor(cols, ms.int32), 3)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1, has_bias=True)
            if recompute:
                self.up = nn.Upsample(scale_factor=1.25, mode="nearest", recompute_scale_factor=True)
            else:
                self.up = NearestScale(1.25)
            self.conv2 = nn.Conv2d(3, 2, 1, has_bias=True)

        def construct(self, x):
            return self.conv2(self.up(self.conv1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# EmbeddingBag(mode="mean", padding_idx=0): torch leaves padding entries out of each bag's mean (sum and count).
# MindSpore has no EmbeddingBag; the naive port is Embedding(padding_idx=0) + mean over the bag axis.

_BAG_IDS = np.array([[3, 0, 5, 0, 2], [0, 0, 7, 1, 1], [4, 9, 0, 6, 8], [2, 0, 0, 0, 3]], dtype=np.int64)


def _bag_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.bag = nn.EmbeddingBag(10, 4, mode="mean", padding_idx=0)
            self.fc = nn.Linear(4, 3)

        def forward(self, ids):
            return self.fc(self.bag(ids))

    return Net()


def _bag_ms(masked):
    import mindspore.nn as nn
    import mindspore.ops as ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bag = nn.Embedding(10, 4, padding_idx=0)
            self.fc = nn.Dense(4, 3)

        def construct(self, ids):
            emb = self.bag(ids)
            if masked:
                keep = ops.cast(ids != 0, emb.dtype).expand_dims(-1)
                count = ops.clamp(keep.sum(axis=1), min=1.0)
                pooled = (emb * keep).sum(axis=1) / count
            else:
                pooled = emb.mean(axis=1)
            return self.fc(pooled)

    return Net()


# --------------------------------------------------------------------------------------------------------------
# nn.RMSNorm's default eps=None means torch.finfo(float32).eps (1.19e-07); MindSpore 2.10 has no RMSNorm cell on
# CPU, and the hand-written port takes LLaMA's usual 1e-6. Visible on small activations.

_FINFO_EPS = float(np.finfo(np.float32).eps)


def _rms_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 8, bias=False)
            self.norm = nn.RMSNorm(8)
            self.fc2 = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc2(self.norm(self.fc1(x)))

    return Net()


def _rms_ms(eps):
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops

    class RMSNorm(nn.Cell):
        def __init__(self, dim, eps):
            super().__init__()
            self.eps = eps
            self.weight = ms.Parameter(ops.ones((dim,), ms.float32), name="weight")

        def construct(self, x):
            return x * ops.rsqrt((x * x).mean(axis=-1, keep_dims=True) + self.eps) * self.weight

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 8, has_bias=False)
            self.norm = RMSNorm(8, eps)
            self.fc2 = nn.Dense(8, 4)

        def construct(self, x):
            return self.fc2(self.norm(self.fc1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# Bicubic resize: torch uses the cubic convolution kernel with A=-0.75 (half-pixel centres, edge taps clamped);
# MindSpore's ops.interpolate(mode="bicubic") gives other values. The correct port applies torch's kernel as two
# fixed interpolation matrices.

def _cubic_matrix(n_in: int, n_out: int, a: float = -0.75) -> np.ndarray:
    m = np.zeros((n_out, n_in), dtype=np.float64)
    scale = n_in / n_out
    for o in range(n_out):
        src = (o + 0.5) * scale - 0.5
        base = math.floor(src)
        t = src - base
        for k in range(-1, 3):
            d = abs(t - k)
            if d <= 1:
                w = (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1
            elif d < 2:
                w = a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a
            else:
                w = 0.0
            m[o, min(max(base + k, 0), n_in - 1)] += w
    return m.astype(np.float32)


def _bicubic_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1)
            self.up = nn.Upsample(size=(9, 9), mode="bicubic", align_corners=False)
            self.conv2 = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return self.conv2(self.up(self.conv1(x)))

    return Net()


def _bicubic_ms(matrices):
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops

    class TorchBicubic(nn.Cell):
        def __init__(self, n_in, size):
            super().__init__()
            self.mh = ms.Tensor(_cubic_matrix(n_in, size[0]))
            self.mw_t = ms.Tensor(_cubic_matrix(n_in, size[1]).T.copy())

        def construct(self, x):
            return ops.matmul(ops.matmul(self.mh, x), self.mw_t)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1, has_bias=True)
            if matrices:
                self.up = TorchBicubic(5, (9, 9))
            else:
                self.up = nn.Upsample(size=(9, 9), mode="bicubic", align_corners=False)
            self.conv2 = nn.Conv2d(3, 2, 1, has_bias=True)

        def construct(self, x):
            return self.conv2(self.up(self.conv1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# MaxPool2d(return_indices=True) feeding MaxUnpool2d (SegNet-style): MindSpore's MaxPool2d refuses return_indices
# unless pad_mode="pad" (its default pad_mode is "valid").

def _unpool_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1)
            self.pool = nn.MaxPool2d(2, 2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2, 2)
            self.conv2 = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            pooled, idx = self.pool(self.conv1(x))
            return self.conv2(self.unpool(pooled, idx))

    return Net()


def _unpool_ms(pad_mode):
    import mindspore.nn as nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(2, 3, 1, has_bias=True)
            if pad_mode is None:
                self.pool = nn.MaxPool2d(2, 2, return_indices=True)
            else:
                self.pool = nn.MaxPool2d(2, 2, pad_mode=pad_mode, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2, 2)
            self.conv2 = nn.Conv2d(3, 2, 1, has_bias=True)

        def construct(self, x):
            pooled, idx = self.pool(self.conv1(x))
            return self.conv2(self.unpool(pooled, idx))

    return Net()


ENTRIES = [
    entry("h5a_softmin_implicit_dim", FAMILY, PROBE + "nn.Softmin() dim=None on 4-D input (torch dim 1) vs "
          "mindspore.nn.Softmin axis=-1", _softmin_torch, lambda: _softmin_ms(None), lambda: _softmin_ms(1),
          ["act"], ["softmin|axis|dim"], inputs={"x": uniform(2, 2, 3, 4)},
          cause_pattern=r"\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\b[^\n]{0,80}(\b1\b|-1\b|\bimplicit\b|\bchannels?\b)"),
    entry("h5a_bce_log_clamp_saturated", FAMILY, PROBE + "torch BCELoss clamps log at -100; mindspore.nn.BCELoss "
          "on saturated sigmoid outputs", _bce_torch, lambda: _bce_ms(False), lambda: _bce_ms(True),
          ["loss"], ["bceloss|clamp|-100|saturated"],
          inputs={"x": uniform(6, 4, low=-40.0, high=40.0), "t": given(_BCE_TARGETS)},
          cause_pattern=r"\b(bceloss|bce|binary_cross_entropy)\b[^\n]{0,160}\b(clamp\w*|clip\w*|saturat\w*)"
                        r"|-100\b|\b(clamp\w*|clip\w*)\b[^\n]{0,80}\blog\b"),
    entry("h5a_upsample_nearest_fractional_scale", FAMILY, PROBE + "nn.Upsample(scale_factor=1.25, mode='nearest') "
          "vs mindspore.nn.Upsample(..., recompute_scale_factor=True)", _nearest_torch,
          lambda: _nearest_ms(True), lambda: _nearest_ms(False), ["up"],
          ["recompute_scale_factor|scale_factor|nearest"], inputs={"x": uniform(1, 2, 7, 7)},
          cause_pattern=r"\brecompute_scale_factor\b|\bscale_factor\b[^\n]{0,120}(\b1\s*/|\breciproc\w*|\bindex\w*"
                        r"|\bindices\b|\boutput size\b|\bsize ratio\b)|\bnearest\b[^\n]{0,120}\b(index\w*|indices|"
                        r"source (rows?|pixels?|coordinates?))\b"),
    entry("h5a_embedding_bag_mean_padding_idx", FAMILY, PROBE + "nn.EmbeddingBag(mode='mean', padding_idx=0) "
          "ported as mindspore.nn.Embedding(padding_idx=0) + mean", _bag_torch, lambda: _bag_ms(False),
          lambda: _bag_ms(True), ["bag"], ["padding_idx|padding|mean"], inputs={"ids": given(_BAG_IDS)},
          weight_map={"bag.weight": "bag.embedding_table"},
          cause_pattern=r"\bpadding_idx\b|\bpad(ding)?\b[^\n]{0,80}\b(count\w*|denominator|exclud\w*|mask\w*|"
                        r"ignor\w*)"),
    entry("h5a_rmsnorm_default_eps_machine_epsilon", FAMILY, PROBE + "torch.nn.RMSNorm eps=None "
          "(torch.finfo(float32).eps) ported with eps=1e-6", _rms_torch, lambda: _rms_ms(1e-6),
          lambda: _rms_ms(_FINFO_EPS), ["norm"], ["eps|epsilon|finfo"],
          inputs={"x": uniform(3, 6, low=-1e-4, high=1e-4)},
          cause_pattern=r"\beps(ilon)?\b[^\n]{0,100}(1\.19\d*e-0?7|\bfinfo\b|\bmachine eps\w*|2\s*\*\*\s*-23)"
                        r"|\bfinfo\b|\beps(ilon)?\s*=\s*None\b"),
    entry("h5a_upsample_bicubic_kernel", FAMILY, PROBE + "nn.Upsample(mode='bicubic', align_corners=False) vs "
          "mindspore.nn.Upsample(mode='bicubic')", _bicubic_torch, lambda: _bicubic_ms(False),
          lambda: _bicubic_ms(True), ["up"], ["bicubic|cubic"], inputs={"x": uniform(1, 2, 5, 5)},
          cause_pattern=r"\bbicubic\b[^\n]{0,160}(-0\.75|-0\.5\b|\bcubic[_ ]?coef\w*|\bA\s*=|\bexclude_outside\b|"
                        r"\bkernel\b|\bboundar\w*)|(-0\.75|\bcubic[_ ]?coef\w*)[^\n]{0,100}\bbicubic\b"),
    entry("h5a_maxpool_return_indices_pad_mode", FAMILY, PROBE + "nn.MaxPool2d(2, 2, return_indices=True) + "
          "MaxUnpool2d; mindspore.nn.MaxPool2d refuses return_indices unless pad_mode='pad'", _unpool_torch,
          lambda: _unpool_ms(None), lambda: _unpool_ms("pad"), ["pool"], ["pad_mode|return_indices"],
          inputs={"x": uniform(2, 2, 4, 6)}, fails_with="error",
          cause_pattern=r"\bpad_mode\b[^\n]{0,60}\bpad\b"),
]
