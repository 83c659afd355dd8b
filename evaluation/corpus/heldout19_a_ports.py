"""Held-out set 19, half a: small model blocks ported to MindSpore, one nameable difference each (blind)."""
from __future__ import annotations

import mindspore.nn as mnn
import torch
import torch.nn as tnn
from mindspore import ops

from evaluation.corpus.build import entry
from migcheck.specs import integers, uniform

FAMILY = "h19-port"


# --- AlexNet-style feature stem: Conv -> ReLU -> LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=2) -> MaxPool ->
#     Conv. MindSpore has no LRN layer; the port wraps ops.LRN, whose beta defaults to 0.5.
class _TorchAlexStem(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.lrn = tnn.LocalResponseNorm(5, alpha=1e-4, beta=0.75, k=2.0)
        self.pool = tnn.MaxPool2d(3, 2)
        self.conv2 = tnn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        h = self.pool(self.lrn(torch.relu(self.conv1(x))))
        return torch.relu(self.conv2(h))


class _MsLrn(mnn.Cell):
    def __init__(self, size, alpha, k, beta=None):
        super().__init__()
        if beta is None:
            self.op = ops.LRN(depth_radius=size // 2, bias=k, alpha=alpha / size)
        else:
            self.op = ops.LRN(depth_radius=size // 2, bias=k, alpha=alpha / size, beta=beta)

    def construct(self, x):
        return self.op(x)


class _MsAlexStem(mnn.Cell):
    def __init__(self, beta):
        super().__init__()
        self.conv1 = mnn.Conv2d(3, 8, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.lrn = _MsLrn(5, 1e-4, 2.0, beta)
        self.pool = mnn.MaxPool2d(3, 2, pad_mode="valid")
        self.conv2 = mnn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        h = self.pool(self.lrn(ops.relu(self.conv1(x))))
        return ops.relu(self.conv2(h))


# --- GPT-style LM head tied to the token embedding (lm_head.weight = wte.weight). mindspore.nn.Dense's
#     weight_init= takes the table's value into a new Parameter, so the head is no longer tied.
class _TorchTiedLm(tnn.Module):
    def __init__(self):
        super().__init__()
        self.wte = tnn.Embedding(16, 8)
        self.ln = tnn.LayerNorm(8)
        self.mlp = tnn.Linear(8, 8)
        self.lm_head = tnn.Linear(8, 16, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids):
        h = self.wte(ids)
        h = h + torch.tanh(self.mlp(self.ln(h)))
        return self.lm_head(h)


class _MsTiedLm(mnn.Cell):
    def __init__(self, tied):
        super().__init__()
        self.wte = mnn.Embedding(16, 8)
        self.ln = mnn.LayerNorm((8,), epsilon=1e-5)
        self.mlp = mnn.Dense(8, 8)
        self.tied = tied
        if not tied:
            self.lm_head = mnn.Dense(8, 16, weight_init=self.wte.embedding_table, has_bias=False)

    def construct(self, ids):
        h = self.wte(ids)
        h = h + ops.tanh(self.mlp(self.ln(h)))
        if self.tied:
            return ops.matmul(h, self.wte.embedding_table.T)
        return self.lm_head(h)


ENTRIES = [
    entry("h19a_port_alexnet_stem_lrn_beta_left_at_ops_default", FAMILY, "model:AlexNet features (LocalResponseNorm)",
          _TorchAlexStem, lambda: _MsAlexStem(None), lambda: _MsAlexStem(0.75), ["lrn"], ["beta|0.75"],
          inputs={"x": uniform(1, 3, 16, 16)}, cause_pattern=r"\bbeta\b[^.]*\b0\.75\b"),
    entry("h19a_port_gpt_lm_head_tied_embedding_dense_weight_init_copy", FAMILY, "model:GPT-2 LM head weight tying",
          _TorchTiedLm, lambda: _MsTiedLm(False), lambda: _MsTiedLm(True), ["lm_head"], ["tied|shared weight"],
          inputs={"ids": integers(2, 5, high=16)}, checks=("forward", "backward"), fails_with="structure",
          cause_pattern=r"\btie[ds]?\b|\btying\b|\bshar(e|ed|es|ing)\b[^.]*\b(parameter|weight|embedding_table)\b"
                        r"|\bweight_init\b[^.]*\bcop(y|ies|ied)\b|\bsame parameter\b"),
]
