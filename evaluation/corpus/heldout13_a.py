"""Held-out set 13, half a (families h13 / h13-port): single-difference ports found on MindSpore's pytorch_diff pages
and by probing the installed torch and MindSpore on CPU. Written without reading migcheck's localization code."""
from __future__ import annotations

import numpy as np

from migcheck import FrameworkPair, given, uniform

from evaluation.corpus.build import entry

PROBE = "probe:"
ENTRIES: list = []

_BOUNDS = [0.0, 0.5, 1.0]


# ---------------------------------------------------------------- bucket index of activations -> learned table row
def _t_bucket():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.ReLU()
            self.table = torch.nn.Parameter(torch.zeros(4, 3))

        def forward(self, x):
            idx = torch.bucketize(self.act(x), torch.tensor(_BOUNDS))
            return self.table[idx]

    return Net()


def _m_bucket(correct: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()
                self.table = ms.Parameter(ms.Tensor(np.zeros((4, 3), np.float32)), name="table")
                self.bucket = ops.Bucketize(boundaries=_BOUNDS)

            def construct(self, x):
                h = self.act(x)
                idx = ops.bucketize(h, _BOUNDS, right=False) if correct else self.bucket(h)
                return ops.gather(self.table, idx, 0)

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_bucketize_as_ops_bucketize_primitive", "h13",
    "bucketize", _t_bucket, _m_bucket(False), _m_bucket(True), ("after:act",), ("right|Bucketize primitive|boundary",),
    inputs={"x": given([[-1.0, 0.5, 1.0, 0.2], [0.7, -0.3, 1.5, 0.0], [0.5, 0.25, 1.0, 2.0]], dtype="float32")},
    cause_pattern=r"\bright\s*=\s*False\b|\bright\b[^.]*\b(False|True)\b|\bops\.bucketize\b"
                  r"|\bBucketize\b[^.]*\b(boundar\w*|right|left|tie\w*|equal)\b|\bboundar\w*\b[^.]*\b(right|left)\b"))


# ---------------------------------------------------------------- siamese distance where some pairs coincide
def _t_pdist():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, a, b):
            return torch.nn.functional.pairwise_distance(self.fc(a), self.fc(b))

    return Net()


def _m_pdist(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)

            def construct(self, a, b):
                d = self.fc(a) - self.fc(b)
                if correct:
                    d = d + 1e-6
                return ops.norm(d, dim=-1)

        return Net()
    return make


_PAIR_A = [[0.1, -0.4, 0.3, 0.8], [0.5, 0.2, -0.6, 0.1], [-0.3, 0.9, 0.4, -0.2], [0.7, -0.1, 0.2, 0.3]]
_PAIR_B = [[0.1, -0.4, 0.3, 0.8], [-0.2, 0.6, 0.1, -0.5], [-0.3, 0.9, 0.4, -0.2], [0.1, 0.4, -0.8, 0.6]]

ENTRIES.append(entry(
    "h13a_pairwise_distance_as_ops_norm_identical_pairs_gradient", "h13",
    PROBE + "torch.nn.functional.pairwise_distance (eps=1e-6 added to the difference) vs mindspore.ops.norm",
    _t_pdist, _m_pdist(False), _m_pdist(True), ("after:fc",), ("eps|pairwise_distance|norm gradient at zero",),
    inputs={"a": given(_PAIR_A, dtype="float32"), "b": given(_PAIR_B, dtype="float32")},
    checks=("forward", "backward"), fails_with="nonfinite",
    cause_pattern=r"\bpairwise_distance\b|\beps\b[^.]*\b1e-0?6\b|\b1e-0?6\b[^.]*\beps\b"
                  r"|\b(1e-0?6|eps\w*)\b[^.]*\b(difference|x1\s*-\s*x2)\b"))


# ---------------------------------------------------------------- conv whose borders replicate the edge sample
def _t_conv_rep():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv1d(2, 3, 3, padding=1, padding_mode="replicate")
            self.fc = torch.nn.Linear(6, 2)

        def forward(self, x):
            return self.fc(torch.tanh(self.conv(x)))

    return Net()


