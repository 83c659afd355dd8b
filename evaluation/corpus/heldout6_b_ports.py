"""Held-out set 6, half b: model blocks (family h6-port), each a small torch original written after a public
architecture and a MindSpore port in the style of the public ports (mindnlp, mindcv, mindspore-ai/models), with
one realistic porting mistake in the naive port. Written blind to migcheck's localization, mapping, judging and
running code."""
from __future__ import annotations

import math

import numpy as np

from migcheck import given, integers, uniform
from evaluation.corpus.build import entry


# --- GPT-2 attention: HF Conv1D keeps its weight as (in, out); c_proj ported as nn.Dense --------------------

E, HEADS = 8, 2


def _torch_gpt2_attn():
    import torch

    class Conv1D(torch.nn.Module):
        def __init__(self, nf, nx):
            super().__init__()
            self.nf = nf
            self.weight = torch.nn.Parameter(torch.randn(nx, nf) * 0.02)
            self.bias = torch.nn.Parameter(torch.zeros(nf))

        def forward(self, x):
            shape = x.size()[:-1] + (self.nf,)
            return torch.addmm(self.bias, x.reshape(-1, x.size(-1)), self.weight).view(shape)

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = Conv1D(3 * E, E)
            self.c_proj = Conv1D(E, E)

        def _heads(self, t):
            b, n, _ = t.shape
            return t.view(b, n, HEADS, E // HEADS).permute(0, 2, 1, 3)

        def forward(self, x):
            q, k, v = self.c_attn(x).split(E, dim=2)
            q, k, v = self._heads(q), self._heads(k), self._heads(v)
            w = q @ k.transpose(-1, -2) / math.sqrt(E // HEADS)
            n = x.shape[1]
            causal = torch.tril(torch.ones(n, n, dtype=torch.bool))
            w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
            a = torch.softmax(w, dim=-1) @ v
            a = a.permute(0, 2, 1, 3).reshape(x.shape[0], n, E)
            return self.c_proj(a)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = torch.nn.LayerNorm(E)
            self.attn = Attention()

        def forward(self, x):
            return x + self.attn(self.ln_1(x))

    return Block()


def _ms_gpt2_attn(proj_as_dense):
    def make():
        import mindspore as ms
        from mindspore import nn, ops, Parameter, Tensor

        class Conv1D(nn.Cell):
            def __init__(self, nf, nx):
                super().__init__()
                self.weight = Parameter(Tensor(np.random.normal(0, 0.02, (nx, nf)).astype(np.float32)), name="weight")
                self.bias = Parameter(Tensor(np.zeros(nf, np.float32)), name="bias")

            def construct(self, x):
                return ops.matmul(x, self.weight) + self.bias

        class Attention(nn.Cell):
            def __init__(self):
                super().__init__()
                self.c_attn = Conv1D(3 * E, E)
                self.c_proj = nn.Dense(E, E) if proj_as_dense else Conv1D(E, E)
                self.scale = 1.0 / math.sqrt(E // HEADS)

            def _heads(self, t):
                b, n, _ = t.shape
                return t.view(b, n, HEADS, E // HEADS).transpose(0, 2, 1, 3)

            def construct(self, x):
                q, k, v = ops.split(self.c_attn(x), E, axis=2)
                q, k, v = self._heads(q), self._heads(k), self._heads(v)
                w = ops.matmul(q, k.swapaxes(-1, -2)) * self.scale
                n = x.shape[1]
                causal = ops.tril(ops.ones((n, n), ms.float32)).astype(ms.bool_)
                w = ops.where(causal, w, ops.full_like(w, float(np.finfo(np.float32).min)))
                a = ops.matmul(ops.softmax(w, axis=-1), v)
                a = a.transpose(0, 2, 1, 3).reshape(x.shape[0], n, E)
                return self.c_proj(a)

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.ln_1 = nn.LayerNorm((E,), epsilon=1e-5)
                self.attn = Attention()

            def construct(self, x):
                return x + self.attn(self.ln_1(x))

        return Block()
    return make


# --- YOLOv5 Focus: four strided slices concatenated, ported as SpaceToDepth --------------------------------

def _torch_focus():
    import torch

    class ConvBNSiLU(torch.nn.Module):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = torch.nn.Conv2d(c1, c2, 1, 1, 0, bias=False)
            self.bn = torch.nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
            self.act = torch.nn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Focus(torch.nn.Module):
        def __init__(self, c1, c2):
            super().__init__()
            self.conv = ConvBNSiLU(c1 * 4, c2)

        def forward(self, x):
            return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))

    class Stem(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.focus = Focus(3, 8)
            self.head = torch.nn.Conv2d(8, 4, 1)

        def forward(self, x):
            return self.head(self.focus(x))

    return Stem()


def _ms_focus(space_to_depth):
    def make():
        from mindspore import nn, ops

        class ConvBNSiLU(nn.Cell):
            def __init__(self, c1, c2):
                super().__init__()
                self.conv = nn.Conv2d(c1, c2, 1, 1, pad_mode="valid", has_bias=False)
                self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.97)
                self.act = nn.SiLU()

            def construct(self, x):
                return self.act(self.bn(self.conv(x)))

        class Focus(nn.Cell):
            def __init__(self, c1, c2):
                super().__init__()
                self.conv = ConvBNSiLU(c1 * 4, c2)
                self.s2d = ops.SpaceToDepth(2)

            def construct(self, x):
                if space_to_depth:
                    return self.conv(self.s2d(x))
                return self.conv(ops.concat((x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2],
                                             x[..., 1::2, 1::2]), axis=1))

        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                self.focus = Focus(3, 8)
                self.head = nn.Conv2d(8, 4, 1, has_bias=True)

            def construct(self, x):
                return self.head(self.focus(x))

        return Stem()
    return make


# --- EfficientNetV2 FusedMBConv (expand ratio 1): BatchNorm eps=1e-3 dropped ------------------------------

def _torch_fused_mbconv():
    import torch

    class FusedMBConv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3, 1, 1, bias=False),
                                             torch.nn.BatchNorm2d(4, eps=1e-3), torch.nn.SiLU())

        def forward(self, x):
            return x + self.block(x)

    return FusedMBConv()


