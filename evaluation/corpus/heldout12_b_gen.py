"""Held-out set 12, half b: generative-model blocks (written blind; family "h12-port")."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform


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
# P1: latent-diffusion / VAE mid attention block (GroupNorm eps=1e-6)
# ---------------------------------------------------------------------------------------------------------------

def ldm_attn_torch():
    torch, tnn, F = _t()

    class AttnBlock(tnn.Module):
        def __init__(self, c=4):
            super().__init__()
            self.norm = tnn.GroupNorm(num_groups=2, num_channels=c, eps=1e-6, affine=True)
            self.q = tnn.Conv2d(c, c, 1)
            self.k = tnn.Conv2d(c, c, 1)
            self.v = tnn.Conv2d(c, c, 1)
            self.proj_out = tnn.Conv2d(c, c, 1)

        def forward(self, x):
            h = self.norm(x)
            q, k, v = self.q(h), self.k(h), self.v(h)
            b, c, hh, ww = q.shape
            q = q.reshape(b, c, hh * ww).permute(0, 2, 1)
            k = k.reshape(b, c, hh * ww)
            w = torch.bmm(q, k) * (int(c) ** (-0.5))
            w = F.softmax(w, dim=2)
            v = v.reshape(b, c, hh * ww)
            h = torch.bmm(v, w.permute(0, 2, 1)).reshape(b, c, hh, ww)
            return x + self.proj_out(h)

    return AttnBlock()


def _ldm_attn_ms(eps):
    ms, mnn, mops = _m()

    class AttnBlock(mnn.Cell):
        def __init__(self, c=4):
            super().__init__()
            if eps is None:
                self.norm = mnn.GroupNorm(2, c)
            else:
                self.norm = mnn.GroupNorm(2, c, eps=eps)
            self.q = mnn.Conv2d(c, c, 1, has_bias=True)
            self.k = mnn.Conv2d(c, c, 1, has_bias=True)
            self.v = mnn.Conv2d(c, c, 1, has_bias=True)
            self.proj_out = mnn.Conv2d(c, c, 1, has_bias=True)

        def construct(self, x):
            h = self.norm(x)
            q, k, v = self.q(h), self.k(h), self.v(h)
            b, c, hh, ww = q.shape
            q = q.reshape(b, c, hh * ww).transpose(0, 2, 1)
            k = k.reshape(b, c, hh * ww)
            w = mops.bmm(q, k) * (int(c) ** (-0.5))
            w = mops.softmax(w, axis=2)
            v = v.reshape(b, c, hh * ww)
            h = mops.bmm(v, w.transpose(0, 2, 1)).reshape(b, c, hh, ww)
            return x + self.proj_out(h)

    return AttnBlock()


# ---------------------------------------------------------------------------------------------------------------
# P2: DiT TimestepEmbedder (cos half first)
# ---------------------------------------------------------------------------------------------------------------

def dit_temb_torch():
    torch, tnn, F = _t()

    class Sinusoid(tnn.Module):
        def __init__(self, dim=6, max_period=10000):
            super().__init__()
            self.dim, self.max_period = dim, max_period

        def forward(self, t):
            half = self.dim // 2
            freqs = torch.exp(-math.log(self.max_period) * torch.arange(half, dtype=torch.float32) / half)
            args = t[:, None].float() * freqs[None]
            return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    class TimestepEmbedder(tnn.Module):
        def __init__(self, hidden=8, freq=6):
            super().__init__()
            self.t_freq = Sinusoid(freq)
            self.mlp = tnn.Sequential(tnn.Linear(freq, hidden), tnn.SiLU(), tnn.Linear(hidden, hidden))

        def forward(self, t):
            return self.mlp(self.t_freq(t))

    return TimestepEmbedder()


def _dit_temb_ms(cos_first):
    ms, mnn, mops = _m()

    class Sinusoid(mnn.Cell):
        def __init__(self, dim=6, max_period=10000):
            super().__init__()
            self.dim, self.max_period = dim, max_period

        def construct(self, t):
            half = self.dim // 2
            freqs = mops.exp(-math.log(self.max_period) * mops.arange(0, half, dtype=ms.float32) / half)
            args = t[:, None].astype(ms.float32) * freqs[None]
            if cos_first:
                return mops.cat((mops.cos(args), mops.sin(args)), axis=-1)
            return mops.cat((mops.sin(args), mops.cos(args)), axis=-1)

    class TimestepEmbedder(mnn.Cell):
        def __init__(self, hidden=8, freq=6):
            super().__init__()
            self.t_freq = Sinusoid(freq)
            self.mlp = mnn.SequentialCell([mnn.Dense(freq, hidden), mnn.SiLU(), mnn.Dense(hidden, hidden)])

        def construct(self, t):
            return self.mlp(self.t_freq(t))

    return TimestepEmbedder()


# ---------------------------------------------------------------------------------------------------------------
# P7: diffusers UNet time projection (Timesteps with freq_shift=0, flip_sin_to_cos=True) + TimestepEmbedding
# ---------------------------------------------------------------------------------------------------------------

def unet_time_torch():
    torch, tnn, F = _t()

    class Timesteps(tnn.Module):
        def __init__(self, num_channels=8, flip_sin_to_cos=True, downscale_freq_shift=0.0):
            super().__init__()
            self.num_channels, self.flip, self.shift = num_channels, flip_sin_to_cos, downscale_freq_shift

        def forward(self, timesteps):
            half = self.num_channels // 2
            exponent = -math.log(10000) * torch.arange(half, dtype=torch.float32) / (half - self.shift)
            emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
            emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
            if self.flip:
                emb = torch.cat([emb[:, half:], emb[:, :half]], dim=-1)
            return emb

    class TimestepEmbedding(tnn.Module):
        def __init__(self, cin=8, dim=8):
            super().__init__()
            self.linear_1 = tnn.Linear(cin, dim)
            self.act = tnn.SiLU()
            self.linear_2 = tnn.Linear(dim, dim)

        def forward(self, x):
            return self.linear_2(self.act(self.linear_1(x)))

    class UNetTime(tnn.Module):
        def __init__(self):
            super().__init__()
            self.time_proj = Timesteps(8, True, 0.0)
            self.time_embedding = TimestepEmbedding(8, 8)

        def forward(self, t):
            return self.time_embedding(self.time_proj(t))

    return UNetTime()


def _unet_time_ms(shift):
    ms, mnn, mops = _m()

    class Timesteps(mnn.Cell):
        def __init__(self, num_channels=8, flip_sin_to_cos=True, downscale_freq_shift=1.0):
            super().__init__()
            self.num_channels, self.flip, self.shift = num_channels, flip_sin_to_cos, downscale_freq_shift

        def construct(self, timesteps):
            half = self.num_channels // 2
            exponent = -math.log(10000) * mops.arange(0, half, dtype=ms.float32) / (half - self.shift)
            emb = timesteps[:, None].astype(ms.float32) * mops.exp(exponent)[None, :]
            emb = mops.cat((mops.sin(emb), mops.cos(emb)), axis=-1)
            if self.flip:
                emb = mops.cat((emb[:, half:], emb[:, :half]), axis=-1)
            return emb

    class TimestepEmbedding(mnn.Cell):
        def __init__(self, cin=8, dim=8):
            super().__init__()
            self.linear_1 = mnn.Dense(cin, dim)
            self.act = mnn.SiLU()
            self.linear_2 = mnn.Dense(dim, dim)

        def construct(self, x):
            return self.linear_2(self.act(self.linear_1(x)))

    class UNetTime(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.time_proj = Timesteps(8, True) if shift is None else Timesteps(8, True, downscale_freq_shift=shift)
            self.time_embedding = TimestepEmbedding(8, 8)

        def construct(self, t):
            return self.time_embedding(self.time_proj(t))

    return UNetTime()


ENTRIES = [
    entry("h12b_port_ldm_attnblock_groupnorm_eps_dropped", "h12-port",
          "model:CompVis latent-diffusion AttnBlock (mindone ldm port)",
          ldm_attn_torch, lambda: _ldm_attn_ms(None), lambda: _ldm_attn_ms(1e-6),
          ("norm",), ("groupnorm|eps|epsilon|1e-6",),
          inputs={"x": uniform(2, 4, 3, 3, low=-0.003, high=0.003)},
          cause_pattern=r"\beps(ilon)?\b[^.]*\b1e-0?6\b|\b1e-0?6\b[^.]*\beps(ilon)?\b"),
    entry("h12b_port_dit_timestep_embedder_cos_half_first", "h12-port",
          "model:facebookresearch DiT TimestepEmbedder (mindone dit port)",
          dit_temb_torch, lambda: _dit_temb_ms(False), lambda: _dit_temb_ms(True),
          ("t_freq",), ("sin|cos|order|flip_sin_to_cos",),
          inputs={"t": given(np.array([0.0, 3.0, 10.0, 40.0], dtype=np.float32))},
          cause_pattern=(r"\bflip_sin_to_cos\b|\bcos\w*\b[^.]*\b(first|before|precede\w*)\b|"
                         r"\b(order|swap\w*|revers\w*|halves)\b[^.]*\b(sin|cos)\w*|"
                         r"\b(sin|cos)\w*\b[^.]*\b(order|swap\w*|revers\w*)\b|"
                         r"cos\w*(\(\w*\))?\s*,\s*(ops\.|torch\.|mops\.)?sin")),
    entry("h12b_port_unet_timesteps_downscale_freq_shift", "h12-port",
          "model:diffusers UNet2DConditionModel Timesteps(freq_shift=0) (mindone diffusers port)",
          unet_time_torch, lambda: _unet_time_ms(None), lambda: _unet_time_ms(0.0),
          ("time_proj",), ("downscale_freq_shift|freq_shift|exponent",),
          inputs={"t": given(np.array([1.0, 5.0, 20.0, 50.0], dtype=np.float32))},
          cause_pattern=(r"\b(downscale_)?freq_shift\b[^.]*\b0(\.0)?\b|\bhalf(_dim)?\s*-\s*1\b|"
                         r"\b(downscale_)?freq_shift\b[^.]*\bdefault\w*\b")),
]