def _m_conv_rep(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                if correct:
                    self.conv = nn.Conv1d(2, 3, 3, pad_mode="valid", has_bias=True)
                else:
                    self.conv = nn.Conv1d(2, 3, 3, pad_mode="pad", padding=1, has_bias=True)
                self.fc = nn.Dense(6, 2)

            def construct(self, x):
                if correct:
                    x = ops.pad(x, (1, 1), mode="replicate")
                return self.fc(ops.tanh(self.conv(x)))

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_conv1d_padding_mode_replicate_as_pad_mode_pad", "h13",
    "Conv1d", _t_conv_rep, _m_conv_rep(False), _m_conv_rep(True), ("conv",), ("padding_mode replicate|edge padding",),
    inputs={"x": uniform(2, 2, 6, low=0.5, high=2.0)},
    cause_pattern=r"\breplicat\w*\b[^.]*\bpad\w*\b|\bpad\w*\b[^.]*\breplicat\w*\b"
                  r"|\bmode\s*=\s*['\"](replicate|edge)['\"]"))


# ---------------------------------------------------------------- cyclic learning rate on plain SGD
def _t_mlp():
    import torch

    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))


def _m_mlp():
    import mindspore.nn as nn

    return nn.SequentialCell([nn.Dense(4, 3), nn.Tanh(), nn.Dense(3, 2)])


def _cyclic_rates(n: int = 8):
    # triangular CyclicLR(base_lr=0.01, max_lr=0.1, step_size_up=2000): the rate each step uses
    return [0.01 + 0.09 * t / 2000.0 for t in range(n)]


def _t_sgd(params):
    import torch

    return torch.optim.SGD(params, lr=0.01)


def _m_sgd(momentum: float):
    def make(params):
        import mindspore.nn as nn

        return nn.SGD(params, learning_rate=_cyclic_rates(), momentum=momentum)
    return make


ENTRIES.append(entry(
    "h13a_cycliclr_default_cycle_momentum_dropped", "h13",
    PROBE + "torch.optim.lr_scheduler.CyclicLR defaults (cycle_momentum=True, max_momentum=0.9) on SGD vs a rate list",
    _t_mlp, _m_mlp, _m_mlp, ("optimizer",), ("cycle_momentum|momentum 0.9",),
    inputs={"x": uniform(3, 4)}, checks=("step",), steps=3,
    optimizer=None,
    cause_pattern=r"\bcycle_momentum\b|\b(max_|base_)?momentum\b[^.]*\b0\.(9|8\d*)\b"))

import dataclasses as _dc  # noqa: E402

for _i, _e in enumerate(ENTRIES):
    if _e.name == "h13a_cycliclr_default_cycle_momentum_dropped":
        _sched = (lambda opt: __import__("torch").optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1))
        ENTRIES[_i] = _dc.replace(
            _e, naive=_dc.replace(_e.naive, optimizer=FrameworkPair(_t_sgd, _m_sgd(0.0)), lr_schedule=_sched),
            correct=_dc.replace(_e.correct, optimizer=FrameworkPair(_t_sgd, _m_sgd(0.9)), lr_schedule=_sched))
    if _e.name == "h13a_pairwise_distance_as_ops_norm_identical_pairs_gradient":
        ENTRIES[_i] = _dc.replace(_e, naive=_dc.replace(_e.naive, fails_on=("backward",)))


# ---------------------------------------------------------------- two-class margin loss on a linear scorer
def _t_softmargin():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)
            self.loss = torch.nn.SoftMarginLoss()

        def forward(self, x, y):
            return self.loss(self.fc(x), y)

    return Net()


def _m_softmargin(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)
                self.loss = nn.SoftMarginLoss()

            def construct(self, x, y):
                z = self.fc(x)
                if correct:
                    return ops.mean(ops.log1p(ops.exp(-y * z)))
                return self.loss(z, y)

        return Net()
    return make


_SIGNS = [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, -1.0]]

ENTRIES.append(entry(
    "h13a_soft_margin_loss_no_cpu_kernel_raises", "h13",
    PROBE + "mindspore.nn.SoftMarginLoss on CPU (kernel SoftMarginLoss unregistered)",
    _t_softmargin, _m_softmargin(False), _m_softmargin(True), ("loss",), ("SoftMarginLoss|kernel|CPU",),
    inputs={"x": uniform(4, 4), "y": given(_SIGNS, dtype="float32")}, fails_with="error",
    cause_pattern=r"\bSoftMarginLoss\b[^.]*\b(kernel|CPU|unregistered|support\w*)\b"
                  r"|\b(kernel|CPU|unregistered)\b[^.]*\bSoftMarginLoss\b|\blog1p\b[^.]*\bexp\b|\bsoftplus\b"))


# ---------------------------------------------------------------- positions from the legacy inclusive range
def _t_range():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 5)

        def forward(self, x):
            h = self.fc(x)
            pos = torch.range(0, h.shape[-1] - 1) / h.shape[-1]
            return torch.cat([h, pos.unsqueeze(0).expand(h.shape[0], -1)], dim=-1)

    return Net()


