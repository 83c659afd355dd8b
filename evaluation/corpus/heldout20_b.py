"""Held-out set 20, half b: single-API entries (gradient-only, functional ops, an error) and the blocks."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

FAM = "h20"


def _silent_frames():
    rng = np.random.default_rng(20)
    x = rng.uniform(-1, 1, size=(2, 5, 4)).astype(np.float32)
    x[0, 1] = 0.0
    x[1, 3] = 0.0
    return given(x)


# ---------------------------------------------------------------- complex magnitude of a projection, silent frames
def cmag_torch():
    import torch
    import torch.nn as tnn

    class ComplexMag(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 6, bias=False)
            self.fc = tnn.Linear(3, 2)

        def forward(self, x):
            h = self.proj(x)
            mag = torch.abs(torch.complex(h[..., :3], h[..., 3:]))
            return self.fc(mag)

    return ComplexMag()


def _cmag_ms(complex_abs):
    import mindspore.nn as mnn
    from mindspore import ops

    class ComplexMag(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 6, has_bias=False)
            self.fc = mnn.Dense(3, 2)
            self.cabs = ops.ComplexAbs()
            self.complex = ops.Complex()

        def construct(self, x):
            h = self.proj(x)
            if complex_abs:
                mag = self.cabs(self.complex(h[..., :3], h[..., 3:]))
            else:
                mag = ops.hypot(h[..., :3], h[..., 3:])
            return self.fc(mag)

    return ComplexMag()


# ---------------------------------------------------------------- differentiable STFT power (learned pre-filter)
def stft_grad_torch():
    import torch
    import torch.nn as tnn

    class LearnedFrontEnd(tnn.Module):
        def __init__(self):
            super().__init__()
            self.pre = tnn.Linear(24, 24)
            self.window = torch.hann_window(8)
            self.fc = tnn.Linear(5, 2)

        def forward(self, wav):
            spec = torch.stft(self.pre(wav), 8, 4, window=self.window, center=True, return_complex=True)
            power = spec.real ** 2 + spec.imag ** 2
            return self.fc(torch.log1p(power).transpose(1, 2))

    return LearnedFrontEnd()


def _stft_grad_ms(conv_frames):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    n_fft, hop = 8, 4
    win = np.hanning(n_fft + 1)[:n_fft]
    k = np.arange(n_fft // 2 + 1)[:, None]
    n = np.arange(n_fft)[None, :]
    basis = np.concatenate([np.cos(2 * math.pi * k * n / n_fft) * win, -np.sin(2 * math.pi * k * n / n_fft) * win])

    class LearnedFrontEnd(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.pre = mnn.Dense(24, 24)
            self.window = ms.Tensor(win.astype(np.float32))
            self.kernel = ms.Tensor(basis[:, None, :].astype(np.float32))
            self.fc = mnn.Dense(5, 2)

        def construct(self, wav):
            h = self.pre(wav)
            if conv_frames:
                frames = ops.conv1d(ops.pad(h[:, None], (n_fft // 2, n_fft // 2), mode="reflect"), self.kernel,
                                    stride=hop)
                re, im = frames[:, :n_fft // 2 + 1], frames[:, n_fft // 2 + 1:]
            else:
                spec = ops.stft(h, n_fft, hop, window=self.window, center=True, return_complex=True)
                re, im = ops.real(spec), ops.imag(spec)
            power = re ** 2 + im ** 2
            return self.fc(ops.log1p(power).transpose(0, 2, 1))

    return LearnedFrontEnd()


# ---------------------------------------------------------------- zero-padded STFT (pad_mode='constant')
def stft_const_torch():
    import torch
    import torch.nn as tnn

    class ZeroPadSpec(tnn.Module):
        def __init__(self):
            super().__init__()
            self.pre = tnn.Linear(32, 32)
            self.window = torch.hann_window(16)
            self.fc = tnn.Linear(9, 3)

        def forward(self, wav):
            spec = torch.stft(self.pre(wav), 16, 8, window=self.window, center=True, pad_mode="constant",
                              return_complex=True)
            return self.fc((spec.real ** 2 + spec.imag ** 2).transpose(1, 2))

    return ZeroPadSpec()


def _stft_const_ms(upper):
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops

    class ZeroPadSpec(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.pre = mnn.Dense(32, 32)
            self.window = ms.Tensor(np.hanning(17)[:16].astype(np.float32))
            self.fc = mnn.Dense(9, 3)
            self.pad_mode = "CONSTANT" if upper else "constant"

        def construct(self, wav):
            spec = ops.stft(self.pre(wav), 16, 8, window=self.window, center=True, pad_mode=self.pad_mode,
                            return_complex=True)
            return self.fc((ops.real(spec) ** 2 + ops.imag(spec) ** 2).transpose(0, 2, 1))

    return ZeroPadSpec()


# ---------------------------------------------------------------- cumulative trapezoid integral of a field
def cumtrapz_torch():
    import torch
    import torch.nn as tnn

    class FieldIntegral(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 6)

        def forward(self, x):
            return torch.tanh(torch.cumulative_trapezoid(self.fc1(x), dx=0.1, dim=-1))

    return FieldIntegral()


def _cumtrapz_ms(trapezoid):
    import mindspore.nn as mnn
    from mindspore import ops

    class FieldIntegral(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(4, 6)

        def construct(self, x):
            h = self.fc1(x)
            if trapezoid:
                out = ops.cumsum((h[..., 1:] + h[..., :-1]) * 0.05, axis=-1)
            else:
                out = ops.cumsum(h, axis=-1) * 0.1
            return ops.tanh(out)

    return FieldIntegral()


# ---------------------------------------------------------------- centred spectrum (fftshift on the last axis)
def fftshift_torch():
    import torch
    import torch.nn as tnn

    class CentredSpectrum(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 8)
            self.fc2 = tnn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(torch.fft.fftshift(self.fc1(x), dim=-1))

    return CentredSpectrum()


def _fftshift_ms(last_axis):
    import mindspore.nn as mnn
    from mindspore import ops

    class CentredSpectrum(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 8)
            self.fc2 = mnn.Dense(8, 3)

        def construct(self, x):
            h = self.fc1(x)
            return self.fc2(ops.fftshift(h, dim=-1) if last_axis else ops.fftshift(h))

    return CentredSpectrum()


_SINGLE = [
    entry("h20b_complex_magnitude_as_ops_hypot_silent_frames_gradient", FAM,
          "probe:torch.abs(torch.complex) vs ops.hypot gradient at (0, 0)",
          cmag_torch, lambda: _cmag_ms(False), lambda: _cmag_ms(True), ["after:proj"],
          ["hypot|complexabs|abs"], inputs={"x": _silent_frames()}, checks=("forward", "backward"),
          fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\bhypot\b|\bcomplexabs\b|\bops\.abs\b[^.]*\bcomplex\b"),
    entry("h20b_learned_front_end_ops_stft_backward_raises", FAM,
          "probe:ops.stft has no bprop (STFT) vs differentiable torch.stft",
          stft_grad_torch, lambda: _stft_grad_ms(False), lambda: _stft_grad_ms(True), ["after:pre"],
          ["stft|bprop|gradient"], inputs={"wav": uniform(2, 24)}, checks=("forward", "backward"),
          fails_on=("backward",), fails_with="error",
          cause_pattern=r"\bstft\b[^.]*\b(bprop|backward|gradient|differentiable)\b|\b(bprop|backward|gradient)\b[^.]*\bstft\b"),
    entry("h20b_stft_pad_mode_lowercase_constant_raises", FAM,
          "probe:ops.stft pad_mode accepts only 'CONSTANT'/'REFLECT' (upper case)",
          stft_const_torch, lambda: _stft_const_ms(False), lambda: _stft_const_ms(True), ["after:pre"],
          ["pad_mode|CONSTANT"], inputs={"wav": uniform(2, 32)}, fails_with="error",
          cause_pattern=r"\bpad_mode\b[^.]*(?-i:\bCONSTANT\b)|\bupper[- ]?case\b[^.]*\bpad_mode\b|\bpad_mode\b[^.]*\bupper[- ]?case\b"),
    entry("h20b_functional_cumulative_trapezoid_as_ops_cumsum", FAM,
          "probe:torch.cumulative_trapezoid has no ops counterpart; ops.cumsum is a rectangle rule",
          cumtrapz_torch, lambda: _cumtrapz_ms(False), lambda: _cumtrapz_ms(True), ["after:fc1"],
          ["cumulative_trapezoid|cumsum|trapezoid"], inputs={"x": uniform(3, 4)}, fails_with="shape",
          cause_pattern=r"\bcumulative_trapezoid\b|\btrapezoid(al)?\b[^.]*\bcumsum\b|\bcumsum\b[^.]*\btrapezoid"),
    entry("h20b_functional_fftshift_last_dim_as_ops_fftshift_all_dims", FAM,
          "probe:torch.fft.fftshift(dim=-1) vs ops.fftshift default dim=None",
          fftshift_torch, lambda: _fftshift_ms(False), lambda: _fftshift_ms(True), ["after:fc1"],
          ["fftshift|dim"], inputs={"x": uniform(3, 5)},
          cause_pattern=r"\bfftshift\b[^.]*\b(dim|axes|axis)\s*=\s*-1\b|\bfftshift\b[^.]*\b(last|all)\b[^.]*\b(dim|axis|axes|dimensions)\b"),
]

from evaluation.corpus.heldout20_b_ports import ENTRIES as _PORTS  # noqa: E402

ENTRIES = _SINGLE + _PORTS
