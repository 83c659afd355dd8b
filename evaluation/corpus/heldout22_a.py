"""Held-out set 22, half a (blind): tensors a network builds itself, and layers in less common configurations.

Each entry is one nameable porting difference; the naive port must fail under migcheck, the correct one pass.
"""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform


def _t():
    import torch
    import torch.nn as tnn
    return torch, tnn


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return ms, mnn, ops


# --------------------------------------------------------------------------------------------------------------
# 1. A Fourier band table built in __init__: torch spaces the exponents by arange(L)/L (the top octave left out);
#    numpy's linspace includes its end point by default.

BANDS = 6


def fourier_torch():
    torch, tnn = _t()

    class FourierEnc(tnn.Module):
        def __init__(self):
            super().__init__()
            exps = torch.arange(BANDS, dtype=torch.float32) * (4.0 / BANDS)
            self.register_buffer("bands", (2.0 ** exps) * math.pi, persistent=False)

        def forward(self, x):
            proj = x.unsqueeze(-1) * self.bands
            return torch.cat([torch.sin(proj), torch.cos(proj)], dim=-1).flatten(1)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 3)
            self.enc = FourierEnc()
            self.fc2 = tnn.Linear(3 * 2 * BANDS, 4)

        def forward(self, x):
            return self.fc2(self.enc(torch.tanh(self.fc1(x))))

    return Net()


def _fourier_ms(endpoint_false: bool):
    ms, mnn, ops = _m()

    class FourierEnc(mnn.Cell):
        def __init__(self):
            super().__init__()
            exps = np.linspace(0.0, 4.0, BANDS, endpoint=False) if endpoint_false else np.linspace(0.0, 4.0, BANDS)
            self.bands = ms.Tensor((2.0 ** exps * math.pi).astype(np.float32))

        def construct(self, x):
            proj = x.expand_dims(-1) * self.bands
            out = ops.cat([ops.sin(proj), ops.cos(proj)], axis=-1)
            return out.reshape(out.shape[0], -1)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 3)
            self.enc = FourierEnc()
            self.fc2 = mnn.Dense(3 * 2 * BANDS, 4)

        def construct(self, x):
            return self.fc2(self.enc(ops.tanh(self.fc1(x))))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 2. Softplus with a low threshold: mindspore.nn has no Softplus cell in this version; the port reaches for
#    ops.softplus and passes beta only, so the linear switch-over stays at threshold=20.

def softplus_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(6, 8)
            self.act = tnn.Softplus(beta=1.5, threshold=2.0)
            self.fc2 = tnn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _softplus_ms(threshold: bool):
    ms, mnn, ops = _m()

    class Softplus(mnn.Cell):
        def construct(self, x):
            if threshold:
                return ops.softplus(x, beta=1.5, threshold=2.0)
            return ops.softplus(x, beta=1.5)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.act = Softplus()
            self.fc2 = mnn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 3. Hardshrink with a non-default lambda; the port's nn.HShrink is built without it (default 0.5).

def hshrink_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(6, 10)
            self.shrink = tnn.Hardshrink(lambd=0.2)
            self.fc2 = tnn.Linear(10, 3)

        def forward(self, x):
            return self.fc2(self.shrink(self.fc1(x)))

    return Net()


def _hshrink_ms(lambd: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 10)
            self.shrink = mnn.HShrink(lambd=0.2) if lambd else mnn.HShrink()
            self.fc2 = mnn.Dense(10, 3)

        def construct(self, x):
            return self.fc2(self.shrink(self.fc1(x)))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 4. Masked mean over valid frames: the padding mask is built in construct from lengths; the port counts the
#    valid frames with the ReduceSum primitive on the bool mask (a logical any, not a count) and casts after.

T_LEN = 6


