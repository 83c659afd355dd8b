"""Held-out set 12, half b: single-API entries (family "h12"): functional ops, gradients at kinks, an op
with no CPU kernel. The model blocks (family "h12-port") are in heldout12_b_gen/_vision/_graph.py.

Written blind (without reading the localization code). Each entry: a torch original, a naive MindSpore port with
ONE porting mistake, and the correct port.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

PROBE = "probe:torch 2.13 / MindSpore 2.10 CPU, "


def _t():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as mops
    return ms, mnn, mops


# ---------------------------------------------------------------------------------------------------------------
# single-API: functional ops, gradients at kinks, an op with no CPU kernel
# ---------------------------------------------------------------------------------------------------------------

def normalize_torch():
    torch, tnn, F = _t()

    class Head(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 6, bias=False)
            self.fc2 = tnn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(F.normalize(self.fc1(x), dim=1))

    return Head()


def _normalize_ms(epsilon):
    ms, mnn, mops = _m()

    class Head(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(4, 6, has_bias=False)
            self.fc2 = mnn.Dense(6, 3)
            self.l2norm = mops.L2Normalize(axis=1) if epsilon is None else mops.L2Normalize(axis=1, epsilon=epsilon)

        def construct(self, x):
            return self.fc2(self.l2norm(self.fc1(x)))

    return Head()


def rrelu_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 6)
            self.fc2 = tnn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(F.rrelu(self.fc1(x), lower=0.1, upper=0.3, training=self.training))

    return Net()


def _rrelu_ms(eval_aware):
    ms, mnn, mops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(4, 6)
            self.fc2 = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            if eval_aware and not self.training:
                h = mops.leaky_relu(h, (0.1 + 0.3) / 2)
            else:
                h = mops.rrelu(h, 0.1, 0.3)
            return self.fc2(h)

    return Net()


def _kink_torch(act):
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.act = act(tnn)
            self.fc = tnn.Linear(4, 3)

        def forward(self, x):
            return self.fc(self.act(x))

    return Net()


def _kink_ms(act):
    ms, mnn, mops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.act = act(ms, mnn, mops)
            self.fc = mnn.Dense(4, 3)

        def construct(self, x):
            return self.fc(self.act(x))

    return Net()


def _where_leaky(ms, mnn, mops):
    class LeakyReLU(mnn.Cell):
        def construct(self, x):
            return mops.where(x > 0, x, x * 0.2)

    return LeakyReLU()


def _where_relu6(ms, mnn, mops):
    class ReLU6(mnn.Cell):
        def construct(self, x):
            return mops.where(x >= 6.0, mops.full_like(x, 6.0), mops.relu(x))

    return ReLU6()


LEAKY_X = np.array([[0.0, 0.5, -0.3, 0.0], [0.0, -1.0, 0.0, 0.2], [0.7, 0.0, -0.4, 0.0]], dtype=np.float32)
RELU6_X = np.array([[6.0, 2.5, -0.3, 6.0], [0.0, 6.0, 7.5, 1.2], [6.0, 3.0, 6.0, -2.0]], dtype=np.float32)


def einsum_attn_torch():
    torch, tnn, F = _t()

    class Attn(tnn.Module):
        def __init__(self, d=4):
            super().__init__()
            self.q = tnn.Linear(d, d)
            self.k = tnn.Linear(d, d)
            self.v = tnn.Linear(d, d)
            self.out = tnn.Linear(d, d)

        def forward(self, x):
            q, k, v = self.q(x), self.k(x), self.v(x)
            scores = torch.einsum("bid,bjd->bij", q, k) * (q.shape[-1] ** -0.5)
            attn = scores.softmax(dim=-1)
            return self.out(torch.einsum("bij,bjd->bid", attn, v))

    return Attn()


def _einsum_attn_ms(use_matmul):
    ms, mnn, mops = _m()

    class Attn(mnn.Cell):
        def __init__(self, d=4):
            super().__init__()
            self.q = mnn.Dense(d, d)
            self.k = mnn.Dense(d, d)
            self.v = mnn.Dense(d, d)
            self.out = mnn.Dense(d, d)

        def construct(self, x):
            q, k, v = self.q(x), self.k(x), self.v(x)
            if use_matmul:
                scores = mops.bmm(q, k.transpose(0, 2, 1)) * (q.shape[-1] ** -0.5)
                attn = mops.softmax(scores, axis=-1)
                return self.out(mops.bmm(attn, v))
            scores = mops.einsum("bid,bjd->bij", q, k) * (q.shape[-1] ** -0.5)
            attn = mops.softmax(scores, axis=-1)
            return self.out(mops.einsum("bij,bjd->bid", attn, v))

    return Attn()

ENTRIES = [
    entry("h12b_normalize_small_norm_l2normalize_epsilon", "h12",
          PROBE + "F.normalize vs ops.L2Normalize on small-norm rows",
          normalize_torch, lambda: _normalize_ms(None), lambda: _normalize_ms(1e-24),
          ("after:fc1",), ("l2normalize|epsilon",),
          inputs={"x": uniform(3, 4, low=-0.001, high=0.001)},
          cause_pattern=(r"\bepsilon\b[^.]*\b(1e-0?12|1e-0?24|1e-0?4|0\.0001)\b|"
                         r"\beps\b[^.]*\b(1e-0?12|1e-0?4|0\.0001)\b")),
    entry("h12b_functional_rrelu_random_in_eval", "h12",
          PROBE + "F.rrelu(training=False) vs ops.rrelu",
          rrelu_torch, lambda: _rrelu_ms(False), lambda: _rrelu_ms(True),
          ("after:fc1",), ("rrelu|training|leaky_relu",),
          inputs={"x": uniform(3, 4)},
          cause_pattern=(r"\bleaky_relu\b[^.]*\b0\.2\b|\(\s*lower\s*\+\s*upper\s*\)\s*/\s*2|"
                         r"\b(mean|average|midpoint)\b[^.]*\b(lower|upper)\b|"
                         r"\brrelu\b[^.]*\b(eval\w*|training|random\w*)\b|"
                         r"\b(eval\w*|training|random\w*)\b[^.]*\brrelu\b")),
    entry("h12b_leaky_relu_gradient_at_zero", "h12",
          PROBE + "LeakyReLU backward at x == 0",
          lambda: _kink_torch(lambda tnn: tnn.LeakyReLU(0.2)),
          lambda: _kink_ms(lambda ms, mnn, mops: mnn.LeakyReLU(0.2)),
          lambda: _kink_ms(_where_leaky),
          ("act",), ("leakyrelu|gradient|zero",),
          inputs={"x": given(LEAKY_X)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=(r"(leaky\w*|alpha|slope|negative_slope)\b[^.]*\b(at|of|for)\s+(exactly\s+)?(zero|0(\.0)?)\b|"
                         r"\b(at|of|for)\s+(exactly\s+)?(zero|0(\.0)?)\b[^.]*(leaky\w*|alpha|slope)|"
                         r"\bops\.where\b|\b0\.6\b")),
    entry("h12b_relu6_gradient_at_six", "h12",
          PROBE + "ReLU6 backward at x == 6",
          lambda: _kink_torch(lambda tnn: tnn.ReLU6()),
          lambda: _kink_ms(lambda ms, mnn, mops: mnn.ReLU6()),
          lambda: _kink_ms(_where_relu6),
          ("act",), ("relu6|gradient|six",),
          inputs={"x": given(RELU6_X)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=(r"\b(at|of|for|equal\w* to)\s+(exactly\s+)?(six|6(\.0)?)\b|\bx\s*(==|>=)\s*6\b|\bops\.where\b|"
                         r"\bupper\s+(bound|limit|cap|clip\w*)\b")),
    entry("h12b_attention_einsum_no_cpu_kernel_raises", "h12",
          PROBE + "ops.einsum kernel on CPU",
          einsum_attn_torch, lambda: _einsum_attn_ms(False), lambda: _einsum_attn_ms(True),
          ("after:q",), ("einsum|bmm|matmul",),
          inputs={"x": uniform(2, 3, 4)}, fails_with="error",
          cause_pattern=(r"\beinsum\b[^.]*\b(matmul|bmm|batchmatmul)\b|\b(matmul|bmm|batchmatmul)\b[^.]*\beinsum\b|"
                         r"\beinsum\b[^.]*\b(cpu|kernel|supported)\b")),
]