def _m_range(correct: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 5)

            def construct(self, x):
                h = self.fc(x)
                n = h.shape[-1]
                pos = (ops.range(0, n, 1) if correct else ops.range(0, n - 1, 1)).astype(ms.float32) / n
                return ops.cat([h, ops.broadcast_to(pos.reshape(1, -1), (h.shape[0], -1))], axis=-1)

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_torch_range_inclusive_end_as_ops_range", "h13",
    "range", _t_range, _m_range(False), _m_range(True), ("after:fc",), ("range inclusive end|arange",),
    inputs={"x": uniform(2, 3)}, fails_with="shape",
    cause_pattern=r"\b(torch\.)?range\b[^.]*\b(inclusive|includes?|exclusive|excludes?|end)\b"
                  r"|\b(inclusive|exclusive)\b[^.]*\brange\b|\bops\.range\(\s*0\s*,\s*n\b|\barange\b"))


# ---------------------------------------------------------------- gaussianizing a squashed feature (probit-style)
def _t_erfinv():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.clip = torch.nn.Hardtanh(-0.9995, 0.9995)
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            z = 1.4142135 * torch.erfinv(self.clip(x))
            return self.fc(z)

    return Net()


def _m_erfinv(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.clip = nn.Hardtanh(-0.9995, 0.9995)
                self.fc = nn.Dense(4, 2)

            def construct(self, x):
                u = self.clip(x)
                y = ops.erfinv(u)
                if correct:  # Newton steps on erf(y) = u restore float32 accuracy near |u| -> 1
                    for _ in range(3):
                        y = y - (ops.erf(y) - u) / (1.1283791670955126 * ops.exp(-y * y))
                return self.fc(1.4142135 * y)

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_erfinv_near_unit_argument_inaccurate", "h13",
    PROBE + "mindspore.ops.erfinv against torch.erfinv for arguments near +-1 (float32 and float64 kernels)",
    _t_erfinv, _m_erfinv(False), _m_erfinv(True), ("after:clip",), ("erfinv accuracy near 1",),
    inputs={"x": uniform(3, 4, low=0.97, high=0.9992)},
    cause_pattern=r"\berfinv\b[^.]*\b(accura\w*|precision|inaccura\w*|tails?|near|close to|newton|refine\w*"
                  r"|approximat\w*)\b"
                  r"|\b(accura\w*|precision|inaccura\w*|newton|refine\w*)\b[^.]*\berfinv\b"))


# ---------------------------------------------------------------- Mish on unnormalized inputs
def _t_mish():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(3, 4)
            self.act = torch.nn.Mish()
            self.fc2 = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _m_mish(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class SoftplusMish(nn.Cell):
            def construct(self, x):
                return x * ops.tanh(ops.softplus(x))

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(3, 4)
                self.act = SoftplusMish() if correct else nn.Mish()
                self.fc2 = nn.Dense(4, 2)

            def construct(self, x):
                return self.fc2(self.act(self.fc1(x)))

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_mish_large_activations_cpu_kernel", "h13",
    PROBE + "mindspore.nn.Mish on CPU for inputs above ~44 against torch.nn.Mish",
    _t_mish, _m_mish(False), _m_mish(True), ("act",), ("Mish overflow large inputs",),
    inputs={"x": uniform(3, 3, low=60.0, high=120.0)}, fails_with="nonfinite",
    cause_pattern=r"\bMish\b[^.]*\b(overflow\w*|NaN|large|inf\w*|softplus|threshold|exp)\b"
                  r"|\b(overflow\w*|NaN)\b[^.]*\bMish\b|\btanh\s*\(\s*(ops\.)?softplus\b"))


# ---------------------------------------------------------------- positive scale through Softplus, used in log space
def _t_softplus():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.Softplus()
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(torch.log(self.act(x)))

    return Net()


def _m_softplus(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Softplus(nn.Cell):
            def construct(self, x):
                if correct:  # log1p(e) by its series where exp(x) is tiny
                    e = ops.exp(x)
                    tail = e - e * e / 2 + e * e * e / 3 - e * e * e * e / 4
                    return ops.where(x < -5.0, tail, ops.softplus(x))
                return ops.softplus(x)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = Softplus()
                self.fc = nn.Dense(4, 2)

            def construct(self, x):
                return self.fc(ops.log(self.act(x)))

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_softplus_negative_tail_precision", "h13",
    PROBE + "mindspore.ops.softplus (log(1 + exp(x)) on CPU) against torch.nn.Softplus for x in [-16, -7]",
    _t_softplus, _m_softplus(False), _m_softplus(True), ("act",), ("softplus tail precision log1p",),
    inputs={"x": uniform(3, 4, low=-16.0, high=-7.0)},
    cause_pattern=r"\bsoftplus\b[^.]*\b(precision|accura\w*|inaccura\w*|underflow\w*|tail|log1p|cancell\w*|negative)\b"
                  r"|\b(precision|accura\w*|underflow\w*|log1p)\b[^.]*\bsoftplus\b"))