def _ms_fused_mbconv(eps):
    def make():
        from mindspore import nn

        class FusedMBConv(nn.Cell):
            def __init__(self):
                super().__init__()
                norm = nn.BatchNorm2d(4) if eps is None else nn.BatchNorm2d(4, eps=eps)
                self.block = nn.SequentialCell([nn.Conv2d(4, 4, 3, 1, pad_mode="pad", padding=1, has_bias=False),
                                                norm, nn.SiLU()])

            def construct(self, x):
                return x + self.block(x)

        return FusedMBConv()
    return make


# --- Whisper audio encoder front-end: two convs, GELU, sinusoidal positions --------------------------------

def _sinusoids(length, channels, minus_one=True, max_timescale=10000):
    half = channels // 2
    step = np.log(max_timescale) / (half - 1 if minus_one else half)
    inv = np.exp(-step * np.arange(half))
    t = np.arange(length)[:, None] * inv[None, :]
    return np.concatenate([np.sin(t), np.cos(t)], axis=1).astype(np.float32)


def _torch_whisper():
    import torch
    import torch.nn.functional as F

    class AudioFrontEnd(torch.nn.Module):
        def __init__(self, n_mels=4, n_state=8, n_ctx=8):
            super().__init__()
            self.conv1 = torch.nn.Conv1d(n_mels, n_state, kernel_size=3, padding=1)
            self.conv2 = torch.nn.Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
            self.register_buffer("positional_embedding", torch.from_numpy(_sinusoids(n_ctx, n_state)))

        def forward(self, x):
            x = F.gelu(self.conv1(x))
            x = F.gelu(self.conv2(x))
            x = x.permute(0, 2, 1)
            return x + self.positional_embedding[:x.shape[1]]

    return AudioFrontEnd()


