"""Held-out set 4, half c: small model blocks (family "h4-port"), each ported with ONE realistic mistake.

Written blind (without reading migcheck's localization, mapping or judging code, the bundled cases or the other
entries' causes). Every block is written from its public architecture description; each naive port differs from
its correct twin in one place, taken from MindSpore's documented PyTorch API differences or from probing torch 2.13
and MindSpore 2.10 on CPU. Tiny shapes: MindSpore's CPU convolutions are slow.
"""
from __future__ import annotations

import math

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops
from torch import nn as tnn

from evaluation.corpus.build import entry, renamer
from migcheck.specs import given, uniform

FAMILY = "h4-port"


# --------------------------------------------------------------------------------------------------------------
# 1. LSTM sentence encoder over a padded batch (packed in torch), final hidden state -> linear head.
#    Pitfall: MindSpore's nn.LSTM takes the lengths as `seq_length=` in construct; a port that drops them runs
#    the recurrence over the padding, so h_n is the state after the padded steps (probe: nn.LSTM.construct).
# --------------------------------------------------------------------------------------------------------------
class LstmEncoderPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = tnn.LSTM(3, 4, batch_first=True)
        self.head = tnn.Linear(4, 2)

    def forward(self, x, lengths):
        packed = tnn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.head(h[-1])


class LstmEncoderMs(mnn.Cell):
    def __init__(self, use_lengths: bool = True):
        super().__init__()
        self.use_lengths = use_lengths
        self.rnn = mnn.LSTM(3, 4, batch_first=True)
        self.proj = mnn.Dense(4, 2)

    def construct(self, x, lengths):
        if self.use_lengths:
            _, (h, _) = self.rnn(x, seq_length=lengths.astype(ms.int32))
        else:
            _, (h, _) = self.rnn(x)
        return self.proj(h[-1])


lstm_padded = entry(
    "h4c_lstm_encoder_padded_seq_length_dropped", FAMILY,
    "probe: torch pack_padded_sequence vs mindspore.nn.LSTM.construct(x, hx=None, seq_length=None)",
    LstmEncoderPt, lambda: LstmEncoderMs(use_lengths=False), LstmEncoderMs,
    ["lstm"], ["seq_length|pack_padded_sequence|lengths|padding"],
    inputs={"x": uniform(3, 5, 3), "lengths": given(np.array([5, 2, 3], dtype=np.int64))},
    weight_map=renamer([("lstm", "rnn"), ("head", "proj")]),
    cause_pattern=(r"\bseq_length\b|\bpack(ed)?_padded_sequence\b|\blengths\b[^.\n]*\b(padd(ed|ing)|pass(ed)?)\b"
                   r"|\b(padd(ed|ing)|pass)\b[^.\n]*\blengths\b"),
)


# --------------------------------------------------------------------------------------------------------------
# 2. PointNet segmentation block: shared per-point MLP, global max over points, the global feature broadcast back
#    to every point and concatenated. torch's `h.max(dim=2, keepdim=True)[0]` takes the values of a
#    (values, indices) pair; MindSpore's Tensor.max(axis, keepdims) returns the values alone, so the port's `[0]`
#    picks sample 0 and the broadcast silently gives every sample sample 0's global feature (probe: Tensor.max).
# --------------------------------------------------------------------------------------------------------------
class PointNetSegPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv1d(3, 6, 1)
        self.conv2 = tnn.Conv1d(12, 4, 1)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        g = h.max(dim=2, keepdim=True)[0]
        g = g.expand(-1, -1, h.shape[2])
        return self.conv2(torch.cat([h, g], dim=1))


