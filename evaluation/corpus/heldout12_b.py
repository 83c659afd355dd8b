"""Held-out set 12, half b: small vision / generative / graph blocks and a few single-API entries.

Written blind (without reading the localization code). Each entry: a torch original, a naive MindSpore port with
ONE porting mistake, and the correct port. Family "h12" for single-API entries, "h12-port" for model blocks.
"""
from __future__ import annotations

import math

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
# P3: dense multi-head GAT layer, scores laid out (target, source, head)
# ---------------------------------------------------------------------------------------------------------------

ADJ = np.array([[1, 1, 0, 0, 1],
                [1, 1, 1, 0, 0],
                [0, 1, 1, 1, 0],
                [0, 0, 1, 1, 1],
                [1, 0, 1, 1, 1]], dtype=np.float32)


def gat_torch():
    torch, tnn, F = _t()

    class DenseGAT(tnn.Module):
        def __init__(self, fin=5, fout=3, heads=2):
            super().__init__()
            self.heads, self.fout = heads, fout
            self.fc = tnn.Linear(fin, fout * heads, bias=False)
            self.attn_src = tnn.Parameter(torch.randn(heads, fout) * 0.5)
            self.attn_dst = tnn.Parameter(torch.randn(heads, fout) * 0.5)
            self.leaky = tnn.LeakyReLU(0.2)
            self.out = tnn.Linear(fout * heads, 4)

        def forward(self, x, adj):
            n = x.shape[0]
            h = self.fc(x).view(n, self.heads, self.fout)
            a_s = (h * self.attn_src).sum(-1)
            a_d = (h * self.attn_dst).sum(-1)
            e = self.leaky(a_d[:, None, :] + a_s[None, :, :])          # (target, source, head)
            e = e.masked_fill(adj[:, :, None] == 0, -1e9)
            alpha = F.softmax(e, dim=1)                                  # over each target's neighbours
            agg = torch.matmul(alpha.permute(2, 0, 1), h.permute(1, 0, 2))  # (head, target, fout)
            agg = agg.permute(1, 0, 2).reshape(n, self.heads * self.fout)
            return self.out(F.elu(agg))

    return DenseGAT()


def _gat_ms(axis_given):
    ms, mnn, mops = _m()

    class DenseGAT(mnn.Cell):
        def __init__(self, fin=5, fout=3, heads=2):
            super().__init__()
            self.heads, self.fout = heads, fout
            self.fc = mnn.Dense(fin, fout * heads, has_bias=False)
            self.attn_src = ms.Parameter(ms.Tensor(np.zeros((heads, fout), np.float32)), name="attn_src")
            self.attn_dst = ms.Parameter(ms.Tensor(np.zeros((heads, fout), np.float32)), name="attn_dst")
            self.leaky = mnn.LeakyReLU(0.2)
            self.out = mnn.Dense(fout * heads, 4)

        def construct(self, x, adj):
            n = x.shape[0]
            h = self.fc(x).view(n, self.heads, self.fout)
            a_s = (h * self.attn_src).sum(-1)
            a_d = (h * self.attn_dst).sum(-1)
            e = self.leaky(a_d[:, None, :] + a_s[None, :, :])
            e = mops.masked_fill(e, (adj == 0)[:, :, None], -1e9)
            if axis_given:
                alpha = mops.softmax(e, axis=1)
            else:
                alpha = mops.softmax(e)
            agg = mops.matmul(alpha.transpose(2, 0, 1), h.transpose(1, 0, 2))
            agg = agg.transpose(1, 0, 2).reshape(n, self.heads * self.fout)
            return self.out(mops.elu(agg))

    return DenseGAT()


# ---------------------------------------------------------------------------------------------------------------
# P4: torchvision-style DenseNet dense layer (functional dropout)
# ---------------------------------------------------------------------------------------------------------------

def dense_layer_torch():
    torch, tnn, F = _t()

    class DenseLayer(tnn.Module):
        def __init__(self, cin=4, growth=2, bn_size=4, drop_rate=0.5):
            super().__init__()
            self.norm1 = tnn.BatchNorm2d(cin)
            self.relu1 = tnn.ReLU()
            self.conv1 = tnn.Conv2d(cin, bn_size * growth, 1, bias=False)
            self.norm2 = tnn.BatchNorm2d(bn_size * growth)
            self.relu2 = tnn.ReLU()
            self.conv2 = tnn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)
            self.drop_rate = drop_rate

        def forward(self, x):
            out = self.conv1(self.relu1(self.norm1(x)))
            new = self.conv2(self.relu2(self.norm2(out)))
            new = F.dropout(new, p=self.drop_rate, training=self.training)
            return torch.cat([x, new], 1)

    return DenseLayer()


