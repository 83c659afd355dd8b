"""Held-out set 20, half b: small scientific-ML and signal-processing model blocks (see evaluation/README.md)."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck import uniform

FAM = "h20-port"


def _torch():
    import torch
    import torch.nn as tnn
    return torch, tnn


def _ms():
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore import ops
    return ms, mnn, ops


# ---------------------------------------------------------------- FNO 1-D spectral convolution (ortho FFTs)
def fno1d_torch():
    torch, tnn = _torch()

    class SpectralConv1d(tnn.Module):
        def __init__(self, cin=3, cout=3, modes=4):
            super().__init__()
            self.modes = modes
            scale = 1.0 / (cin * cout)
            self.w_re = tnn.Parameter(scale * torch.rand(cin, cout, modes))
            self.w_im = tnn.Parameter(scale * torch.rand(cin, cout, modes))

        def forward(self, x):
            n = x.shape[-1]
            xf = torch.fft.rfft(x, norm="ortho")
            xr, xi = xf.real[..., :self.modes], xf.imag[..., :self.modes]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = n // 2 + 1 - self.modes
            out = torch.complex(torch.nn.functional.pad(ore, (0, pad)), torch.nn.functional.pad(oim, (0, pad)))
            return torch.fft.irfft(out, n=n, norm="ortho")

    class FNO1dBlock(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc0 = tnn.Linear(2, 3)
            self.spec = SpectralConv1d()
            self.fc1 = tnn.Linear(3, 2)

        def forward(self, x):
            h = self.fc0(x).permute(0, 2, 1)
            h = torch.nn.functional.gelu(self.spec(h))
            return self.fc1(h.permute(0, 2, 1))

    return FNO1dBlock()


def _fno1d_ms(inverse_norm):
    ms, mnn, ops = _ms()

    class SpectralConv1d(mnn.Cell):
        def __init__(self, cin=3, cout=3, modes=4):
            super().__init__()
            self.modes = modes
            self.w_re = ms.Parameter(ms.Tensor(np.random.rand(cin, cout, modes).astype(np.float32)), name="w_re")
            self.w_im = ms.Parameter(ms.Tensor(np.random.rand(cin, cout, modes).astype(np.float32)), name="w_im")
            self.complex = ops.Complex()

        def construct(self, x):
            n = x.shape[-1]
            xf = ops.rfft(x, norm="ortho")
            xr, xi = ops.real(xf)[..., :self.modes], ops.imag(xf)[..., :self.modes]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = n // 2 + 1 - self.modes
            out = self.complex(ops.pad(ore, (0, pad)), ops.pad(oim, (0, pad)))
            if inverse_norm:
                return ops.irfft(out, n=n, norm="ortho")
            return ops.irfft(out, n=n)

    class FNO1dBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc0 = mnn.Dense(2, 3)
            self.spec = SpectralConv1d()
            self.fc1 = mnn.Dense(3, 2)
            self.gelu = mnn.GELU(approximate=False)

        def construct(self, x):
            h = self.fc0(x).transpose(0, 2, 1)
            h = self.gelu(self.spec(h))
            return self.fc1(h.transpose(0, 2, 1))

    return FNO1dBlock()


# ---------------------------------------------------------------- FNO 2-D spectral convolution (odd width)
def fno2d_torch():
    torch, tnn = _torch()

    class SpectralConv2d(tnn.Module):
        def __init__(self, cin=2, cout=2, m1=2, m2=3):
            super().__init__()
            self.m1, self.m2 = m1, m2
            scale = 1.0 / (cin * cout)
            self.w_re = tnn.Parameter(scale * torch.rand(cin, cout, m1, m2))
            self.w_im = tnn.Parameter(scale * torch.rand(cin, cout, m1, m2))

        def forward(self, x):
            h, w = x.shape[-2], x.shape[-1]
            xf = torch.fft.rfft2(x)
            xr, xi = xf.real[..., :self.m1, :self.m2], xf.imag[..., :self.m1, :self.m2]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = (0, w // 2 + 1 - self.m2, 0, h - self.m1)
            out = torch.complex(torch.nn.functional.pad(ore, pad), torch.nn.functional.pad(oim, pad))
            return torch.fft.irfft2(out, s=(h, w))

    class FNO2dBlock(tnn.Module):
        def __init__(self):
            super().__init__()
            self.spec = SpectralConv2d()

        def forward(self, x):
            return torch.relu(self.spec(x))

    return FNO2dBlock()


def _fno2d_ms(give_size):
    ms, mnn, ops = _ms()

    class SpectralConv2d(mnn.Cell):
        def __init__(self, cin=2, cout=2, m1=2, m2=3):
            super().__init__()
            self.m1, self.m2 = m1, m2
            self.w_re = ms.Parameter(ms.Tensor(np.random.rand(cin, cout, m1, m2).astype(np.float32)), name="w_re")
            self.w_im = ms.Parameter(ms.Tensor(np.random.rand(cin, cout, m1, m2).astype(np.float32)), name="w_im")
            self.complex = ops.Complex()

        def construct(self, x):
            h, w = x.shape[-2], x.shape[-1]
            xf = ops.rfft2(x)
            xr, xi = ops.real(xf)[..., :self.m1, :self.m2], ops.imag(xf)[..., :self.m1, :self.m2]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = (0, w // 2 + 1 - self.m2, 0, h - self.m1)
            out = self.complex(ops.pad(ore, pad), ops.pad(oim, pad))
            if give_size:
                return ops.irfft2(out, s=(h, w))
            return ops.irfft2(out)

    class FNO2dBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.spec = SpectralConv2d()

        def construct(self, x):
            return ops.relu(self.spec(x))

    return FNO2dBlock()


# ---------------------------------------------------------------- MFCC head (log-mel -> DCT-II -> dense)
def _dct_torch(n_mfcc, n_mels):
    torch, _ = _torch()
    n = torch.arange(float(n_mels))
    k = torch.arange(float(n_mfcc)).unsqueeze(1)
    dct = torch.cos(math.pi / float(n_mels) * (n + 0.5) * k)
    dct[0] *= 1.0 / math.sqrt(2.0)
    dct *= math.sqrt(2.0 / float(n_mels))
    return dct.t().contiguous()


def mfcc_torch():
    torch, tnn = _torch()

    class MFCCHead(tnn.Module):
        def __init__(self, n_mels=8, n_mfcc=4):
            super().__init__()
            self.dct_mat = _dct_torch(n_mfcc, n_mels)
            self.fc = tnn.Linear(n_mfcc, 3)

        def forward(self, mel):
            return self.fc(torch.matmul(torch.log(mel + 1e-6), self.dct_mat))

    return MFCCHead()


def _mfcc_ms(ortho):
    ms, mnn, ops = _ms()
    import mindspore.dataset.audio as audio

    class MFCCHead(mnn.Cell):
        def __init__(self, n_mels=8, n_mfcc=4):
            super().__init__()
            if ortho:
                dct = audio.create_dct(n_mfcc, n_mels, audio.NormMode.ORTHO)
            else:
                dct = audio.create_dct(n_mfcc, n_mels)
            self.dct_mat = ms.Tensor(np.asarray(dct, dtype=np.float32))
            self.fc = mnn.Dense(n_mfcc, 3)

        def construct(self, mel):
            return self.fc(ops.matmul(ops.log(mel + 1e-6), self.dct_mat))

    return MFCCHead()


# ---------------------------------------------------------------- NeRF positional encoding (log-sampled bands)
def nerf_torch():
    torch, tnn = _torch()

    class NeRFEmbedMLP(tnn.Module):
        def __init__(self, n_freqs=4):
            super().__init__()
            self.freq_bands = 2.0 ** torch.linspace(0.0, n_freqs - 1.0, n_freqs)
            self.fc1 = tnn.Linear(3 + 3 * 2 * n_freqs, 8)
            self.fc2 = tnn.Linear(8, 2)

        def forward(self, x):
            outs = [x]
            for i in range(self.freq_bands.shape[0]):
                f = self.freq_bands[i]
                outs += [torch.sin(x * f), torch.cos(x * f)]
            return self.fc2(torch.relu(self.fc1(torch.cat(outs, -1))))

    return NeRFEmbedMLP()


def _nerf_ms(base_two):
    ms, mnn, ops = _ms()

    class NeRFEmbedMLP(mnn.Cell):
        def __init__(self, n_freqs=4):
            super().__init__()
            start, end = ms.Tensor(0.0, ms.float32), ms.Tensor(n_freqs - 1.0, ms.float32)
            if base_two:
                self.freq_bands = ops.logspace(start, end, n_freqs, base=2)
            else:
                self.freq_bands = ops.logspace(start, end, n_freqs)
            self.n_freqs = n_freqs
            self.fc1 = mnn.Dense(3 + 3 * 2 * n_freqs, 8)
            self.fc2 = mnn.Dense(8, 2)

        def construct(self, x):
            outs = [x]
            for i in range(self.n_freqs):
                f = self.freq_bands[i]
                outs += [ops.sin(x * f), ops.cos(x * f)]
            return self.fc2(ops.relu(self.fc1(ops.cat(outs, -1))))

    return NeRFEmbedMLP()


# ---------------------------------------------------------------- STFT log-power front end (Hann window)
def stft_front_torch():
    torch, tnn = _torch()

    class SpecFrontEnd(tnn.Module):
        def __init__(self, n_fft=16, hop=4):
            super().__init__()
            self.n_fft, self.hop = n_fft, hop
            self.window = torch.hann_window(n_fft)
            self.fc = tnn.Linear(n_fft // 2 + 1, 4)

        def forward(self, wav):
            spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, center=True, return_complex=True)
            power = spec.real ** 2 + spec.imag ** 2
            return self.fc(torch.log(power + 1e-6).transpose(1, 2))

    return SpecFrontEnd()


def _stft_front_ms(periodic):
    ms, mnn, ops = _ms()

    class SpecFrontEnd(mnn.Cell):
        def __init__(self, n_fft=16, hop=4):
            super().__init__()
            self.n_fft, self.hop = n_fft, hop
            win = np.hanning(n_fft + 1)[:n_fft] if periodic else np.hanning(n_fft)
            self.window = ms.Tensor(win.astype(np.float32))
            self.fc = mnn.Dense(n_fft // 2 + 1, 4)

        def construct(self, wav):
            spec = ops.stft(wav, self.n_fft, self.hop, window=self.window, center=True, return_complex=True)
            power = ops.real(spec) ** 2 + ops.imag(spec) ** 2
            return self.fc(ops.log(power + 1e-6).transpose(0, 2, 1))

    return SpecFrontEnd()


# ---------------------------------------------------------------- Slaney mel filterbank head
def _hz_to_mel_slaney(f):
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = math.log(6.4) / 27.0
    return min_log_mel + math.log(f / min_log_hz) / logstep if f >= min_log_hz else f / f_sp


def _mel_to_hz_slaney(mels):
    torch, _ = _torch()
    f_sp = 200.0 / 3
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = math.log(6.4) / 27.0
    freqs = f_sp * mels
    return torch.where(mels >= min_log_mel, min_log_hz * torch.exp(logstep * (mels - min_log_mel)), freqs)


def _slaney_fbanks_torch(n_freqs, f_min, f_max, n_mels, sample_rate):
    torch, _ = _torch()
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs, dtype=torch.float64)
    m_pts = torch.linspace(_hz_to_mel_slaney(f_min), _hz_to_mel_slaney(f_max), n_mels + 2, dtype=torch.float64)
    f_pts = _mel_to_hz_slaney(m_pts)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    fb = torch.clamp(torch.minimum(down, up), min=0.0)
    enorm = 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
    return (fb * enorm.unsqueeze(0)).float()


def mel_torch():
    torch, tnn = _torch()

    class MelHead(tnn.Module):
        def __init__(self, n_freqs=33, n_mels=6, sample_rate=16000):
            super().__init__()
            self.fb = _slaney_fbanks_torch(n_freqs, 0.0, sample_rate / 2, n_mels, sample_rate)
            self.fc = tnn.Linear(n_mels, 3)

        def forward(self, power):
            return self.fc(torch.log(torch.matmul(power, self.fb) + 1e-6))

    return MelHead()


def _mel_ms(slaney_scale):
    ms, mnn, ops = _ms()
    import mindspore.dataset.audio as audio

    class MelHead(mnn.Cell):
        def __init__(self, n_freqs=33, n_mels=6, sample_rate=16000):
            super().__init__()
            if slaney_scale:
                fb = audio.melscale_fbanks(n_freqs, 0.0, sample_rate / 2, n_mels, sample_rate,
                                           audio.NormType.SLANEY, audio.MelType.SLANEY)
            else:
                fb = audio.melscale_fbanks(n_freqs, 0.0, sample_rate / 2, n_mels, sample_rate, audio.NormType.SLANEY)
            self.fb = ms.Tensor(np.asarray(fb, dtype=np.float32))
            self.fc = mnn.Dense(n_mels, 3)

        def construct(self, power):
            return self.fc(ops.log(ops.matmul(power, self.fb) + 1e-6))

    return MelHead()


# ---------------------------------------------------------------- sinc resampler (strided conv after explicit pad)
def resample_torch():
    torch, tnn = _torch()

    class SincResampler(tnn.Module):
        def __init__(self, orig=3, new=2, width=3):
            super().__init__()
            self.orig, self.new, self.width = orig, new, width
            self.conv = tnn.Conv1d(1, new, 2 * width + orig, stride=orig, bias=False)

        def forward(self, wav):
            b, n = wav.shape
            x = torch.nn.functional.pad(wav[:, None], (self.width, self.width + self.orig))
            y = self.conv(x).transpose(1, 2).reshape(b, -1)
            return y[:, :int(math.ceil(self.new * n / self.orig))]

    return SincResampler()


def _resample_ms(valid):
    ms, mnn, ops = _ms()

    class SincResampler(mnn.Cell):
        def __init__(self, orig=3, new=2, width=3):
            super().__init__()
            self.orig, self.new, self.width = orig, new, width
            if valid:
                self.conv = mnn.Conv1d(1, new, 2 * width + orig, stride=orig, pad_mode="valid", has_bias=False)
            else:
                self.conv = mnn.Conv1d(1, new, 2 * width + orig, stride=orig, has_bias=False)

        def construct(self, wav):
            b, n = wav.shape
            x = ops.pad(wav[:, None], (self.width, self.width + self.orig))
            y = self.conv(x).transpose(0, 2, 1).reshape(b, -1)
            return y[:, :int(math.ceil(self.new * n / self.orig))]

    return SincResampler()


# ---------------------------------------------------------------- FNO layer: spectral branch + 1x1 bypass conv
def fno_layer_torch():
    torch, tnn = _torch()

    class FNOLayer(tnn.Module):
        def __init__(self, width=3, modes=3):
            super().__init__()
            self.modes = modes
            self.w_re = tnn.Parameter(torch.rand(width, width, modes) / width)
            self.w_im = tnn.Parameter(torch.rand(width, width, modes) / width)
            self.w = tnn.Conv1d(width, width, 1)

        def forward(self, x):
            n = x.shape[-1]
            xf = torch.fft.rfft(x)
            xr, xi = xf.real[..., :self.modes], xf.imag[..., :self.modes]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = n // 2 + 1 - self.modes
            out = torch.complex(torch.nn.functional.pad(ore, (0, pad)), torch.nn.functional.pad(oim, (0, pad)))
            return torch.nn.functional.gelu(torch.fft.irfft(out, n=n) + self.w(x))

    return FNOLayer()


def _fno_layer_ms(bias):
    ms, mnn, ops = _ms()

    class FNOLayer(mnn.Cell):
        def __init__(self, width=3, modes=3):
            super().__init__()
            self.modes = modes
            self.w_re = ms.Parameter(ms.Tensor(np.random.rand(width, width, modes).astype(np.float32)), name="w_re")
            self.w_im = ms.Parameter(ms.Tensor(np.random.rand(width, width, modes).astype(np.float32)), name="w_im")
            if bias:
                self.w = mnn.Conv1d(width, width, 1, has_bias=True)
            else:
                self.w = mnn.Conv1d(width, width, 1)
            self.complex = ops.Complex()
            self.gelu = mnn.GELU(approximate=False)

        def construct(self, x):
            n = x.shape[-1]
            xf = ops.rfft(x)
            xr, xi = ops.real(xf)[..., :self.modes], ops.imag(xf)[..., :self.modes]
            ore = (xr[:, :, None] * self.w_re).sum(1) - (xi[:, :, None] * self.w_im).sum(1)
            oim = (xr[:, :, None] * self.w_im).sum(1) + (xi[:, :, None] * self.w_re).sum(1)
            pad = n // 2 + 1 - self.modes
            out = self.complex(ops.pad(ore, (0, pad)), ops.pad(oim, (0, pad)))
            return self.gelu(ops.irfft(out, n=n) + self.w(x))

    return FNOLayer()


ENTRIES = [
    entry("h20b_port_fno1d_spectral_conv_irfft_norm_ortho_dropped", FAM,
          "model:neuraloperator SpectralConv1d (norm='ortho') vs mindflow-style port; probe:ops.irfft norm",
          fno1d_torch, lambda: _fno1d_ms(False), lambda: _fno1d_ms(True), ["spec"],
          ["irfft|norm|ortho"], inputs={"x": uniform(2, 16, 2)},
          cause_pattern=r"\bnorm\b[^.]*\bortho\b|\bortho\b[^.]*\b(irfft|norm)\b"),
    entry("h20b_port_fno2d_spectral_conv_irfft2_output_size_dropped", FAM,
          "model:neuraloperator SpectralConv2d irfft2(s=...) vs port; probe:ops.irfft2 odd width",
          fno2d_torch, lambda: _fno2d_ms(False), lambda: _fno2d_ms(True), ["spec"],
          ["irfft2|s"], inputs={"x": uniform(2, 2, 6, 7)}, fails_with="shape",
          cause_pattern=r"\birfft2\b[^.]*\bs\s*=|\bs\s*=\s*\(\s*h\s*,\s*w\s*\)|\birfft2?\b[^.]*\b(output size|signal size|odd)\b"),
    entry("h20b_port_mindaudio_mfcc_head_create_dct_default_norm", FAM,
          "model:torchaudio MFCC (create_dct norm='ortho') vs mindspore.dataset.audio.create_dct",
          mfcc_torch, lambda: _mfcc_ms(False), lambda: _mfcc_ms(True), ["<root>"],
          ["create_dct|norm|ortho"], inputs={"mel": uniform(2, 5, 8, low=0.1, high=1.0)},
          cause_pattern=r"\bcreate_dct\b[^.]*\b(ortho|normmode)\b|\bnorm(mode)?\b[^.]*\bortho\b"),
    entry("h20b_port_nerf_positional_encoding_ops_logspace_default_base", FAM,
          "model:NeRF get_embedder (2.**linspace log sampling) vs ops.logspace; probe:ops.logspace base",
          nerf_torch, lambda: _nerf_ms(False), lambda: _nerf_ms(True), ["<root>"],
          ["logspace|base"], inputs={"x": uniform(6, 3)},
          cause_pattern=r"\blogspace\b[^.]*\bbase\b|\bbase\s*=\s*2\b|\bbase\b[^.]*\b(2|10)\b"),
    entry("h20b_port_stft_front_end_numpy_hanning_symmetric_window", FAM,
          "model:torch.stft with torch.hann_window (periodic) vs np.hanning window in ops.stft port",
          stft_front_torch, lambda: _stft_front_ms(False), lambda: _stft_front_ms(True), ["<root>"],
          ["hann|periodic|symmetric|window"], inputs={"wav": uniform(2, 48)},
          cause_pattern=r"\bperiodic\b[^.]*\bwindow\b|\bwindow\b[^.]*\bperiodic\b|\bsymmetric\b[^.]*\bwindow\b|\bhanning\b[^.]*\b(n_fft\s*\+\s*1|17)\b"),
    entry("h20b_port_slaney_mel_head_melscale_fbanks_default_mel_type", FAM,
          "model:torchaudio melscale_fbanks(norm='slaney', mel_scale='slaney') vs mindspore.dataset.audio",
          mel_torch, lambda: _mel_ms(False), lambda: _mel_ms(True), ["<root>"],
          ["mel_type|mel_scale|slaney|htk"], inputs={"power": uniform(2, 3, 33, low=0.0, high=1.0)},
          cause_pattern=r"\bmel_?type\b[^.]*\bslaney\b|\bmel_scale\b[^.]*\bslaney\b|\bmeltype\.slaney\b|\bhtk\b[^.]*\bslaney\b"),
    entry("h20b_port_sinc_resampler_conv1d_default_same_pad_mode", FAM,
          "model:torchaudio sinc resample (pad + strided conv1d) vs nn.Conv1d port; Conv1d.md",
          resample_torch, lambda: _resample_ms(False), lambda: _resample_ms(True), ["conv"],
          ["pad_mode|valid|same"], inputs={"wav": uniform(2, 30)},
          cause_pattern=r"\bpad_mode\b[^.]*\bvalid\b|\bvalid\b[^.]*\bpad_mode\b"),
    entry("h20b_port_fno_layer_bypass_conv1d_has_bias_default", FAM,
          "model:FNO1d w0 = nn.Conv1d(width, width, 1) vs mindspore nn.Conv1d; Conv1d.md",
          fno_layer_torch, lambda: _fno_layer_ms(False), lambda: _fno_layer_ms(True), ["w"],
          ["has_bias|bias"], inputs={"x": uniform(2, 3, 10)}, fails_with="structure",
          cause_pattern=r"\bhas_bias\s*=\s*true\b|\bhas_bias\b[^.]*\b(true|default)\b"),
]