class PointNetSegMs(mnn.Cell):
    def __init__(self, keep_torch_index: bool = False):
        super().__init__()
        self.keep_torch_index = keep_torch_index
        self.conv1 = mnn.Conv1d(3, 6, 1, has_bias=True)
        self.conv2 = mnn.Conv1d(12, 4, 1, has_bias=True)

    def construct(self, x):
        h = ops.relu(self.conv1(x))
        if self.keep_torch_index:
            g = h.max(axis=2, keepdims=True)[0]
        else:
            g = h.max(axis=2, keepdims=True)
        g = ops.broadcast_to(g, h.shape)
        return self.conv2(ops.cat([h, g], axis=1))


pointnet_max = entry(
    "h4c_pointnet_global_max_values_indexed", FAMILY,
    "probe: torch.Tensor.max(dim, keepdim) returns (values, indices); mindspore Tensor.max(axis, keepdims) the values only",
    PointNetSegPt, lambda: PointNetSegMs(keep_torch_index=True), PointNetSegMs,
    ["after:conv1"], ["max|values|indices|return_indices"],
    inputs={"x": uniform(3, 3, 5)},
    cause_pattern=(r"\bmax\b[^.\n]*\b(returns?|only|alone)\b[^.\n]*\bvalues\b|\breturn_indices\b|\bops\.max\b"
                   r"|\bargmaxwithvalue\b|\bamax\b|\b(drop|remove|without)\w*\b[^.\n]*\[0\]"
                   r"|\[0\][^.\n]*\b(first )?(sample|batch)\b"),
)


# --------------------------------------------------------------------------------------------------------------
# 3. CoordConv: a stem conv, then two coordinate channels (row, column in [-1, 1]) concatenated before the conv.
#    torch.meshgrid indexes 'ij' by default, mindspore.ops.meshgrid 'xy' (documented: meshgrid), so on a square map
#    the port's row and column channels are swapped.
# --------------------------------------------------------------------------------------------------------------
class CoordConvPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.stem = tnn.Conv2d(2, 3, 1)
        self.conv = tnn.Conv2d(5, 4, 1)

    def forward(self, x):
        h = self.stem(x)
        n, _, height, width = h.shape
        rows = torch.linspace(-1.0, 1.0, height)
        cols = torch.linspace(-1.0, 1.0, width)
        yy, xx = torch.meshgrid(rows, cols, indexing="ij")
        coords = torch.stack([yy, xx]).unsqueeze(0).expand(n, -1, -1, -1)
        return self.conv(torch.cat([h, coords], dim=1))


class CoordConvMs(mnn.Cell):
    def __init__(self, indexing: str = "ij"):
        super().__init__()
        self.indexing = indexing
        self.stem = mnn.Conv2d(2, 3, 1, has_bias=True)
        self.conv = mnn.Conv2d(5, 4, 1, has_bias=True)

    def construct(self, x):
        h = self.stem(x)
        n, _, height, width = h.shape
        rows = ops.linspace(-1.0, 1.0, height)
        cols = ops.linspace(-1.0, 1.0, width)
        if self.indexing == "default":
            yy, xx = ops.meshgrid(rows, cols)
        else:
            yy, xx = ops.meshgrid(rows, cols, indexing="ij")
        coords = ops.broadcast_to(ops.stack([yy, xx]).expand_dims(0), (n, 2, height, width))
        return self.conv(ops.cat([h, coords], axis=1))


coordconv = entry(
    "h4c_coordconv_meshgrid_default_xy", FAMILY, "meshgrid",
    CoordConvPt, lambda: CoordConvMs(indexing="default"), CoordConvMs,
    ["after:stem"], ["meshgrid|indexing|ij|xy"],
    inputs={"x": uniform(2, 2, 4, 4)},
    cause_pattern=r"\bindexing\b[^.\n]*\b(ij|xy)\b|\bmeshgrid\b[^.\n]*\b(ij|xy|indexing)\b|\b(ij|xy)\b[^.\n]*\bmeshgrid\b",
)


