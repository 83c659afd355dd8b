"""Held-out set 6, half a: functional ops in forward/construct, and one port on which MindSpore raises
(family "h6", names h6a_*). Written blind like heldout6_a.py."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

FAMILY = "h6"
PROBE = "probe (torch 2.13 / MindSpore 2.10, CPU): "

# ---------------------------------------------------------------------------------------------------------------
# Functional ops in forward/construct
# ---------------------------------------------------------------------------------------------------------------

# 5. F.interpolate(..., mode='bilinear', antialias=True) when downsampling: ops.interpolate has no antialias, a
#    port that drops it samples 2 taps instead of the triangle filter widened by the scale.

def _aa_weights(n_in, n_out):
    """torch's antialiased bilinear (triangle filter, support scaled by in/out) as an (n_out, n_in) matrix."""
    scale = n_in / n_out
    support = 1.0 * scale if scale >= 1.0 else 1.0
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    mat = np.zeros((n_out, n_in), dtype=np.float64)
    for i in range(n_out):
        center = scale * (i + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), n_in)
        w = np.array([max(0.0, 1.0 - abs((j + xmin - center + 0.5) * invscale)) for j in range(xmax - xmin)])
        mat[i, xmin:xmax] = w / w.sum()
    return mat.astype(np.float32)


def _aa_torch():
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 2, 1)

        def forward(self, x):
            return F.interpolate(self.conv(x), size=(4, 4), mode="bilinear", align_corners=False, antialias=True)

    return Net()


def _aa_ms(antialias):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 2, 1, has_bias=True)
                self.rows = ms.Tensor(_aa_weights(12, 4))
                self.cols_t = ms.Tensor(_aa_weights(12, 4).T.copy())

            def construct(self, x):
                y = self.conv(x)
                if antialias:
                    return ops.matmul(ops.matmul(self.rows, y), self.cols_t)
                return ops.interpolate(y, size=(4, 4), mode="bilinear", align_corners=False)

        return Net()
    return make


INTERP_AA = entry(
    "h6a_interpolate_antialias_dropped", FAMILY,
    PROBE + "mindspore.ops.interpolate has no antialias argument; torch F.interpolate(antialias=True) downsampling",
    _aa_torch, _aa_ms(False), _aa_ms(True),
    layers=("after:conv",), causes=("antialias|interpolate",),
    inputs={"x": uniform(2, 3, 12, 12)},
    cause_pattern=r"\banti[- ]?alias\w*\b",
)


# 6. F.cosine_similarity clamps each vector norm at eps; ops.cosine_similarity clamps the product of the two norms
#    at eps, so small-norm vectors (here differences of nearly equal frames) get a similarity shrunk towards 0.

def _cos_torch():
    import torch.nn as nn
    import torch.nn.functional as F

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 6, bias=False)
            self.head = nn.Linear(1, 2)

        def forward(self, a, b):
            sim = F.cosine_similarity(self.proj(a), self.proj(b), dim=-1)
            return self.head(sim.unsqueeze(-1))

    return Net()


def _cos_ms(per_norm):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(8, 6, has_bias=False)
                self.head = nn.Dense(1, 2)

            def construct(self, a, b):
                za, zb = self.proj(a), self.proj(b)
                if per_norm:
                    na = ops.clamp(ops.norm(za, dim=-1, keepdim=True), min=1e-8)
                    nb = ops.clamp(ops.norm(zb, dim=-1, keepdim=True), min=1e-8)
                    sim = ops.sum((za / na) * (zb / nb), dim=-1)
                else:
                    sim = ops.cosine_similarity(za, zb, dim=-1)
                return self.head(sim.unsqueeze(-1))

        return Net()
    return make


COSINE_EPS = entry(
    "h6a_cosine_similarity_eps_on_norm_product", FAMILY,
    PROBE + "ops.cosine_similarity divides by clip(norm(x1) * norm(x2), eps); torch clamps each norm at eps",
    _cos_torch, _cos_ms(False), _cos_ms(True),
    layers=("after:proj",), causes=("cosine_similarity|eps|norm",),
    inputs={"a": uniform(4, 8, low=-2e-5, high=2e-5), "b": uniform(4, 8, low=-2e-5, high=2e-5)},
    cause_pattern=r"\bcosine[_ ]similarity\b[^.]*\b(eps|epsilon|1e-0?8|clamp\w*|clip\w*)\b"
                  r"|\b(eps|epsilon|1e-0?8|clamp\w*|clip\w*)\b[^.]*\b(each|separate\w*|product)\b[^.]*\bnorms?\b",
)


# 7. torch.xlogy(p, p) (an entropy term) is 0 where p == 0; ops.xlogy(0, 0) is NaN on CPU.