# ---------------------------------------------------------------- probit log-likelihood of a bounded score
def _t_logndtr():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.clip = torch.nn.Hardtanh(-30.0, 30.0)

        def forward(self, x):
            return torch.special.log_ndtr(self.clip(x))

    return Net()


def _m_logndtr(correct: bool):
    def make():
        import math

        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.clip = nn.Hardtanh(-30.0, 30.0)

            def construct(self, x):
                z = self.clip(x)
                direct = ops.log(0.5 * ops.erfc(-z / math.sqrt(2.0)))
                if not correct:
                    return direct
                t = ops.clamp(z, max=-8.0)  # asymptotic series of log(ndtr) in the lower tail
                r = 1.0 / (t * t)
                series = 1.0 - r + 3.0 * r * r - 15.0 * r * r * r + 105.0 * r * r * r * r
                tail = -0.5 * t * t - ops.log(-t) - 0.5 * math.log(2.0 * math.pi) + ops.log(series)
                return ops.where(z < -8.0, tail, direct)

        return Net()
    return make


_PROBIT = [[-2.0, -5.5, -9.0, -16.0], [-20.0, -3.2, -11.0, -12.5], [-7.5, -25.0, -1.0, -10.2]]

ENTRIES.append(entry(
    "h13a_log_ndtr_as_log_of_erfc_lower_tail", "h13",
    PROBE + "torch.special.log_ndtr (no MindSpore counterpart) against log(0.5 * mindspore.ops.erfc(-x / sqrt(2)))",
    _t_logndtr, _m_logndtr(False), _m_logndtr(True), ("after:clip",), ("log_ndtr underflow lower tail",),
    inputs={"x": given(_PROBIT, dtype="float32")}, fails_with="nonfinite",
    cause_pattern=r"\blog_ndtr\b|\b(ndtr|erfc)\b[^.]*\b(underflow\w*|denormal\w*|subnormal\w*|tail|asymptotic)\b"
                  r"|\b(underflow\w*|asymptotic)\b[^.]*\b(ndtr|erfc)\b"))


# ---------------------------------------------------------------- robust (interquartile) scaling of features
_QS = (0.25, 0.75)


def _t_quantile():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 6)

        def forward(self, x):
            h = self.fc(x)
            lo, hi = torch.quantile(h, torch.tensor(_QS), dim=-1, keepdim=True)
            return (h - lo) / (hi - lo + 0.1)

    return Net()


def _m_quantile(correct: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        def linear_quantile(h, q):  # torch.quantile's default 'linear' interpolation over the sorted last axis
            s = ops.sort(h, axis=-1)[0]
            pos = q * (h.shape[-1] - 1)
            i = int(pos)
            j = min(i + 1, h.shape[-1] - 1)
            return s[..., i:i + 1] + (pos - i) * (s[..., j:j + 1] - s[..., i:i + 1])

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 6)

            def construct(self, x):
                h = self.fc(x)
                if correct:
                    lo, hi = linear_quantile(h, _QS[0]), linear_quantile(h, _QS[1])
                else:
                    lo, hi = ops.quantile(h, ms.Tensor(list(_QS), ms.float32), axis=-1, keepdims=True)
                return (h - lo) / (hi - lo + 0.1)

        return Net()
    return make


ENTRIES.append(entry(
    "h13a_quantile_as_ops_quantile_no_cpu_kernel_raises", "h13",
    PROBE + "mindspore.ops.quantile on CPU (Unsupported op [Quantile]) against torch.quantile",
    _t_quantile, _m_quantile(False), _m_quantile(True), ("after:fc",), ("Quantile kernel CPU|sort interpolation",),
    inputs={"x": uniform(4, 3)}, fails_with="error",
    cause_pattern=r"\bquantile\b[^.]*\b(kernel|CPU|unsupported|not supported|sort\w*)\b"
                  r"|\b(kernel|CPU|unsupported)\b[^.]*\bquantile\b|\bsort\w*\b[^.]*\binterpolat\w*\b"))
