"""Held-out set 4, half a: four small model blocks (family "h4-port", names h4a_port_*).

Each torch block is written from the public architecture description (ResNet's downsampling BasicBlock,
a pre-LN transformer encoder block, a BiGRU sequence tagger, a ConvNeXt block); its MindSpore port renames
children the way porters do and carries ONE realistic mistake in the naive twin.
"""
from __future__ import annotations

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry, renamer
from migcheck.specs import integers, uniform

FAM = "h4-port"


# --- ResNet BasicBlock with a stride-2 downsample (He et al. 2016, option B shortcut) ------------------------

class TorchBasicBlockDown(tnn.Module):
    def __init__(self, cin=2, cout=4):
        super().__init__()
        self.conv1 = tnn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False)
        self.bn1 = tnn.BatchNorm2d(cout)
        self.conv2 = tnn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = tnn.BatchNorm2d(cout)
        self.downsample = tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride=2, bias=False), tnn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.downsample(x))


def ms_basic_block(first_conv):
    class MsBasicBlockDown(mnn.Cell):
        def __init__(self, cin=2, cout=4):
            super().__init__()
            self.conv_a = first_conv(cin, cout)
            self.norm_a = mnn.BatchNorm2d(cout)
            self.conv_b = mnn.Conv2d(cout, cout, 3, pad_mode="pad", padding=1)
            self.norm_b = mnn.BatchNorm2d(cout)
            self.shortcut = mnn.SequentialCell([mnn.Conv2d(cin, cout, 1, stride=2, pad_mode="valid"),
                                                mnn.BatchNorm2d(cout)])

        def construct(self, x):
            out = ops.relu(self.norm_a(self.conv_a(x)))
            out = self.norm_b(self.conv_b(out))
            return ops.relu(out + self.shortcut(x))
    return MsBasicBlockDown


_BLOCK_MAP = renamer([("conv1", "conv_a"), ("bn1", "norm_a"), ("conv2", "conv_b"), ("bn2", "norm_b"),
                      ("downsample.0", "shortcut.0"), ("downsample.1", "shortcut.1")],
                     norms=("bn1", "bn2", "downsample.1"))


# --- pre-LN transformer encoder block (Vaswani et al. 2017; pre-norm as in GPT-2 / ViT) ---------------------

class TorchEncoderBlock(tnn.Module):
    def __init__(self, dim=8, heads=2, hidden=16):
        super().__init__()
        self.heads = heads
        self.ln1 = tnn.LayerNorm(dim)
        self.qkv = tnn.Linear(dim, 3 * dim)
        self.proj = tnn.Linear(dim, dim)
        self.ln2 = tnn.LayerNorm(dim)
        self.mlp = tnn.Sequential(tnn.Linear(dim, hidden), tnn.GELU(), tnn.Linear(hidden, dim))

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