def masked_mean_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 5)
            self.out = tnn.Linear(5, 3)

        def forward(self, x, lengths):
            h = self.proj(x)
            mask = (torch.arange(x.shape[1])[None, :] < lengths[:, None]).unsqueeze(-1)
            pooled = (h * mask).sum(1) / mask.sum(1)
            return self.out(pooled)

    return Net()


def _masked_mean_ms(cast_first: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 5)
            self.out = mnn.Dense(5, 3)
            self.reduce_sum = ops.ReduceSum()

        def construct(self, x, lengths):
            h = self.proj(x)
            mask = (ops.arange(x.shape[1])[None, :] < lengths[:, None]).expand_dims(-1)
            summed = self.reduce_sum(h * mask.astype(ms.float32), 1)
            if cast_first:
                count = self.reduce_sum(mask.astype(ms.float32), 1)
            else:
                count = self.reduce_sum(mask, 1).astype(ms.float32)
            return self.out(summed / count)

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 5. Max over time with the ArgMaxWithValue primitive: its axis defaults to 0 (the batch), torch reduced dim 1.

def max_time_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 6)
            self.fc2 = tnn.Linear(6, 2)

        def forward(self, x):
            h = torch.tanh(self.fc1(x))
            return self.fc2(h.max(dim=1).values)

    return Net()


def _max_time_ms(axis: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(4, 6)
            self.fc2 = mnn.Dense(6, 2)
            self.argmax_value = ops.ArgMaxWithValue(axis=1) if axis else ops.ArgMaxWithValue()

        def construct(self, x):
            h = ops.tanh(self.fc1(x))
            _, values = self.argmax_value(h)
            return self.fc2(values)

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 6. (gradient) A max-over-time pooling cell: torch's amax shares the gradient among tied maxima; the port's
#    numpy-style Tensor.max(axis=...) sends it all to the first one.

def _tied_frames():
    rng = np.random.default_rng(2201)
    return rng.integers(0, 3, size=(3, 5, 4)).astype(np.float32)


def tmax_torch():
    torch, tnn = _t()

    class MaxOverTime(tnn.Module):
        def forward(self, x):
            return x.amax(dim=1)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.pool = MaxOverTime()
            self.fc = tnn.Linear(4, 3)

        def forward(self, x):
            return self.fc(self.pool(x))

    return Net()


def _tmax_ms(amax: bool):
    ms, mnn, ops = _m()

    class MaxOverTime(mnn.Cell):
        def construct(self, x):
            if amax:
                return ops.amax(x, 1)
            return x.max(axis=1)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.pool = MaxOverTime()
            self.fc = mnn.Dense(4, 3)

        def construct(self, x):
            return self.fc(self.pool(x))

    return Net()


# --------------------------------------------------------------------------------------------------------------
# 7. (gradient) A scale computed from the activations under .detach(): the port drops the stop_gradient, so the
#    forward agrees and the gradient also flows through the scale.

def scale_torch():
    torch, tnn = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 6)
            self.fc2 = tnn.Linear(6, 3)

        def forward(self, x):
            h = self.fc1(x)
            scale = torch.sqrt(h.detach().pow(2).mean(dim=-1, keepdim=True) + 1.0)
            return self.fc2(h / scale)

    return Net()


def _scale_ms(stop: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 6)
            self.fc2 = mnn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            ref = ops.stop_gradient(h) if stop else h
            scale = ops.sqrt(ops.mean(ref * ref, axis=-1, keep_dims=True) + 1.0)
            return self.fc2(h / scale)

    return Net()


