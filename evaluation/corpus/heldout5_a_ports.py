"""Held-out set 5, half a: small model blocks (family "h5-port", names h5a_port_*).

Written from the public architecture descriptions (not copied from any implementation), each ported to
MindSpore with one realistic mistake in the naive port. Written blind like heldout5_a.py.
"""
from __future__ import annotations

import math

from evaluation.corpus.build import entry
from migcheck import uniform

FAMILY = "h5-port"

# --------------------------------------------------------------------------------------------------------------
# Self-attention with rotary position embeddings (RoFormer, as in the GPT-NeoX / LLaMA-HF layout): the head
# dimension is split in two halves, and rotate_half(x) = cat(-x2, x1) pairs dimension i with i + d/2. The naive
# port rotates adjacent (even, odd) pairs, the interleaved layout of the original RoFormer / Meta LLaMA code.

D_MODEL, HEADS = 16, 2
HEAD_DIM = D_MODEL // HEADS


def _rope_torch():
    import torch
    import torch.nn as nn

    class RotaryEmbedding(nn.Module):
        def __init__(self, head_dim, base=10000.0):
            super().__init__()
            self.head_dim = head_dim
            self.base = base

        def forward(self, x):  # x: (batch, heads, seq, head_dim)
            seq = x.shape[-2]
            inv_freq = 1.0 / (self.base ** (torch.arange(0, self.head_dim, 2, dtype=torch.float32) / self.head_dim))
            freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            x1, x2 = x[..., : self.head_dim // 2], x[..., self.head_dim // 2:]
            rotated = torch.cat((-x2, x1), dim=-1)
            return x * emb.cos() + rotated * emb.sin()

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(D_MODEL, D_MODEL)
            self.k_proj = nn.Linear(D_MODEL, D_MODEL)
            self.v_proj = nn.Linear(D_MODEL, D_MODEL)
            self.rope = RotaryEmbedding(HEAD_DIM)
            self.o_proj = nn.Linear(D_MODEL, D_MODEL)

        def forward(self, x):
            b, t, _ = x.shape

            def heads(y):
                return y.view(b, t, HEADS, HEAD_DIM).transpose(1, 2)

            q = self.rope(heads(self.q_proj(x)))
            k = self.rope(heads(self.k_proj(x)))
            v = heads(self.v_proj(x))
            att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(HEAD_DIM), dim=-1)
            out = (att @ v).transpose(1, 2).reshape(b, t, D_MODEL)
            return self.o_proj(out)

    return Attention()


def _rope_ms(interleaved):
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops

    class RotaryEmbedding(nn.Cell):
        def __init__(self, head_dim, base=10000.0):
            super().__init__()
            self.head_dim = head_dim
            self.base = base

        def construct(self, x):
            seq = x.shape[-2]
            inv_freq = 1.0 / (self.base ** (ops.arange(0, self.head_dim, 2, dtype=ms.float32) / self.head_dim))
            freqs = ops.outer(ops.arange(seq, dtype=ms.float32), inv_freq)
            if interleaved:
                cos, sin = ops.cos(freqs), ops.sin(freqs)
                even, odd = x[..., 0::2], x[..., 1::2]
                out = ops.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1)
                return out.reshape(x.shape)
            emb = ops.cat((freqs, freqs), axis=-1)
            x1, x2 = x[..., : self.head_dim // 2], x[..., self.head_dim // 2:]
            rotated = ops.cat((-x2, x1), axis=-1)
            return x * ops.cos(emb) + rotated * ops.sin(emb)

    class Attention(nn.Cell):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Dense(D_MODEL, D_MODEL)
            self.k_proj = nn.Dense(D_MODEL, D_MODEL)
            self.v_proj = nn.Dense(D_MODEL, D_MODEL)
            self.rope = RotaryEmbedding(HEAD_DIM)
            self.o_proj = nn.Dense(D_MODEL, D_MODEL)

        def construct(self, x):
            b, t, _ = x.shape

            def heads(y):
                return y.view(b, t, HEADS, HEAD_DIM).swapaxes(1, 2)

            q = self.rope(heads(self.q_proj(x)))
            k = self.rope(heads(self.k_proj(x)))
            v = heads(self.v_proj(x))
            att = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(HEAD_DIM), axis=-1)
            out = ops.matmul(att, v).swapaxes(1, 2).reshape(b, t, D_MODEL)
            return self.o_proj(out)

    return Attention()