def _xlogy_torch():
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(5, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            h = torch.relu(self.fc1(x))
            p = h / (h.sum(-1, keepdim=True) + 1e-3)
            entropy = -torch.xlogy(p, p).sum(-1, keepdim=True)
            return torch.cat([self.fc2(h), entropy], dim=-1)

    return Net()


def _xlogy_ms(safe):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(5, 8)
                self.fc2 = nn.Dense(8, 3)

            def construct(self, x):
                h = ops.relu(self.fc1(x))
                p = h / (h.sum(-1, keepdims=True) + 1e-3)
                if safe:
                    plogp = ops.where(p > 0, p * ops.log(ops.where(p > 0, p, ops.ones_like(p))), ops.zeros_like(p))
                else:
                    plogp = ops.xlogy(p, p)
                entropy = -plogp.sum(-1, keepdims=True)
                return ops.cat([self.fc2(h), entropy], axis=-1)

        return Net()
    return make


XLOGY = entry(
    "h6a_xlogy_zero_times_log_zero_nan", FAMILY,
    PROBE + "torch.xlogy(0, 0) == 0, mindspore.ops.xlogy(0, 0) is NaN",
    _xlogy_torch, _xlogy_ms(False), _xlogy_ms(True),
    layers=("after:fc1",), causes=("xlogy|nan|zero",),
    inputs={"x": uniform(6, 5, low=-2.0, high=2.0)},
    fails_with="nonfinite",
    cause_pattern=r"\bxlogy\b.{0,80}?(\bnan\b|\(\s*0\s*,\s*0\s*\)|\bzero\w*|\bwhere\b)"
                  r"|(\bnan\b|\bzero\w*).{0,80}?\bxlogy\b",
)


# 8. torch.logsumexp over a row that is entirely -inf (an empty, fully masked bag) returns -inf, which the model
#    replaces by 0; ops.logsumexp returns NaN there, which is not -inf and survives the replacement.

def _lse_torch():
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(4, 1)
            self.head = nn.Linear(1, 2)

        def forward(self, x, mask):
            s = self.score(x).squeeze(-1).masked_fill(~mask, float("-inf"))
            pooled = torch.logsumexp(s, dim=1, keepdim=True)
            return self.head(pooled.masked_fill(pooled == float("-inf"), 0.0))

    return Net()


def _lse_ms(safe):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.score = nn.Dense(4, 1)
                self.head = nn.Dense(1, 2)

            def construct(self, x, mask):
                s = self.score(x).squeeze(-1).masked_fill(ops.logical_not(mask), float("-inf"))
                if safe:
                    m = s.max(axis=1, keepdims=True)
                    m = ops.where(ops.isinf(m), ops.zeros_like(m), m)
                    lse = m + ops.log(ops.exp(s - m).sum(axis=1, keepdims=True))
                else:
                    lse = ops.logsumexp(s, 1, True)
                return self.head(lse.masked_fill(lse == float("-inf"), 0.0))

        return Net()
    return make


_LSE_MASK = np.array([[True, True, False, True, False],
                      [False, False, False, False, False],
                      [True, False, True, True, True]], dtype=bool)

LSE_EMPTY = entry(
    "h6a_logsumexp_fully_masked_row_nan", FAMILY,
    PROBE + "torch.logsumexp of an all -inf row is -inf, mindspore.ops.logsumexp gives NaN",
    _lse_torch, _lse_ms(False), _lse_ms(True),
    layers=("after:score",), causes=("logsumexp|-inf|nan|masked",),
    inputs={"x": uniform(3, 5, 4), "mask": given(_LSE_MASK)},
    fails_with="nonfinite",
    cause_pattern=r"\blogsumexp\b[^.]*(-inf|\binf\w*|\bnan\b|\bmask\w*|\bempty\b|\ball\b)"
                  r"|(-inf|\binf\w*|\bnan\b|\bmask\w*)[^.]*\blogsumexp\b",
)


# ---------------------------------------------------------------------------------------------------------------
# Error: MindSpore raises
# ---------------------------------------------------------------------------------------------------------------

# 10. `x.size(0)` kept from torch: a MindSpore Tensor's `size` is a property (the element count), calling it raises.

def _size_torch():
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)
            self.fc2 = nn.Linear(15, 2)

        def forward(self, x):
            h = self.fc1(x)
            return self.fc2(h.reshape(h.size(0), -1))

    return Net()


def _size_ms(shape):
    def make():
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(4, 3)
                self.fc2 = nn.Dense(15, 2)

            def construct(self, x):
                h = self.fc1(x)
                if shape:
                    return self.fc2(h.reshape(h.shape[0], -1))
                return self.fc2(h.reshape(h.size(0), -1))

        return Net()
    return make


SIZE_CALL = entry(
    "h6a_tensor_size_called_like_torch_raises", FAMILY,
    PROBE + "mindspore.Tensor.size is a property (number of elements); torch's x.size(0) raises TypeError",
    _size_torch, _size_ms(False), _size_ms(True),
    layers=("after:fc1",), causes=("size|shape",),
    inputs={"x": uniform(2, 5, 4)},
    fails_with="error",
    cause_pattern=r"\.shape\[0\]|\bshape\b[^.]*\binstead of\b[^.]*\bsize\b"
                  r"|\bsize\b[^.\n]*\b(attribute|property|not callable|number of elements)\b",
)


ENTRIES = [INTERP_AA, COSINE_EPS, XLOGY, LSE_EMPTY, SIZE_CALL]