def _dense_layer_ms(pass_training):
    ms, mnn, mops = _m()

    class DenseLayer(mnn.Cell):
        def __init__(self, cin=4, growth=2, bn_size=4, drop_rate=0.5):
            super().__init__()
            self.norm1 = mnn.BatchNorm2d(cin)
            self.relu1 = mnn.ReLU()
            self.conv1 = mnn.Conv2d(cin, bn_size * growth, 1, has_bias=False)
            self.norm2 = mnn.BatchNorm2d(bn_size * growth)
            self.relu2 = mnn.ReLU()
            self.conv2 = mnn.Conv2d(bn_size * growth, growth, 3, pad_mode="pad", padding=1, has_bias=False)
            self.drop_rate = drop_rate

        def construct(self, x):
            out = self.conv1(self.relu1(self.norm1(x)))
            new = self.conv2(self.relu2(self.norm2(out)))
            if pass_training:
                new = mops.dropout(new, p=self.drop_rate, training=self.training)
            else:
                new = mops.dropout(new, p=self.drop_rate)
            return mops.cat((x, new), 1)

    return DenseLayer()


# ---------------------------------------------------------------------------------------------------------------
# P5: PointNet input transform (T-net, k=3): identity added to the regressed matrix
# ---------------------------------------------------------------------------------------------------------------

def tnet_torch():
    torch, tnn, F = _t()

    class STN3d(tnn.Module):
        def __init__(self, width=8):
            super().__init__()
            self.conv1 = tnn.Conv1d(3, width, 1)
            self.fc1 = tnn.Linear(width, 9)

        def forward(self, pts):
            b = pts.shape[0]
            x = F.relu(self.conv1(pts))
            x = torch.max(x, 2)[0]
            x = self.fc1(x)
            iden = torch.eye(3, dtype=torch.float32).view(1, 9).repeat(b, 1)
            trans = (x + iden).view(b, 3, 3)
            return torch.bmm(pts.transpose(2, 1), trans)

    return STN3d()


def _tnet_ms(use_tile):
    ms, mnn, mops = _m()

    class STN3d(mnn.Cell):
        def __init__(self, width=8):
            super().__init__()
            self.conv1 = mnn.Conv1d(3, width, 1, has_bias=True, pad_mode="valid")
            self.fc1 = mnn.Dense(width, 9)

        def construct(self, pts):
            b = pts.shape[0]
            x = mops.relu(self.conv1(pts))
            x = mops.amax(x, 2)
            x = self.fc1(x)
            iden = mops.eye(3, 3, ms.float32).view(1, 9)
            iden = mops.tile(iden, (b, 1)) if use_tile else iden.repeat(b, 1)
            trans = (x + iden).view(b, 3, 3)
            return mops.bmm(pts.transpose(0, 2, 1), trans)

    return STN3d()


# ---------------------------------------------------------------------------------------------------------------
# P6: GIN-style layer, sum aggregation of neighbour messages by scatter
# ---------------------------------------------------------------------------------------------------------------

SRC = np.array([0, 1, 2, 3, 4, 1, 2, 0], dtype=np.int64)
DST = np.array([1, 0, 1, 2, 3, 4, 4, 4], dtype=np.int64)


def gin_torch():
    torch, tnn, F = _t()

    class GINLayer(tnn.Module):
        def __init__(self, fin=4, hidden=6):
            super().__init__()
            self.lin = tnn.Linear(fin, hidden)
            self.eps = tnn.Parameter(torch.tensor([0.1]))
            self.mlp = tnn.Sequential(tnn.Linear(hidden, hidden), tnn.ReLU(), tnn.Linear(hidden, 3))

        def forward(self, x, src, dst):
            h = self.lin(x)
            msg = h[src]
            index = dst[:, None].expand(-1, h.shape[1])
            agg = torch.zeros_like(h).scatter_add(0, index, msg)
            return self.mlp((1 + self.eps) * h + agg)

    return GINLayer()