# --------------------------------------------------------------------------------------------------------------
# 4. U-Net contracting block as in the original paper: two unpadded 3x3 convs with ReLU, then 2x2 max pooling.
#    mindspore.nn.Conv2d pads 'same' by default (documented: Conv2d); the port left pad_mode out on the first conv.
# --------------------------------------------------------------------------------------------------------------
class UNetDownPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(2, 3, 3)
        self.conv2 = tnn.Conv2d(3, 3, 3)
        self.pool = tnn.MaxPool2d(2)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.pool(x)


class UNetDownMs(mnn.Cell):
    def __init__(self, first_pad_mode: str = "valid"):
        super().__init__()
        first = (mnn.Conv2d(2, 3, 3, has_bias=True) if first_pad_mode == "default"
                 else mnn.Conv2d(2, 3, 3, pad_mode=first_pad_mode, has_bias=True))
        self.double_conv = mnn.SequentialCell([first, mnn.ReLU(), mnn.Conv2d(3, 3, 3, pad_mode="valid", has_bias=True),
                                               mnn.ReLU()])
        self.down = mnn.MaxPool2d(kernel_size=2, stride=2)

    def construct(self, x):
        return self.down(self.double_conv(x))


unet_down = entry(
    "h4c_unet_down_valid_conv_default_same", FAMILY, "Conv2d",
    UNetDownPt, lambda: UNetDownMs(first_pad_mode="default"), UNetDownMs,
    ["conv1"], ["pad_mode|valid|same|padding"],
    inputs={"x": uniform(1, 2, 8, 8)}, fails_with="shape",
    weight_map=renamer([("conv1", "double_conv.0"), ("conv2", "double_conv.2")]),
    cause_pattern=r"\bpad_mode\b[^.\n]*\b(valid|pad|same)\b|\b(valid|pad|same)\b[^.\n]*\bpad_mode\b",
)


# --------------------------------------------------------------------------------------------------------------
# 5. Self-attention written on raw parameters the way torch's MultiheadAttention stores them (in_proj_weight
#    [3E, E], out_proj_weight [E, E]) and applied with F.linear (y = x W^T + b). The port applies the input
#    projection with ops.dense but the output projection with ops.matmul(ctx, W) + b: the weight is square, so
#    nothing complains and W is used untransposed (probe: F.linear vs ops.matmul).
# --------------------------------------------------------------------------------------------------------------
E, HEADS = 4, 2


class RawAttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.in_proj_weight = tnn.Parameter(torch.empty(3 * E, E))
        self.in_proj_bias = tnn.Parameter(torch.zeros(3 * E))
        self.out_proj_weight = tnn.Parameter(torch.empty(E, E))
        self.out_proj_bias = tnn.Parameter(torch.zeros(E))
        tnn.init.xavier_uniform_(self.in_proj_weight)
        tnn.init.xavier_uniform_(self.out_proj_weight)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, n, HEADS, E // HEADS).transpose(1, 2) for t in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(E // HEADS), dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, n, E)
        return F.linear(ctx, self.out_proj_weight, self.out_proj_bias)


class RawAttentionBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.norm = tnn.LayerNorm(E)
        self.attn = RawAttentionPt()
        self.fc = tnn.Linear(E, 3)

    def forward(self, x):
        return self.fc(x + self.attn(self.norm(x)))


