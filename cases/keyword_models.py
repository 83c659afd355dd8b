"""Keyword inputs and model-output objects: a tiny GPT-2-like decoder (2 layers, hidden 8) called as
model(input_ids=..., attention_mask=...), whose second positional parameter is past_key_values."""
from dataclasses import dataclass
from typing import Optional, Tuple

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn

from migcheck import PairedCase, integers, mask

VOCAB, HIDDEN, LAYERS, SEQ = 16, 8, 2, 5
INPUTS = {"input_ids": integers(2, SEQ, high=VOCAB), "attention_mask": mask(2, SEQ, p=0.8)}


@dataclass
class CausalLMOutput:
    """As transformers' model outputs: named fields, None where not asked for."""

    logits: torch.Tensor
    hidden_states: Tuple[torch.Tensor, ...]
    past_key_values: Optional[tuple] = None


class TorchBlock(tnn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = tnn.LayerNorm(HIDDEN)
        self.q, self.k, self.v, self.proj = (tnn.Linear(HIDDEN, HIDDEN) for _ in range(4))
        self.ln_2 = tnn.LayerNorm(HIDDEN)
        self.fc = tnn.Linear(HIDDEN, 2 * HIDDEN)
        self.out = tnn.Linear(2 * HIDDEN, HIDDEN)

    def forward(self, x, bias):
        h = self.ln_1(x)
        scores = self.q(h) @ self.k(h).transpose(-1, -2) / HIDDEN ** 0.5 + bias
        x = x + self.proj(torch.softmax(scores, dim=-1) @ self.v(h))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln_2(x)), approximate="tanh"))


class TorchDecoder(tnn.Module):
    def __init__(self):
        super().__init__()
        self.wte = tnn.Embedding(VOCAB, HIDDEN)
        self.wpe = tnn.Embedding(SEQ, HIDDEN)
        self.h = tnn.ModuleList(TorchBlock() for _ in range(LAYERS))
        self.ln_f = tnn.LayerNorm(HIDDEN)

    def forward(self, input_ids, past_key_values=None, attention_mask=None):
        positions = torch.arange(input_ids.shape[1])
        x = self.wte(input_ids) + self.wpe(positions)
        keep = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool))[None] & attention_mask[:, None, :]
        bias = torch.where(keep, 0.0, -1e4)
        hidden = [x]
        for block in self.h:
            x = block(x, bias)
            hidden.append(x)
        x = self.ln_f(x)
        return CausalLMOutput(logits=x @ self.wte.weight.T, hidden_states=tuple(hidden))


class MsBlock(mnn.Cell):
    def __init__(self, gelu_approximate=True):
        super().__init__()
        self.ln_1 = mnn.LayerNorm((HIDDEN,), epsilon=1e-5)
        self.q, self.k, self.v, self.proj = (mnn.Dense(HIDDEN, HIDDEN) for _ in range(4))
        self.ln_2 = mnn.LayerNorm((HIDDEN,), epsilon=1e-5)
        self.fc = mnn.Dense(HIDDEN, 2 * HIDDEN)
        self.out = mnn.Dense(2 * HIDDEN, HIDDEN)
        self.gelu = mnn.GELU(approximate=gelu_approximate)

    def construct(self, x, bias):
        h = self.ln_1(x)
        scores = ops.matmul(self.q(h), self.k(h).swapaxes(-1, -2)) / HIDDEN ** 0.5 + bias
        x = x + self.proj(ops.matmul(ops.softmax(scores, axis=-1), self.v(h)))
        return x + self.out(self.gelu(self.fc(self.ln_2(x))))


class MsDecoder(mnn.Cell):
    """The port: same signature (past_key_values second), outputs as a dict of named fields."""

    def __init__(self, gelu_approximate=True):
        super().__init__()
        self.wte = mnn.Embedding(VOCAB, HIDDEN)
        self.wpe = mnn.Embedding(SEQ, HIDDEN)
        self.h = mnn.CellList([MsBlock(gelu_approximate) for _ in range(LAYERS)])
        self.ln_f = mnn.LayerNorm((HIDDEN,), epsilon=1e-5)
        self.causal = ms.Tensor(np.tril(np.ones((SEQ, SEQ), np.bool_)))

    def construct(self, input_ids, past_key_values=None, attention_mask=None):
        positions = ops.arange(input_ids.shape[1])
        x = self.wte(input_ids) + self.wpe(positions)
        keep = ops.logical_and(self.causal.expand_dims(0), attention_mask.expand_dims(1))
        bias = ops.select(keep, ops.zeros(keep.shape, ms.float32), ops.full(keep.shape, -1e4, dtype=ms.float32))
        hidden = (x,)
        for block in self.h:
            x = block(x, bias)
            hidden = hidden + (x,)
        x = self.ln_f(x)
        return {"logits": ops.matmul(x, self.wte.embedding_table.T), "hidden_states": hidden}


gpt2_like_keywords = PairedCase(
    doc="GPT-2-like decoder called by keyword (input_ids=, attention_mask=; past_key_values is the 2nd positional"
        " parameter); torch returns a dataclass, the port a dict: compared by field name",
    torch=TorchDecoder, mindspore=MsDecoder, inputs=INPUTS, tags=("keyword", "transformer"),
)

gpt2_like_keywords_gelu_exact = PairedCase(
    doc="known-bad: the same decoder whose port uses exact GELU where torch uses the tanh approximation",
    torch=TorchDecoder, mindspore=lambda: MsDecoder(gelu_approximate=False), inputs=INPUTS, checks=("forward",),
    expect="fail", fails_with="value", tags=("keyword", "transformer", "known-bad"),
)