# --------------------------------------------------------------------------------------------------------------
# Temporal Shift Module (TSM) residual block: a fold of channels moves one frame back, another fold one frame
# forward, the rest stays; the frame that has no neighbour gets zeros. The naive port shifts by rotating the
# frames (a roll written with concatenated slices), so the first and last frames wrap around instead.

SEGMENTS, CHANNELS, FOLD_DIV = 4, 8, 4


def _tsm_torch():
    import torch
    import torch.nn as nn

    class TemporalShift(nn.Module):
        def __init__(self, n_segment, fold_div):
            super().__init__()
            self.n_segment = n_segment
            self.fold_div = fold_div

        def forward(self, x):
            nt, c, h, w = x.shape
            x = x.view(nt // self.n_segment, self.n_segment, c, h, w)
            fold = c // self.fold_div
            out = torch.zeros_like(x)
            out[:, :-1, :fold] = x[:, 1:, :fold]
            out[:, 1:, fold:2 * fold] = x[:, :-1, fold:2 * fold]
            out[:, :, 2 * fold:] = x[:, :, 2 * fold:]
            return out.view(nt, c, h, w)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.shift = TemporalShift(SEGMENTS, FOLD_DIV)
            self.conv1 = nn.Conv2d(CHANNELS, CHANNELS, 1)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(CHANNELS, CHANNELS, 1)

        def forward(self, x):
            return self.relu(x + self.conv2(self.relu(self.conv1(self.shift(x)))))

    return Block()


def _tsm_ms(wrap):
    import mindspore.nn as nn
    import mindspore.ops as ops

    class TemporalShift(nn.Cell):
        def __init__(self, n_segment, fold_div):
            super().__init__()
            self.n_segment = n_segment
            self.fold_div = fold_div

        def construct(self, x):
            nt, c, h, w = x.shape
            n = nt // self.n_segment
            x = x.reshape(n, self.n_segment, c, h, w)
            fold = c // self.fold_div
            back, fwd, keep = x[:, :, :fold], x[:, :, fold:2 * fold], x[:, :, 2 * fold:]
            if wrap:
                back = ops.cat((back[:, 1:], back[:, :1]), axis=1)
                fwd = ops.cat((fwd[:, -1:], fwd[:, :-1]), axis=1)
            else:
                zeros = ops.zeros((n, 1, fold, h, w), x.dtype)
                back = ops.cat((back[:, 1:], zeros), axis=1)
                fwd = ops.cat((zeros, fwd[:, :-1]), axis=1)
            return ops.cat((back, fwd, keep), axis=2).reshape(nt, c, h, w)

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.shift = TemporalShift(SEGMENTS, FOLD_DIV)
            self.conv1 = nn.Conv2d(CHANNELS, CHANNELS, 1, has_bias=True)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(CHANNELS, CHANNELS, 1, has_bias=True)

        def construct(self, x):
            return self.relu(x + self.conv2(self.relu(self.conv1(self.shift(x)))))

    return Block()


# --------------------------------------------------------------------------------------------------------------
# DETR's sine positional encoding added to the projected backbone features: for each axis the normalised
# cumulative position is divided by temperature ** (2 * (i // 2) / F), and sin (even i) and cos (odd i) are
# interleaved (stack on a new last axis, then flatten). The naive port concatenates all sines then all cosines.

POS_FEATS = 4


def _detr_torch():
    import torch
    import torch.nn as nn

    class PositionEmbeddingSine(nn.Module):
        def __init__(self, num_pos_feats, temperature=10000.0):
            super().__init__()
            self.num_pos_feats = num_pos_feats
            self.temperature = temperature
            self.scale = 2 * math.pi

        def forward(self, x):
            b, _, h, w = x.shape
            not_mask = torch.ones(b, h, w, dtype=torch.float32)
            y_embed = not_mask.cumsum(1, dtype=torch.float32)
            x_embed = not_mask.cumsum(2, dtype=torch.float32)
            eps = 1e-6
            y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
            dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32)
            dim_t = self.temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / self.num_pos_feats)
            pos_x = x_embed[:, :, :, None] / dim_t
            pos_y = y_embed[:, :, :, None] / dim_t
            pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
            pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
            return torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.input_proj = nn.Conv2d(3, 2 * POS_FEATS, 1)
            self.pos = PositionEmbeddingSine(POS_FEATS)
            self.head = nn.Conv2d(2 * POS_FEATS, 4, 1)

        def forward(self, x):
            src = self.input_proj(x)
            return self.head(src + self.pos(src))

    return Block()