class RawAttentionMs(mnn.Cell):
    def __init__(self, out_as_matmul: bool = False):
        super().__init__()
        self.out_as_matmul = out_as_matmul
        self.in_proj_weight = ms.Parameter(ms.Tensor(np.zeros((3 * E, E), np.float32)), name="in_proj_weight")
        self.in_proj_bias = ms.Parameter(ms.Tensor(np.zeros(3 * E, np.float32)), name="in_proj_bias")
        self.out_proj_weight = ms.Parameter(ms.Tensor(np.zeros((E, E), np.float32)), name="out_proj_weight")
        self.out_proj_bias = ms.Parameter(ms.Tensor(np.zeros(E, np.float32)), name="out_proj_bias")

    def construct(self, x):
        b, n, _ = x.shape
        q, k, v = ops.chunk(ops.dense(x, self.in_proj_weight, self.in_proj_bias), 3, axis=-1)
        q = q.reshape(b, n, HEADS, E // HEADS).swapaxes(1, 2)
        k = k.reshape(b, n, HEADS, E // HEADS).swapaxes(1, 2)
        v = v.reshape(b, n, HEADS, E // HEADS).swapaxes(1, 2)
        att = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(E // HEADS), axis=-1)
        ctx = ops.matmul(att, v).swapaxes(1, 2).reshape(b, n, E)
        if self.out_as_matmul:
            return ops.matmul(ctx, self.out_proj_weight) + self.out_proj_bias
        return ops.dense(ctx, self.out_proj_weight, self.out_proj_bias)


class RawAttentionBlockMs(mnn.Cell):
    def __init__(self, out_as_matmul: bool = False):
        super().__init__()
        self.norm = mnn.LayerNorm((E,), epsilon=1e-5)
        self.attn = RawAttentionMs(out_as_matmul)
        self.fc = mnn.Dense(E, 3)

    def construct(self, x):
        return self.fc(x + self.attn(self.norm(x)))


raw_attention = entry(
    "h4c_raw_attention_out_proj_linear_as_matmul", FAMILY,
    "probe: torch.nn.functional.linear (x @ W.T + b) vs mindspore.ops.matmul / mindspore.ops.dense",
    RawAttentionBlockPt, lambda: RawAttentionBlockMs(out_as_matmul=True), RawAttentionBlockMs,
    ["attn"], ["transpose|dense|linear|out_proj_weight"],
    inputs={"x": uniform(2, 3, E)},
    cause_pattern=(r"\btranspos\w*\b[^.\n]*\b(out_proj_)?weight\b|\b(out_proj_)?weight\b[^.\n]*\btranspos\w*"
                   r"|\bops\.dense\b|weight\.T\b|\bF\.linear\b|\btranspose_b\b"),
)


# --------------------------------------------------------------------------------------------------------------
# 6. Inception-style factorized convolutions: 1x1, then 1x3 (padding (0, 1)), then 3x1 (padding (1, 0)).
#    torch gives a 2-tuple (height, width); mindspore.nn.Conv2d wants 4 values (top, bottom, left, right)
#    (documented: Conv2d). The port wrote the 1x3's padding in F.pad's order (left, right, top, bottom).
# --------------------------------------------------------------------------------------------------------------
class FactorizedPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.reduce = tnn.Conv2d(3, 2, 1)
        self.conv_1x3 = tnn.Conv2d(2, 2, (1, 3), padding=(0, 1))
        self.conv_3x1 = tnn.Conv2d(2, 4, (3, 1), padding=(1, 0))

    def forward(self, x):
        return self.conv_3x1(F.relu(self.conv_1x3(F.relu(self.reduce(x)))))


class FactorizedMs(mnn.Cell):
    def __init__(self, pad_1x3=(0, 0, 1, 1)):
        super().__init__()
        self.reduce = mnn.Conv2d(3, 2, 1, has_bias=True)
        self.conv_1x3 = mnn.Conv2d(2, 2, (1, 3), pad_mode="pad", padding=pad_1x3, has_bias=True)
        self.conv_3x1 = mnn.Conv2d(2, 4, (3, 1), pad_mode="pad", padding=(1, 1, 0, 0), has_bias=True)
        self.relu = mnn.ReLU()

    def construct(self, x):
        return self.conv_3x1(self.relu(self.conv_1x3(self.relu(self.reduce(x)))))


factorized = entry(
    "h4c_inception_factorized_conv_padding_order", FAMILY, "Conv2d",
    FactorizedPt, lambda: FactorizedMs(pad_1x3=(1, 1, 0, 0)), FactorizedMs,
    ["conv_1x3"], ["padding|top|bottom|left|right"],
    inputs={"x": uniform(1, 3, 6, 6)}, fails_with="shape",
    cause_pattern=(r"\bpadding\s*=\s*\(\s*0\s*,\s*0\s*,\s*1\s*,\s*1\s*\)"
                   r"|\bpadding\b[^.\n]*\btop\b[^.\n]*\bbottom\b[^.\n]*\bleft\b[^.\n]*\bright\b"),
)


# --------------------------------------------------------------------------------------------------------------
# 7. DETR-style transformer FFN sub-layer (linear -> ReLU -> dropout -> linear -> dropout, residual, post-norm),
#    configured with dropout 0.0. mindspore.nn.Dropout's first positional argument is keep_prob, not p
#    (documented: Dropout): nn.Dropout(0.0) asks to keep nothing and is refused at construction.
# --------------------------------------------------------------------------------------------------------------
class DetrFfnPt(tnn.Module):
    def __init__(self, d=4, hidden=8, dropout=0.0):
        super().__init__()
        self.linear1 = tnn.Linear(d, hidden)
        self.dropout = tnn.Dropout(dropout)
        self.linear2 = tnn.Linear(hidden, d)
        self.dropout3 = tnn.Dropout(dropout)
        self.norm3 = tnn.LayerNorm(d)

    def forward(self, tgt):
        tgt2 = self.linear2(self.dropout(F.relu(self.linear1(tgt))))
        return self.norm3(tgt + self.dropout3(tgt2))


class DetrFfnMs(mnn.Cell):
    def __init__(self, d=4, hidden=8, dropout=0.0, positional: bool = False):
        super().__init__()
        self.linear1 = mnn.Dense(d, hidden)
        self.dropout = mnn.Dropout(dropout) if positional else mnn.Dropout(p=dropout)
        self.linear2 = mnn.Dense(hidden, d)
        self.dropout3 = mnn.Dropout(p=dropout)
        self.norm3 = mnn.LayerNorm((d,), epsilon=1e-5)

    def construct(self, tgt):
        tgt2 = self.linear2(self.dropout(ops.relu(self.linear1(tgt))))
        return self.norm3(tgt + self.dropout3(tgt2))


detr_ffn = entry(
    "h4c_detr_ffn_dropout_positional_keep_prob", FAMILY, "Dropout",
    DetrFfnPt, lambda: DetrFfnMs(positional=True), DetrFfnMs,
    ["dropout"], ["keep_prob|p="],
    inputs={"tgt": uniform(2, 3, 4)}, fails_with="error",
    cause_pattern=(r"\bkeep_prob\b[^\n]*(\bp\s*=|\b1\.0\b|\b1\s*-\s*p\b)|\bDropout\(\s*p\s*=\s*0(\.0*)?\s*\)"
                   r"|\bp\s*=\s*0(\.0*)?\b[^.\n]*\bkeep_prob\b"),
)


# --------------------------------------------------------------------------------------------------------------
# 8. Set Transformer SAB (self-attention block): H = LN(X + MHA(X, X, X)), out = LN(H + rFF(H)), with torch's
#    nn.MultiheadAttention(batch_first=True). mindspore.nn.MultiheadAttention also defaults to batch_first=False
#    (documented: MultiheadAttention); the port dropped the flag, so (batch, set, dim) is read as
#    (sequence, batch, dim): every element attends across the batch instead of across its set.
# --------------------------------------------------------------------------------------------------------------
class SetAttentionBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.mha = tnn.MultiheadAttention(4, 2, batch_first=True)
        self.ln0 = tnn.LayerNorm(4)
        self.rff = tnn.Linear(4, 4)
        self.ln1 = tnn.LayerNorm(4)

    def forward(self, x):
        att, _ = self.mha(x, x, x, need_weights=False)
        h = self.ln0(x + att)
        return self.ln1(h + F.relu(self.rff(h)))


class SetAttentionBlockMs(mnn.Cell):
    def __init__(self, batch_first: bool = True):
        super().__init__()
        self.attn = mnn.MultiheadAttention(4, 2, batch_first=True) if batch_first else mnn.MultiheadAttention(4, 2)
        self.norm_a = mnn.LayerNorm((4,), epsilon=1e-5)
        self.ff = mnn.Dense(4, 4)
        self.norm_b = mnn.LayerNorm((4,), epsilon=1e-5)

    def construct(self, x):
        att = self.attn(x, x, x, need_weights=False)[0]
        h = self.norm_a(x + att)
        return self.norm_b(h + ops.relu(self.ff(h)))


set_attention = entry(
    "h4c_set_transformer_sab_batch_first_dropped", FAMILY, "MultiheadAttention",
    SetAttentionBlockPt, lambda: SetAttentionBlockMs(batch_first=False), SetAttentionBlockMs,
    ["mha"], ["batch_first"],
    inputs={"x": uniform(2, 5, 4)},
    weight_map=renamer([("mha", "attn"), ("ln0", "norm_a"), ("rff", "ff"), ("ln1", "norm_b")],
                       norms=("ln0", "ln1")),
    cause_pattern=r"\bbatch_first\b",
)


# --------------------------------------------------------------------------------------------------------------
# 9. ViT patch embedding: 2x2 patch conv, flatten the grid, prepend a class token, add position embeddings.
#    torch.flatten(x, 2) ported as ops.flatten(x, 2): MindSpore's second positional parameter is `order`
#    ('C'/'F'), start_dim is keyword-only (documented: flatten), so the port raises.
# --------------------------------------------------------------------------------------------------------------
class PatchEmbedPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.proj = tnn.Conv2d(2, 4, 2, stride=2)
        self.cls_token = tnn.Parameter(torch.randn(1, 1, 4) * 0.02)
        self.pos_embed = tnn.Parameter(torch.randn(1, 5, 4) * 0.02)

    def forward(self, x):
        x = torch.flatten(self.proj(x), 2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        return torch.cat([cls, x], dim=1) + self.pos_embed


class PatchEmbedMs(mnn.Cell):
    def __init__(self, positional_start_dim: bool = False):
        super().__init__()
        self.positional_start_dim = positional_start_dim
        self.patch = mnn.Conv2d(2, 4, 2, stride=2, pad_mode="valid", has_bias=True)
        self.cls_token = ms.Parameter(ms.Tensor(np.zeros((1, 1, 4), np.float32)), name="cls_token")
        self.pos_embed = ms.Parameter(ms.Tensor(np.zeros((1, 5, 4), np.float32)), name="pos_embed")

    def construct(self, x):
        x = self.patch(x)
        x = ops.flatten(x, 2) if self.positional_start_dim else ops.flatten(x, start_dim=2)
        x = x.swapaxes(1, 2)
        cls = ops.broadcast_to(self.cls_token, (x.shape[0], 1, 4))
        return ops.cat([cls, x], axis=1) + self.pos_embed


patch_embed = entry(
    "h4c_vit_patch_embed_flatten_positional_start_dim", FAMILY, "flatten",
    PatchEmbedPt, lambda: PatchEmbedMs(positional_start_dim=True), PatchEmbedMs,
    ["after:proj"], ["flatten|start_dim|order"],
    inputs={"x": uniform(2, 2, 4, 4)}, fails_with="error",
    weight_map={"proj.weight": "patch.weight", "proj.bias": "patch.bias"},
    cause_pattern=r"\bstart_dim\s*=\s*2\b|\bstart_dim\b[^.\n]*\bkeyword\b|\border\b[^.\n]*\bstart_dim\b",
)


ENTRIES = [lstm_padded, pointnet_max, coordconv, unet_down, raw_attention, factorized, detr_ffn, set_attention,
           patch_embed]
