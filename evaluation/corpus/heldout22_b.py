"""Held-out set 22, half b, single-API entries: functional ops, gradient-only entries and one raising op.

Written blind (without reading migcheck's localization, mapping, judging or running code). Each entry pairs a
naive MindSpore port with one porting mistake (an API difference) and a correct port of the same torch module.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

ENTRIES: list = []


def _backward_only(e):
    """A gradient-only entry: the naive port is expected to fail in the backward check only."""
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return mindspore, mnn, ops


def _torch():
    import torch
    import torch.nn as tnn
    return torch, tnn


# --------------------------------------------------------------------------------------------------------------
# 9. Functional: PPO advantage normalisation over the whole rollout, torch.flatten(adv) (start_dim=0).
# --------------------------------------------------------------------------------------------------------------
def _ppo_adv_torch():
    torch, tnn = _torch()

    class AdvantageNorm(tnn.Module):
        def __init__(self):
            super().__init__()
            self.value_head = tnn.Linear(5, 1)

        def forward(self, obs, returns):  # obs (T, N, D), returns (T, N)
            values = self.value_head(obs).squeeze(-1)
            adv = torch.flatten(returns - values)
            return (adv - adv.mean()) / (adv.std() + 1e-8)

    return AdvantageNorm()


def _ppo_adv_ms(full: bool):
    ms, mnn, ops = _ms()

    class AdvantageNorm(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.value_head = mnn.Dense(5, 1)

        def construct(self, obs, returns):
            values = self.value_head(obs).squeeze(-1)
            adv = ops.flatten(returns - values, start_dim=0) if full else ops.flatten(returns - values)
            return (adv - adv.mean()) / (ops.std(adv, ddof=1) + 1e-8)

    return AdvantageNorm()


ENTRIES.append(entry(
    "h22b_functional_ppo_rollout_advantages_ops_flatten_default_start_dim", "h22",
    "probe:torch.flatten default start_dim=0 vs mindspore.ops.flatten default start_dim=1",
    _ppo_adv_torch, lambda: _ppo_adv_ms(False), lambda: _ppo_adv_ms(True),
    ("after:value_head",), ("flatten start_dim",),
    inputs={"obs": uniform(4, 3, 5), "returns": uniform(4, 3)}, fails_with="shape",
    cause_pattern=r"\bstart_dim\s*=\s*0\b|\bstart_dim\b[^.]*\b0\b|\breshape\s*\(\s*-1\s*\)|\bflatten\b[^.]*\b(1-?d|one-dimensional|all (dims|dimensions|axes))\b",
))


# --------------------------------------------------------------------------------------------------------------
# 10. Functional: Autoformer AutoCorrelation period scores, irfft(..., n=L) on an odd-length window.
# --------------------------------------------------------------------------------------------------------------
_AC_L = 7


def _autocorr_torch():
    torch, tnn = _torch()

    class AutoCorrelationScores(tnn.Module):
        def __init__(self):
            super().__init__()
            self.query_projection = tnn.Linear(3, 4)
            self.key_projection = tnn.Linear(3, 4)

        def forward(self, x):  # (B, L, C)
            q = self.query_projection(x)
            k = self.key_projection(x)
            q_fft = torch.fft.rfft(q, dim=1)
            k_fft = torch.fft.rfft(k, dim=1)
            corr = torch.fft.irfft(q_fft * torch.conj(k_fft), n=_AC_L, dim=1)
            return corr.mean(-1)

    return AutoCorrelationScores()


def _autocorr_ms(with_n: bool):
    ms, mnn, ops = _ms()

    class AutoCorrelationScores(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.query_projection = mnn.Dense(3, 4)
            self.key_projection = mnn.Dense(3, 4)

        def construct(self, x):
            q = self.query_projection(x)
            k = self.key_projection(x)
            q_fft = ops.rfft(q, dim=1)
            k_fft = ops.rfft(k, dim=1)
            res = q_fft * ops.conj(k_fft)
            corr = ops.irfft(res, n=_AC_L, dim=1) if with_n else ops.irfft(res, dim=1)
            return corr.mean(-1)

    return AutoCorrelationScores()


ENTRIES.append(entry(
    "h22b_functional_autocorrelation_odd_window_irfft_length_dropped", "h22",
    "probe:ops.irfft without n returns 2*(L//2) samples for an odd window",
    _autocorr_torch, lambda: _autocorr_ms(False), lambda: _autocorr_ms(True),
    ("after:query_projection",), ("irfft n|output length",),
    inputs={"x": uniform(2, _AC_L, 3)}, fails_with="shape",
    cause_pattern=r"\bn\s*=\s*(7|L|seq_len|length|\w+\.shape)|\birfft\b[^.]*\b(n|length|size)\b|\b(n|length)\b[^.]*\birfft\b",
))


# --------------------------------------------------------------------------------------------------------------
# 11. Gradient: GluonTS / Lag-Llama style mean scaler; the port computes the scale through numpy.
# --------------------------------------------------------------------------------------------------------------
def _scaler_torch():
    torch, tnn = _torch()

    class ScaledHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(6, 2)

        def forward(self, past_target):  # (B, L)
            scale = past_target.abs().mean(dim=1, keepdim=True).clamp(min=1e-5)
            return self.proj(past_target / scale)

    return ScaledHead()


def _scaler_ms(in_graph: bool):
    ms, mnn, ops = _ms()

    class ScaledHead(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(6, 2)

        def construct(self, past_target):
            if in_graph:
                scale = ops.clamp(ops.abs(past_target).mean(axis=1, keep_dims=True), min=1e-5)
            else:
                stats = np.clip(np.abs(past_target.asnumpy()).mean(axis=1, keepdims=True), 1e-5, None)
                scale = ms.Tensor(stats, ms.float32)
            return self.proj(past_target / scale)

    return ScaledHead()


ENTRIES.append(_backward_only(entry(
    "h22b_mean_scaler_scale_computed_via_asnumpy_no_gradient", "h22",
    "probe:mindspore.Tensor.asnumpy() leaves the autograd graph (torch computes the scale with tensor ops)",
    _scaler_torch, lambda: _scaler_ms(False), lambda: _scaler_ms(True),
    ("<root>",), ("asnumpy|numpy scale no gradient",),
    inputs={"past_target": uniform(3, 6, low=0.5, high=2.0)}, checks=("forward", "backward"),
    cause_pattern=r"\basnumpy\b|\bnumpy\b[^.]*\b(grad\w*|autograd|detach\w*|graph|differentiab\w*)\b",
)))


# --------------------------------------------------------------------------------------------------------------
# 12. Gradient: SELU on zero-padded lag windows (input exactly 0).
# --------------------------------------------------------------------------------------------------------------
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805
_LAGS = np.array([[0.0, 0.0, 0.0, 0.4, -0.7, 1.2], [0.0, 0.0, 0.9, -0.3, 0.5, -1.1]], dtype=np.float32)


def _selu_torch():
    torch, tnn = _torch()

    class LagMLP(tnn.Module):
        def __init__(self):
            super().__init__()
            self.act = tnn.SELU()
            self.fc = tnn.Linear(6, 2)

        def forward(self, lags):
            return self.fc(self.act(lags))

    return LagMLP()


def _selu_ms(explicit: bool):
    ms, mnn, ops = _ms()

    class ExplicitSELU(mnn.Cell):
        def construct(self, x):
            return ops.where(x > 0, _SELU_SCALE * x, _SELU_SCALE * _SELU_ALPHA * (ops.exp(x) - 1.0))

    class LagMLP(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.act = ExplicitSELU() if explicit else mnn.SeLU()
            self.fc = mnn.Dense(6, 2)

        def construct(self, lags):
            return self.fc(self.act(lags))

    return LagMLP()


ENTRIES.append(_backward_only(entry(
    "h22b_selu_zero_padded_lag_window_gradient_at_zero", "h22",
    "probe:SELU derivative at exactly 0 (torch scale*alpha, MindSpore nn.SeLU scale)",
    _selu_torch, lambda: _selu_ms(False), lambda: _selu_ms(True),
    ("act",), ("selu gradient at zero",),
    inputs={"lags": given(_LAGS)}, checks=("forward", "backward"),
    cause_pattern=r"\bselu\b[^.]*\b(zero|0(\.0)?|alpha|1\.758\d*|scale\s*\*\s*alpha)\b|\b(zero|alpha)\b[^.]*\bselu\b",
)))


# --------------------------------------------------------------------------------------------------------------
# 13. Error: N-HiTS style knot upsampling, F.interpolate(knots, scale_factor=4, mode="linear") on (B, 1, K).
# --------------------------------------------------------------------------------------------------------------
_KNOTS, _UPSAMPLE = 3, 4


def _knots_torch():
    torch, tnn = _torch()
    import torch.nn.functional as F

    class KnotForecast(tnn.Module):
        def __init__(self):
            super().__init__()
            self.theta = tnn.Linear(8, _KNOTS)

        def forward(self, x):  # (B, L)
            knots = self.theta(x).unsqueeze(1)
            forecast = F.interpolate(knots, scale_factor=_UPSAMPLE, mode="linear")
            return forecast.squeeze(1)

    return KnotForecast()


def _knots_ms(by_size: bool):
    ms, mnn, ops = _ms()

    class KnotForecast(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.theta = mnn.Dense(8, _KNOTS)

        def construct(self, x):
            knots = self.theta(x).unsqueeze(1)
            if by_size:
                forecast = ops.interpolate(knots, size=_KNOTS * _UPSAMPLE, mode="linear")
            else:
                forecast = ops.interpolate(knots, scale_factor=float(_UPSAMPLE), mode="linear")
            return forecast.squeeze(1)

    return KnotForecast()


ENTRIES.append(entry(
    "h22b_nhits_knot_upsampling_ops_interpolate_linear_scale_factor_raises", "h22",
    "probe:mindspore.ops.interpolate refuses scale_factor with mode='linear' on 3-D input; size= works",
    _knots_torch, lambda: _knots_ms(False), lambda: _knots_ms(True),
    ("after:theta",), ("interpolate scale_factor|size",),
    inputs={"x": uniform(2, 8)}, fails_with="error",
    cause_pattern=r"\bsize\s*=\s*(12|\w+\s*\*\s*\w+)|\bscale_factor\b[^.]*\b(linear|size|not supported|unsupported|raise\w*|refus\w*)\b|\binterpolate\b[^.]*\bsize\b",
))
