"""Held-out set 18, half a: tensor manipulation and numerics inside forward/construct (blind; see README)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

H = "h18"
P = "h18-port"
NAN = float("nan")

_RNG = np.random.default_rng(1808)
_X = np.round(_RNG.uniform(-3.0, 3.0, size=(6, 5)), 3).astype("float32")
_OBS = np.ones((6, 5), dtype=bool)
_OBS[0, 1] = _OBS[2, 4] = _OBS[3, 0] = _OBS[3, 2] = _OBS[5, 3] = False


def _inputs():
    return [given(_X), given(_OBS)]


def _torch():
    import torch
    return torch


def _ms():
    import mindspore
    return mindspore


# ---- 1. nn.ReLU layer on NaN-marked missing readings ------------------------------------------------
def _t_relu():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.ReLU()
            self.fc = torch.nn.Linear(10, 3)

        def forward(self, x, obs):
            x = torch.where(obs, x, torch.full_like(x, NAN))
            h = self.act(x)
            miss = torch.isnan(h)
            h = torch.nan_to_num(h, nan=0.0)
            return self.fc(torch.cat([h, miss.float()], dim=-1))
    return Net()


def _m_relu(correct):
    ms = _ms()
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()
            self.fc = nn.Dense(10, 3)

        def construct(self, x, obs):
            x = ops.where(obs, x, ops.full_like(x, NAN))
            h = self.act(x)
            if correct:
                h = ops.where(ops.isnan(x), x, h)
            miss = ops.isnan(h)
            h = ops.nan_to_num(h, nan=0.0)
            return self.fc(ops.cat([h, miss.astype(ms.float32)], axis=-1))
    return Net()


# ---- 2. nn.Hardtanh layer on NaN-marked missing readings --------------------------------------------
def _t_hardtanh():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.clip = torch.nn.Hardtanh(-2.0, 2.0)
            self.fc = torch.nn.Linear(5, 2)

        def forward(self, x, obs):
            x = x.masked_fill(~obs, NAN)
            h = self.clip(x)
            h = torch.nan_to_num(h, nan=4.0)  # out-of-range code for "missing"
            return self.fc(h)
    return Net()


def _m_hardtanh(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.clip = nn.Hardtanh(-2.0, 2.0)
            self.fc = nn.Dense(5, 2)

        def construct(self, x, obs):
            x = ops.masked_fill(x, ops.logical_not(obs), NAN)
            h = self.clip(x)
            if correct:
                h = ops.where(ops.isnan(x), x, h)
            h = ops.nan_to_num(h, nan=4.0)
            return self.fc(h)
    return Net()


# ---- 3. torch.clamp after an encoder, NaN marks missing features ------------------------------------
def _t_clamp():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x, obs):
            h = self.enc(x).masked_fill(~obs, NAN)
            h = torch.clamp(h, -0.5, 0.5)
            h = torch.nan_to_num(h, nan=-1.0)
            return self.head(h)
    return Net()


def _m_clamp(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(5, 5)
            self.head = nn.Dense(5, 2)

        def construct(self, x, obs):
            h = ops.masked_fill(self.enc(x), ops.logical_not(obs), NAN)
            c = ops.clamp(h, -0.5, 0.5)
            if correct:
                c = ops.where(ops.isnan(h), h, c)
            c = ops.nan_to_num(c, nan=-1.0)
            return self.head(c)
    return Net()


# ---- 5. torch.amax over features, a NaN slot marks the row as missing -------------------------------
def _t_amax():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(5, 4)
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x, obs):
            h = self.enc(x)
            h = torch.where(obs[:, :4], h, torch.full_like(h, NAN))
            peak = torch.amax(h, dim=-1, keepdim=True)
            peak = torch.nan_to_num(peak, nan=-3.0)
            return self.head(torch.cat([torch.nan_to_num(h, nan=0.0), peak], dim=-1))
    return Net()


def _m_amax(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(5, 4)
            self.head = nn.Dense(5, 2)

        def construct(self, x, obs):
            h = self.enc(x)
            h = ops.where(obs[:, :4], h, ops.full_like(h, NAN))
            peak = ops.amax(h, -1, True)
            if correct:
                peak = ops.where(ops.isnan(h).any(-1, keep_dims=True), ops.full_like(peak, NAN), peak)
            peak = ops.nan_to_num(peak, nan=-3.0)
            return self.head(ops.cat([ops.nan_to_num(h, nan=0.0), peak], axis=-1))
    return Net()


# ---- 6. torch.minimum of two branches, NaN second operand -------------------------------------------
def _t_minimum():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(5, 5)
            self.b = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x, obs):
            bb = self.b(x).masked_fill(~obs, NAN)
            m = torch.minimum(bb, self.a(x))
            return self.head(torch.nan_to_num(m, nan=-2.0))
    return Net()


def _m_minimum(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(5, 5)
            self.b = nn.Dense(5, 5)
            self.head = nn.Dense(5, 2)

        def construct(self, x, obs):
            bb = ops.masked_fill(self.b(x), ops.logical_not(obs), NAN)
            m = ops.minimum(bb, self.a(x))
            if correct:
                m = ops.where(ops.isnan(bb), bb, m)
            return self.head(ops.nan_to_num(m, nan=-2.0))
    return Net()


# ---- 7. nn.PairwiseDistance (gradient at coincident embeddings) -------------------------------------
_PX = np.round(_RNG.uniform(-1.0, 1.0, size=(4, 4)), 3).astype("float32")
_PY = _PX.copy()
_PY[1] += np.array([0.5, -0.25, 0.125, 0.0], dtype="float32")
_PY[3] -= 0.3


def _t_pdist():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 4)
            self.dist = torch.nn.PairwiseDistance()

        def forward(self, x, y):
            return self.dist(self.proj(x), self.proj(y))
    return Net()


def _m_pdist(correct):
    from mindspore import nn, ops

    class Dist(nn.Cell):
        def construct(self, a, b):
            d = a - b
            if correct:
                d = d + 1e-6
            return ops.norm(d, dim=-1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = nn.Dense(4, 4)
            self.dist = Dist()

        def construct(self, x, y):
            return self.dist(self.proj(x), self.proj(y))
    return Net()


# ---- 8. nn.CosineSimilarity layer ported by name -------------------------------------------------------
def _t_cos():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.q = torch.nn.Linear(6, 4)
            self.k = torch.nn.Linear(6, 4)
            self.sim = torch.nn.CosineSimilarity(dim=1)

        def forward(self, x):
            return self.sim(self.q(x), self.k(x))
    return Net()


def _m_cos(correct):
    from mindspore import nn, ops

    class Sim(nn.Cell):
        def construct(self, a, b):
            return ops.cosine_similarity(a, b, dim=1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q = nn.Dense(6, 4)
            self.k = nn.Dense(6, 4)
            self.sim = Sim() if correct else nn.CosineSimilarity()

        def construct(self, x):
            return self.sim(self.q(x), self.k(x))
    return Net()


def _nanrx(op):
    return rf"\b{op}\b[^.]*\bnan\b|\bnan\b[^.]*\b{op}\b"


ENTRIES = [
    entry("h18a_missing_reading_relu_layer_nan_mapped_to_zero", H, "probe:relu(nan) torch nan vs ms 0",
          _t_relu, lambda: _m_relu(False), lambda: _m_relu(True), ("act",),
          ("relu|nan propagation",), inputs=_inputs(), cause_pattern=_nanrx("relu")),
    entry("h18a_missing_reading_hardtanh_layer_nan_clipped", H, "probe:hardtanh(nan) torch nan vs ms min_val",
          _t_hardtanh, lambda: _m_hardtanh(False), lambda: _m_hardtanh(True), ("clip",),
          ("hardtanh|nan propagation",), inputs=_inputs(), cause_pattern=_nanrx("hardtanh")),
    entry("h18a_functional_clamp_nan_missing_features_clamped", H, "probe:clamp(nan) torch nan vs ms bound",
          _t_clamp, lambda: _m_clamp(False), lambda: _m_clamp(True), ("after:enc",),
          ("clamp|nan propagation",), inputs=_inputs(), cause_pattern=_nanrx("clamp") + "|" + _nanrx("clip")),
    entry("h18a_functional_amax_nan_slot_ignored", H, "probe:amax with nan torch nan vs ms ignores",
          _t_amax, lambda: _m_amax(False), lambda: _m_amax(True), ("after:enc",),
          ("amax|nan propagation",), inputs=_inputs(), cause_pattern=_nanrx("amax")),
    entry("h18a_functional_minimum_nan_first_operand_branch_dropped", H, "probe:minimum(nan, y) torch nan vs ms y",
          _t_minimum, lambda: _m_minimum(False), lambda: _m_minimum(True), ("after:b",),
          ("minimum|nan propagation",), inputs=_inputs(), cause_pattern=_nanrx("minimum")),
    entry("h18a_pairwise_distance_as_ops_norm_coincident_gradient", H,
          "probe:PairwiseDistance eps=1e-6 added to the difference; ops.norm gradient at zero",
          _t_pdist, lambda: _m_pdist(False), lambda: _m_pdist(True), ("dist",),
          ("pairwise_distance|eps|1e-6",), inputs=[given(_PX), given(_PY)], checks=("forward", "backward"),
          fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\beps(ilon)?\b[^.]*\b1e-0?6\b|\b1e-0?6\b[^.]*\beps(ilon)?\b"),
    entry("h18a_cosine_similarity_layer_as_nn_metric_raises", H,
          "probe:mindspore.nn.CosineSimilarity is a metric, not a layer", _t_cos, lambda: _m_cos(False),
          lambda: _m_cos(True), ("sim",), ("CosineSimilarity|metric|cosine_similarity",),
          inputs=[uniform(5, 6)], fails_with="error",
          cause_pattern=(r"\bops\.cosine_similarity\b|\bcosine_similarity\b[^.]*\bdim\b"
                         r"|\bCosineSimilarity\b[^.]*\bmetric")),
]