def _gin_ms(reduce_add):
    ms, mnn, mops = _m()

    class GINLayer(mnn.Cell):
        def __init__(self, fin=4, hidden=6):
            super().__init__()
            self.lin = mnn.Dense(fin, hidden)
            self.eps = ms.Parameter(ms.Tensor([0.1], ms.float32), name="eps")
            self.mlp = mnn.SequentialCell([mnn.Dense(hidden, hidden), mnn.ReLU(), mnn.Dense(hidden, 3)])

        def construct(self, x, src, dst):
            h = self.lin(x)
            msg = mops.gather(h, src, 0)
            index = mops.broadcast_to(dst[:, None], (dst.shape[0], h.shape[1]))
            if reduce_add:
                agg = mops.tensor_scatter_elements(mops.zeros_like(h), index, msg, axis=0, reduction="add")
            else:
                agg = mops.tensor_scatter_elements(mops.zeros_like(h), index, msg, axis=0)
            return self.mlp((1 + self.eps) * h + agg)

    return GINLayer()


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


# ---------------------------------------------------------------------------------------------------------------
# P8: ENet-style regular bottleneck with spatial (channel) dropout before the residual add
# ---------------------------------------------------------------------------------------------------------------

def enet_torch():
    torch, tnn, F = _t()

    class Bottleneck(tnn.Module):
        def __init__(self, c=4, internal=2, p=0.5):
            super().__init__()
            self.conv1 = tnn.Conv2d(c, internal, 1, bias=False)
            self.bn1 = tnn.BatchNorm2d(internal)
            self.conv2 = tnn.Conv2d(internal, internal, 3, padding=1, bias=False)
            self.bn2 = tnn.BatchNorm2d(internal)
            self.conv3 = tnn.Conv2d(internal, c, 1, bias=False)
            self.bn3 = tnn.BatchNorm2d(c)
            self.p = p

        def forward(self, x):
            h = F.relu(self.bn1(self.conv1(x)))
            h = F.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            h = F.dropout2d(h, p=self.p, training=self.training)
            return F.relu(x + h)

    return Bottleneck()