ENTRIES = [
    entry("h22a_fourier_band_table_numpy_linspace_endpoint_included", "h22",
          "probe:numpy.linspace endpoint default vs torch.arange(L)/L band exponents",
          fourier_torch, lambda: _fourier_ms(False), lambda: _fourier_ms(True),
          layers=("enc",), causes=("linspace|endpoint",), inputs={"x": uniform(4, 5)},
          cause_pattern=r"\bendpoint\s*=\s*False\b|\bendpoint\b[^.\n]*\b(false|exclud\w*)\b"
                        r"|\bexclud\w*\b[^.\n]*\bend\s*-?point\b"),
    entry("h22a_softplus_low_threshold_as_ops_softplus_default_threshold", "h22",
          "probe:ops.softplus threshold default 20 vs torch.nn.Softplus(threshold=2)", softplus_torch, lambda: _softplus_ms(False), lambda: _softplus_ms(True),
          layers=("act",), causes=("softplus|threshold",), inputs={"x": uniform(6, 6, low=-2.0, high=2.0)},
          cause_pattern=r"\bthreshold\s*=\s*2(\.0*)?\b|\bthreshold\b[^.\n]*\b2(\.0*)?\b"),
    entry("h22a_hardshrink_lambda_dropped_hshrink_default", "h22",
          "probe:nn.HShrink lambd default 0.5 vs torch.nn.Hardshrink(lambd=0.2)",
          hshrink_torch, lambda: _hshrink_ms(False), lambda: _hshrink_ms(True),
          layers=("shrink",), causes=("hshrink|lambd",), inputs={"x": uniform(6, 6)},
          cause_pattern=r"\blambd(a)?\s*=\s*0?\.2\b|\blambd(a)?\b[^.\n]*\b0?\.2\b"),
    entry("h22a_functional_masked_mean_reducesum_primitive_on_bool_mask", "h22",
          "probe:ops.ReduceSum on a bool tensor returns bool", masked_mean_torch,
          lambda: _masked_mean_ms(False), lambda: _masked_mean_ms(True),
          layers=("after:proj",), causes=("reducesum|bool|count",),
          inputs={"x": uniform(4, T_LEN, 4), "lengths": given(np.array([2, 6, 4, 1]), dtype="int64")},
          cause_pattern=r"\bReduceSum\b[^.\n]*\bbool|\bbool\w*\b[^.\n]*\bReduceSum\b"
                        r"|\b(cast|astype)\b[^.\n]*\bmask\b[^.\n]*\bbefore\b[^.\n]*\bsum"
                        r"|\bmask\b[^.\n]*\b(cast|astype)\b[^.\n]*\bbefore\b[^.\n]*\bsum"),
    entry("h22a_functional_max_over_time_argmaxwithvalue_default_axis", "h22",
          "probe:ops.ArgMaxWithValue axis default 0", max_time_torch, lambda: _max_time_ms(False), lambda: _max_time_ms(True),
          layers=("after:fc1",), causes=("argmaxwithvalue|axis",), inputs={"x": uniform(3, 5, 4)},
          fails_with="shape",
          cause_pattern=r"\bArgMaxWithValue\b[^.\n]*\baxis\s*=\s*(1|-2)\b|\baxis\s*=\s*(1|-2)\b[^.\n]*\bArgMaxWithValue\b"
                        r"|\bArgMaxWithValue\b[^.\n]*\baxis\b[^.\n]*\b0\b"),
    entry("h22a_max_over_time_tensor_max_tied_frames_gradient", "h22",
          "probe:Tensor.max(axis) gradient at ties vs torch.amax", tmax_torch, lambda: _tmax_ms(False),
          lambda: _tmax_ms(True), layers=("pool",), causes=("amax|tie|max",),
          inputs={"x": given(_tied_frames())}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bamax\b|\btie[sd]?\b[^.\n]*\b(split|shar|distribut|even)\w*"
                        r"|\b(split|shar|distribut)\w*\b[^.\n]*\btie[sd]?\b"),
    entry("h22a_functional_detached_rms_scale_stop_gradient_dropped", "h22",
          "probe:torch .detach() without ops.stop_gradient", scale_torch, lambda: _scale_ms(False),
          lambda: _scale_ms(True), layers=("after:fc1",), causes=("stop_gradient|detach",),
          inputs={"x": uniform(4, 5)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bdetach(ed)?\b"),
]