def _detr_ms(concatenated):
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops

    class PositionEmbeddingSine(nn.Cell):
        def __init__(self, num_pos_feats, temperature=10000.0):
            super().__init__()
            self.num_pos_feats = num_pos_feats
            self.temperature = temperature
            self.scale = 2 * math.pi

        def _sin_cos(self, pos):
            sin, cos = ops.sin(pos[:, :, :, 0::2]), ops.cos(pos[:, :, :, 1::2])
            if concatenated:
                return ops.cat((sin, cos), axis=3)
            return ops.stack((sin, cos), axis=4).flatten(start_dim=3)

        def construct(self, x):
            b, _, h, w = x.shape
            not_mask = ops.ones((b, h, w), ms.float32)
            y_embed = ops.cumsum(not_mask, 1)
            x_embed = ops.cumsum(not_mask, 2)
            eps = 1e-6
            y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
            dim_t = ops.arange(self.num_pos_feats, dtype=ms.float32)
            dim_t = self.temperature ** (2 * ops.floor(dim_t / 2) / self.num_pos_feats)
            pos_x = self._sin_cos(x_embed.expand_dims(-1) / dim_t)
            pos_y = self._sin_cos(y_embed.expand_dims(-1) / dim_t)
            return ops.cat((pos_y, pos_x), axis=3).permute(0, 3, 1, 2)

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.input_proj = nn.Conv2d(3, 2 * POS_FEATS, 1, has_bias=True)
            self.pos = PositionEmbeddingSine(POS_FEATS)
            self.head = nn.Conv2d(2 * POS_FEATS, 4, 1, has_bias=True)

        def construct(self, x):
            src = self.input_proj(x)
            return self.head(src + self.pos(src))

    return Block()


ENTRIES = [
    entry("h5a_port_rope_attention_interleaved_pairs", FAMILY, "model: rotary self-attention (RoFormer, "
          "rotate_half layout)", _rope_torch, lambda: _rope_ms(True), lambda: _rope_ms(False), ["rope"],
          ["rotate_half|interleaved|pairs"], inputs={"x": uniform(2, 5, D_MODEL)},
          cause_pattern=r"\brotate_half\b|\binterleav\w*|\b(adjacent|consecutive|even[/ -]odd)\b[^\n]{0,60}"
                        r"\b(pairs?|dimensions?|channels?)\b|\bhalves\b"),
    entry("h5a_port_tsm_shift_wraps_around", FAMILY, "model: Temporal Shift Module residual block (TSM)",
          _tsm_torch, lambda: _tsm_ms(True), lambda: _tsm_ms(False), ["shift"],
          ["roll|wrap|zero"], inputs={"x": uniform(2 * SEGMENTS, CHANNELS, 2, 2)},
          cause_pattern=r"\broll\w*\b|\bwrap\w*|\bcircular\w*|\bcyclic\w*|\bzero[- ]?(fill\w*|pad\w*)"
                        r"|\bzeros?\b[^\n]{0,80}\b(boundar\w*|first|last|frames?|segments?|edges?)\b"),
    entry("h5a_port_detr_sine_position_concat", FAMILY, "model: DETR PositionEmbeddingSine added to the input "
          "projection", _detr_torch, lambda: _detr_ms(True), lambda: _detr_ms(False), ["pos"],
          ["stack|interleave|flatten"], inputs={"x": uniform(1, 3, 3, 4)},
          cause_pattern=r"\bstack\w*\b|\binterleav\w*|\balternat\w*[^\n]{0,60}\b(sin|cos)\w*"),
]