def _enet_ms(pass_training):
    ms, mnn, mops = _m()

    class Bottleneck(mnn.Cell):
        def __init__(self, c=4, internal=2, p=0.5):
            super().__init__()
            self.conv1 = mnn.Conv2d(c, internal, 1, has_bias=False)
            self.bn1 = mnn.BatchNorm2d(internal)
            self.conv2 = mnn.Conv2d(internal, internal, 3, pad_mode="pad", padding=1, has_bias=False)
            self.bn2 = mnn.BatchNorm2d(internal)
            self.conv3 = mnn.Conv2d(internal, c, 1, has_bias=False)
            self.bn3 = mnn.BatchNorm2d(c)
            self.p = p

        def construct(self, x):
            h = mops.relu(self.bn1(self.conv1(x)))
            h = mops.relu(self.bn2(self.conv2(h)))
            h = self.bn3(self.conv3(h))
            if pass_training:
                h = mops.dropout2d(h, p=self.p, training=self.training)
            else:
                h = mops.dropout2d(h, p=self.p)
            return mops.relu(x + h)

    return Bottleneck()


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
    entry("h12b_port_dense_gat_softmax_over_neighbours_default_axis", "h12-port",
          "model:pyGAT / PyG GATConv dense multi-head layer (mindspore_gl GATConv port)",
          gat_torch, lambda: _gat_ms(False), lambda: _gat_ms(True),
          ("after:leaky",), ("softmax|axis|dim",),
          inputs={"x": uniform(5, 5), "adj": given(ADJ)},
          cause_pattern=r"\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\s+1\b|\bsoftmax\b[^.]*\b(axis|dim)\b[^.]*\b1\b"),
    entry("h12b_port_densenet_dense_layer_ops_dropout_training_default", "h12-port",
          "model:torchvision densenet _DenseLayer (mindcv densenet port)",
          dense_layer_torch, lambda: _dense_layer_ms(False), lambda: _dense_layer_ms(True),
          ("after:conv2",), ("dropout|training",),
          inputs={"x": uniform(2, 4, 3, 3)},
          cause_pattern=(r"\btraining\s*=\s*(self\.training|False)\b|\bself\.training\b|"
                         r"\btraining\b[^.]*\bdefault\w*\b[^.]*\bTrue\b|\bdefault\w*\b[^.]*\btraining\s*=\s*True\b")),
    entry("h12b_port_pointnet_tnet_identity_tensor_repeat_raises", "h12-port",
          "model:fxia22 pointnet.pytorch STN3d (mindspore-ai/models pointnet port)",
          tnet_torch, lambda: _tnet_ms(False), lambda: _tnet_ms(True),
          ("after:fc1",), ("repeat|tile",),
          inputs={"pts": uniform(2, 3, 6)}, fails_with="error",
          cause_pattern=r"\b(ops\.)?tile\b|\bbroadcast_to\b|\brepeat\b[^.]*\b(CPU|device|supported|kernel)\b"),
    entry("h12b_port_gin_scatter_sum_tensor_scatter_elements_reduction", "h12-port",
          "model:PyG GINConv sum aggregation (mindspore_gl GINConv port)",
          gin_torch, lambda: _gin_ms(False), lambda: _gin_ms(True),
          ("after:lin",), ("scatter|reduction|add",),
          inputs={"x": uniform(5, 4), "src": given(SRC), "dst": given(DST)},
          cause_pattern=(r"\breduction\b[^.]*\b(add|sum)\b|\b(scatter_add|index_add|unsorted_segment_sum|"
                         r"tensor_scatter_add)\b")),
    entry("h12b_port_unet_timesteps_downscale_freq_shift", "h12-port",
          "model:diffusers UNet2DConditionModel Timesteps(freq_shift=0) (mindone diffusers port)",
          unet_time_torch, lambda: _unet_time_ms(None), lambda: _unet_time_ms(0.0),
          ("time_proj",), ("downscale_freq_shift|freq_shift|exponent",),
          inputs={"t": given(np.array([1.0, 5.0, 20.0, 50.0], dtype=np.float32))},
          cause_pattern=(r"\b(downscale_)?freq_shift\b[^.]*\b0(\.0)?\b|\bhalf(_dim)?\s*-\s*1\b|"
                         r"\b(downscale_)?freq_shift\b[^.]*\bdefault\w*\b")),
    entry("h12b_port_enet_bottleneck_ops_dropout2d_training_default", "h12-port",
          "model:ENet regular bottleneck (mindspore-ai/models enet port)",
          enet_torch, lambda: _enet_ms(False), lambda: _enet_ms(True),
          ("after:bn3",), ("dropout2d|training",),
          inputs={"x": uniform(2, 4, 3, 3)},
          cause_pattern=(r"\btraining\s*=\s*(self\.training|False)\b|\bself\.training\b|"
                         r"\btraining\b[^.]*\bdefault\w*\b[^.]*\bTrue\b|\bdefault\w*\b[^.]*\btraining\s*=\s*True\b")),
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
                         r"\b(mean|average|midpoint)\b[^.]*\b(lower|upper)\b|\brrelu\b[^.]*\b(eval\w*|training|random\w*)\b|"
                         r"\b(eval\w*|training|random\w*)\b[^.]*\brrelu\b")),
    entry("h12b_leaky_relu_gradient_at_zero", "h12",
          PROBE + "LeakyReLU backward at x == 0",
          lambda: _kink_torch(lambda tnn: tnn.LeakyReLU(0.2)), lambda: _kink_ms(lambda ms, mnn, mops: mnn.LeakyReLU(0.2)),
          lambda: _kink_ms(_where_leaky),
          ("act",), ("leakyrelu|gradient|zero",),
          inputs={"x": given(LEAKY_X)}, checks=("forward", "backward"),
          cause_pattern=(r"(leaky\w*|alpha|slope|negative_slope)\b[^.]*\b(at|of|for)\s+(exactly\s+)?(zero|0(\.0)?)\b|"
                         r"\b(at|of|for)\s+(exactly\s+)?(zero|0(\.0)?)\b[^.]*(leaky\w*|alpha|slope)|\bops\.where\b|\b0\.6\b")),
    entry("h12b_relu6_gradient_at_six", "h12",
          PROBE + "ReLU6 backward at x == 6",
          lambda: _kink_torch(lambda tnn: tnn.ReLU6()), lambda: _kink_ms(lambda ms, mnn, mops: mnn.ReLU6()),
          lambda: _kink_ms(_where_relu6),
          ("act",), ("relu6|gradient|six",),
          inputs={"x": given(RELU6_X)}, checks=("forward", "backward"),
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
