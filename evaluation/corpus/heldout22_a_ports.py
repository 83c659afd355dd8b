"""Held-out set 22, half a (blind): two small model blocks whose port differs from torch in one nameable way."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import integers, uniform


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
# 1. A transformer token embedding with a fixed sinusoid table: torch builds the table with numpy and turns it
#    into a float32 buffer; the port wraps numpy's float64 array in a Tensor without a dtype.

VOCAB, D_MODEL, MAX_LEN = 11, 8, 16


def _sinusoid_table(n_pos, d):
    pos = np.arange(n_pos)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / np.power(10000.0, 2 * (i // 2) / d)
    table = np.zeros((n_pos, d))
    table[:, 0::2] = np.sin(angle[:, 0::2])
    table[:, 1::2] = np.cos(angle[:, 1::2])
    return table  # float64


def embed_torch():
    torch, tnn = _t()

    class TokenEmbedding(tnn.Module):
        def __init__(self):
            super().__init__()
            self.tok = tnn.Embedding(VOCAB, D_MODEL)
            self.register_buffer("pe", torch.from_numpy(_sinusoid_table(MAX_LEN, D_MODEL)).float(), persistent=False)
            self.norm = tnn.LayerNorm(D_MODEL)

        def forward(self, ids):
            h = self.tok(ids) * math.sqrt(D_MODEL) + self.pe[: ids.shape[1]]
            return self.norm(h)

    class Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = TokenEmbedding()
            self.ffn_in = tnn.Linear(D_MODEL, 16)
            self.ffn_out = tnn.Linear(16, D_MODEL)
            self.head = tnn.Linear(D_MODEL, 3)

        def forward(self, ids):
            h = self.embed(ids)
            h = h + self.ffn_out(torch.relu(self.ffn_in(h)))
            return self.head(h)

    return Block()


def _embed_ms(cast: bool):
    ms, mnn, ops = _m()

    class TokenEmbedding(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.tok = mnn.Embedding(VOCAB, D_MODEL)
            table = _sinusoid_table(MAX_LEN, D_MODEL)
            self.pe = ms.Tensor(table, ms.float32) if cast else ms.Tensor(table)
            self.norm = mnn.LayerNorm((D_MODEL,), epsilon=1e-5)

        def construct(self, ids):
            h = self.tok(ids) * math.sqrt(D_MODEL) + self.pe[: ids.shape[1]]
            return self.norm(h)

    class Block(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = TokenEmbedding()
            self.ffn_in = mnn.Dense(D_MODEL, 16)
            self.ffn_out = mnn.Dense(16, D_MODEL)
            self.head = mnn.Dense(D_MODEL, 3)

        def construct(self, ids):
            h = self.embed(ids)
            h = h + self.ffn_out(ops.relu(self.ffn_in(h)))
            return self.head(h)

    return Block()


# --------------------------------------------------------------------------------------------------------------
# 2. A SegNet decoder stage: the encoder max-pools an odd-sized map with return_indices, the decoder unpools to
#    the encoder's size (output_size); the port calls MaxUnpool2d without output_size.

def segnet_torch():
    torch, tnn = _t()

    class Stage(tnn.Module):
        def __init__(self):
            super().__init__()
            self.enc = tnn.Conv2d(2, 3, 1)
            self.pool = tnn.MaxPool2d(2, 2, return_indices=True)
            self.mid = tnn.Conv2d(3, 3, 1)
            self.unpool = tnn.MaxUnpool2d(2, 2)
            self.dec = tnn.Conv2d(3, 2, 1)

        def forward(self, x):
            e = torch.relu(self.enc(x))
            p, idx = self.pool(e)
            m = torch.relu(self.mid(p))
            u = self.unpool(m, idx, output_size=e.shape[-2:])
            return self.dec(u)

    return Stage()


def _segnet_ms(output_size: bool):
    ms, mnn, ops = _m()

    class Stage(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = mnn.Conv2d(2, 3, 1, has_bias=True)
            self.pool = mnn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True)
            self.mid = mnn.Conv2d(3, 3, 1, has_bias=True)
            self.unpool = mnn.MaxUnpool2d(2, 2)
            self.dec = mnn.Conv2d(3, 2, 1, has_bias=True)

        def construct(self, x):
            e = ops.relu(self.enc(x))
            p, idx = self.pool(e)
            m = ops.relu(self.mid(p))
            u = self.unpool(m, idx, e.shape) if output_size else self.unpool(m, idx)
            return self.dec(u)

    return Stage()


ENTRIES = [
    entry("h22a_port_transformer_embedding_numpy_sinusoid_table_float64_tensor", "h22-port",
          "probe:mindspore.Tensor(numpy float64 array) keeps float64", embed_torch, lambda: _embed_ms(False),
          lambda: _embed_ms(True), layers=("embed",), causes=("float64|dtype|pe",),
          inputs={"ids": integers(2, 7, high=VOCAB)}, fails_with="error",
          cause_pattern=r"\bfloat64\b[^.\n]*\bfloat32\b|\bfloat32\b[^.\n]*\bfloat64\b"
                        r"|\bdtype\s*=\s*(ms\.|mindspore\.|mstype\.)?float32\b"),
    entry("h22a_port_segnet_decoder_max_unpool2d_output_size_dropped", "h22-port",
          "probe:nn.MaxUnpool2d without output_size on an odd-sized map", segnet_torch, lambda: _segnet_ms(False), lambda: _segnet_ms(True),
          layers=("unpool",), causes=("maxunpool|output_size",), inputs={"x": uniform(2, 2, 5, 5)},
          fails_with="error",
          cause_pattern=r"\boutput_size\b"),
]