def ms_encoder_block(gelu):
    class MsEncoderBlock(mnn.Cell):
        def __init__(self, dim=8, heads=2, hidden=16):
            super().__init__()
            self.heads = heads
            self.norm1 = mnn.LayerNorm((dim,), epsilon=1e-5)
            self.to_qkv = mnn.Dense(dim, 3 * dim)
            self.out_proj = mnn.Dense(dim, dim)
            self.norm2 = mnn.LayerNorm((dim,), epsilon=1e-5)
            self.ffn = mnn.SequentialCell([mnn.Dense(dim, hidden), gelu(), mnn.Dense(hidden, dim)])

        def construct(self, x):
            b, t, d = x.shape
            h = self.heads
            qkv = ops.transpose(self.to_qkv(self.norm1(x)).reshape(b, t, 3, h, d // h), (2, 0, 3, 1, 4))
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = ops.softmax(ops.matmul(q, ops.swapaxes(k, -2, -1)) / (d // h) ** 0.5, axis=-1)
            y = ops.transpose(ops.matmul(att, v), (0, 2, 1, 3)).reshape(b, t, d)
            x = x + self.out_proj(y)
            return x + self.ffn(self.norm2(x))
    return MsEncoderBlock


_ENC_MAP = renamer([("ln1", "norm1"), ("qkv", "to_qkv"), ("proj", "out_proj"), ("ln2", "norm2"),
                    ("mlp.0", "ffn.0"), ("mlp.2", "ffn.2")], norms=("ln1", "ln2"))


# --- BiGRU sequence tagger (Huang et al. 2015 without the CRF): per-token log-probabilities, (B, tags, T) -----

class TorchGruTagger(tnn.Module):
    def __init__(self, vocab=10, emb=6, hidden=5, tags=4):
        super().__init__()
        self.embed = tnn.Embedding(vocab, emb)
        self.gru = tnn.GRU(emb, hidden, batch_first=True, bidirectional=True)
        self.emit = tnn.Linear(2 * hidden, tags)

    def forward(self, ids):
        h, _ = self.gru(self.embed(ids))
        scores = self.emit(h).transpose(1, 2)          # (B, tags, T), as NLLLoss takes it
        return F.log_softmax(scores, dim=1)


def ms_gru_tagger(axis):
    class MsGruTagger(mnn.Cell):
        def __init__(self, vocab=10, emb=6, hidden=5, tags=4):
            super().__init__()
            self.word_emb = mnn.Embedding(vocab, emb)
            self.encoder = mnn.GRU(emb, hidden, batch_first=True, bidirectional=True)
            self.classifier = mnn.Dense(2 * hidden, tags)

        def construct(self, ids):
            h, _ = self.encoder(self.word_emb(ids))
            scores = ops.transpose(self.classifier(h), (0, 2, 1))
            return ops.log_softmax(scores) if axis is None else ops.log_softmax(scores, axis=axis)
    return MsGruTagger


def _tagger_map(name):
    if name.startswith("embed."):
        return "word_emb.embedding_table"
    for t, m in (("gru.", "encoder."), ("emit.", "classifier.")):
        if name.startswith(t):
            return m + name[len(t):]
    return None


# --- ConvNeXt block (Liu et al. 2022): dw 7x7 conv, channels-last LayerNorm(eps=1e-6), MLP, layer scale --------

class TorchConvNeXtBlock(tnn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.dwconv = tnn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = tnn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = tnn.Linear(dim, 4 * dim)
        self.act = tnn.GELU()
        self.pwconv2 = tnn.Linear(4 * dim, dim)
        self.gamma = tnn.Parameter(torch.full((dim,), 0.5))

    def forward(self, x):
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.pwconv2(self.act(self.pwconv1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


def ms_convnext_block(norm):
    class MsConvNeXtBlock(mnn.Cell):
        def __init__(self, dim=4):
            super().__init__()
            self.dw = mnn.Conv2d(dim, dim, 7, pad_mode="pad", padding=3, group=dim, has_bias=True)
            self.ln = norm(dim)
            self.fc1 = mnn.Dense(dim, 4 * dim)
            self.gelu = mnn.GELU(approximate=False)
            self.fc2 = mnn.Dense(4 * dim, dim)
            self.layer_scale = ms.Parameter(ms.Tensor(np.full((dim,), 0.5, np.float32)), name="layer_scale")

        def construct(self, x):
            y = ops.transpose(self.dw(x), (0, 2, 3, 1))
            y = self.fc2(self.gelu(self.fc1(self.ln(y))))
            return x + ops.transpose(self.layer_scale * y, (0, 3, 1, 2))
    return MsConvNeXtBlock


_CNX_MAP = renamer([("dwconv", "dw"), ("norm", "ln"), ("pwconv1", "fc1"), ("pwconv2", "fc2")], norms=("norm",))


def _cnx_map(name):
    return "layer_scale" if name == "gamma" else _CNX_MAP(name)


ENTRIES = [
    entry("h4a_port_resblock_stride2_same_padding", FAM, "model:resnet-basicblock-downsample",
          TorchBasicBlockDown,
          ms_basic_block(lambda i, o: mnn.Conv2d(i, o, 3, stride=2, pad_mode="same")),
          ms_basic_block(lambda i, o: mnn.Conv2d(i, o, 3, stride=2, pad_mode="pad", padding=1)),
          ["conv1"], ["pad_mode|padding|same"], inputs=[(2, 2, 6, 6)], weight_map=_BLOCK_MAP,
          cause_pattern=r"\bpad_mode\s*=\s*['\"]?pad\b|\bpadding\s*=\s*\(?1\b|\bsame\b[^\n]*\basymmetric\w*\b"),
    entry("h4a_port_encoder_block_gelu_tanh", FAM, "model:pre-ln-transformer-encoder",
          TorchEncoderBlock, ms_encoder_block(mnn.GELU), ms_encoder_block(lambda: mnn.GELU(approximate=False)),
          ["mlp.1"], ["approximate|gelu|tanh"], inputs=[(2, 4, 8)], weight_map=_ENC_MAP,
          checks=("forward", "backward"),
          cause_pattern=r"\bapproximate\b[^\n]*\b(false|none|exact|erf)\b|\b(exact|erf)\b[^\n]*\bgelu\b"
                        r"|\bgelu\b[^\n]*\b(exact|erf)\b"),
    entry("h4a_port_gru_tagger_log_softmax_axis", FAM, "model:bigru-tagger",
          TorchGruTagger, ms_gru_tagger(None), ms_gru_tagger(1),
          ["after:emit"], ["axis|dim|log_softmax"], inputs={"ids": integers(2, 5, high=10)},
          weight_map=_tagger_map,
          cause_pattern=r"\b(axis|dim)\s*=\s*1\b|\blog_?softmax\b[^\n]*\b(axis|dim)\b[^\n]*\b1\b"),
    entry("h4a_port_convnext_layernorm_eps", FAM, "model:convnext-block",
          TorchConvNeXtBlock, ms_convnext_block(lambda d: mnn.LayerNorm((d,))),
          ms_convnext_block(lambda d: mnn.LayerNorm((d,), epsilon=1e-6)),
          ["norm"], ["epsilon|eps|1e-6"], inputs={"x": uniform(1, 4, 6, 6, low=-0.01, high=0.01)},
          weight_map=_cnx_map,
          cause_pattern=r"\b(epsilon|eps)\b[^\n]*\b1e-0?6\b|\b1e-0?6\b[^\n]*\b(epsilon|eps)\b"),
]