def _ms_whisper(minus_one):
    def make():
        from mindspore import nn, ops, Tensor

        class AudioFrontEnd(nn.Cell):
            def __init__(self, n_mels=4, n_state=8, n_ctx=8):
                super().__init__()
                self.conv1 = nn.Conv1d(n_mels, n_state, 3, pad_mode="pad", padding=1, has_bias=True)
                self.conv2 = nn.Conv1d(n_state, n_state, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
                self.positions = Tensor(_sinusoids(n_ctx, n_state, minus_one=minus_one))

            def construct(self, x):
                x = ops.gelu(self.conv1(x))
                x = ops.gelu(self.conv2(x))
                x = x.transpose(0, 2, 1)
                return x + self.positions[:x.shape[1]]

        return AudioFrontEnd()
    return make


ENTRIES: list = []

ENTRIES += [
    entry("h6b_port_gpt2_attention_c_proj_dense_untransposed", "h6-port",
          "model: GPT-2 attention (HF Conv1D, weight stored (in, out)); MindSpore ports (mindnlp gpt2) keep a Conv1D "
          "cell with ops.matmul(x, weight)",
          _torch_gpt2_attn, _ms_gpt2_attn(True), _ms_gpt2_attn(False),
          ("attn.c_proj",), ("transpose|Conv1D|Dense",), inputs={"x": uniform(2, 5, E)},
          cause_pattern=r"\btranspos\w*\b.{0,160}\b(weight|c_proj|Conv1D|Dense|matmul)\b"
                        r"|\b(weight|c_proj|Conv1D|Dense|matmul)\b.{0,160}\btranspos\w*\b|\bConv1D\b"),
    entry("h6b_port_yolov5_focus_space_to_depth_order", "h6-port",
          "model: YOLOv5 Focus (ultralytics/yolov5 models/common.py); MindSpore ops.SpaceToDepth orders the "
          "channels (row offset, column offset, channel), Focus concatenates (0,0), (1,0), (0,1), (1,1)",
          _torch_focus, _ms_focus(True), _ms_focus(False),
          ("focus",), ("SpaceToDepth|slice order",), inputs={"x": uniform(2, 3, 6, 6)},
          cause_pattern=r"\bspace[_ ]?to[_ ]?depth\b|\bpixel_unshuffle\b"
                        r"|\b(slice|slices|slicing)\b.{0,160}\border\b|\border\b.{0,160}\b(slice|slices|slicing)\b"),
    entry("h6b_port_efficientnetv2_fused_mbconv_bn_eps", "h6-port",
          "model: EfficientNetV2 FusedMBConv (torchvision efficientnet_v2: BatchNorm2d eps=1e-3); "
          "mindspore.nn.BatchNorm2d's eps defaults to 1e-5",
          _torch_fused_mbconv, _ms_fused_mbconv(None), _ms_fused_mbconv(1e-3),
          ("block.1",), ("eps|epsilon",), inputs={"x": uniform(2, 4, 5, 5)},
          cause_pattern=r"\b(eps|epsilon)\b.{0,60}(\b1e-0?3\b|\b0\.001\b)"),
    entry("h6b_port_whisper_frontend_sinusoid_timescale", "h6-port",
          "model: Whisper audio encoder front-end (openai/whisper model.py sinusoids: log(10000) / (channels // 2 - 1)); "
          "the port recomputes the table with the Transformer paper's log(10000) / (channels // 2)",
          _torch_whisper, _ms_whisper(False), _ms_whisper(True),
          ("after:conv2",), ("sinusoid|positional_embedding|timescale",), inputs={"x": uniform(2, 4, 16)},
          weight_map={"positional_embedding": None},
          cause_pattern=r"\b(sinusoids?|sinusoidal|positional[_ ]embeddings?|log_timescale_increment|timescales?"
                        r"|inv_timescales|max_timescale)\b"),
]
