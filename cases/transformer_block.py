"""A small pre-norm transformer block (attention + MLP, two LayerNorms) and its LayerNorm-epsilon twin.

The twin keeps MindSpore's default LayerNorm epsilon 1e-7 (torch 1e-5). On unit-variance activations
that moves the outputs by a few 1e-6, inside the old default atol of 1e-5, so only the error budget
against float64 (the default judge) sees it: far more than torch float32's own error.
"""
import math

import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from migcheck import PairedCase, normal

DIM, HEADS, HIDDEN = 16, 2, 32


class BlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = tnn.LayerNorm(DIM)
        self.qkv = tnn.Linear(DIM, 3 * DIM)
        self.proj = tnn.Linear(DIM, DIM)
        self.ln2 = tnn.LayerNorm(DIM)
        self.fc1 = tnn.Linear(DIM, HIDDEN)
        self.fc2 = tnn.Linear(HIDDEN, DIM)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, HEADS, d // HEADS).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // HEADS), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.relu(self.fc1(self.ln2(x))))


class BlockMs(mnn.Cell):
    def __init__(self, epsilon=1e-5):
        super().__init__()
        self.ln1 = mnn.LayerNorm((DIM,), epsilon=epsilon)
        self.qkv = mnn.Dense(DIM, 3 * DIM)
        self.proj = mnn.Dense(DIM, DIM)
        self.ln2 = mnn.LayerNorm((DIM,), epsilon=epsilon)
        self.fc1 = mnn.Dense(DIM, HIDDEN)
        self.fc2 = mnn.Dense(HIDDEN, DIM)

    def construct(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, HEADS, d // HEADS).transpose(2, 0, 3, 1, 4)
        att = ops.softmax(ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(d // HEADS), axis=-1)
        x = x + self.proj(ops.matmul(att, v).swapaxes(1, 2).reshape(b, t, d))
        return x + self.fc2(ops.relu(self.fc1(self.ln2(x))))


transformer_block = PairedCase(
    doc="pre-norm transformer block (2 heads, MLP 32), LayerNorm epsilon 1e-5 on both sides",
    torch=BlockPt, mindspore=BlockMs, inputs={"x": normal(2, 4, DIM)}, checks=("forward", "backward"),
    tags=("transformer", "layernorm"),
)

transformer_block_ln_default_eps = PairedCase(
    doc="known-bad: the same block with MindSpore's default LayerNorm epsilon 1e-7 (torch 1e-5): inside the old"
        " atol, far beyond torch's own float32 error",
    torch=BlockPt, mindspore=lambda: BlockMs(epsilon=1e-7), inputs={"x": normal(2, 4, DIM)},
    checks=("forward", "backward"), expect="fail", fails_with="value", diagnosis="layernorm-eps",
    tags=("transformer", "layernorm", "known-bad"),
)
