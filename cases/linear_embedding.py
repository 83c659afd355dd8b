"""Linear layers and embeddings: bias flags, N-D inputs, embedding tables and padding_idx."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

from migcheck import PairedCase, integers, uniform


linear_no_bias = PairedCase(
    doc="Linear(bias=False) is Dense(has_bias=False); weight (out, in) on both sides",
    torch=lambda: tnn.Linear(5, 4, bias=False),
    mindspore=lambda: mnn.Dense(5, 4, has_bias=False),
    inputs={"x": uniform(2, 5)},
    tags=("linear",),
)

linear_3d_input = PairedCase(
    doc="Linear applied to a (batch, seq, features) input: Dense also maps the last axis of an N-D tensor",
    torch=lambda: tnn.Linear(5, 3),
    mindspore=lambda: mnn.Dense(5, 3),
    inputs={"x": uniform(2, 6, 5)},
    tags=("linear",),
)


class MlpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.act = tnn.Tanh()
        self.fc2 = tnn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MlpMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.act = mnn.Tanh()
        self.fc2 = mnn.Dense(8, 2)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


mlp_tanh = PairedCase(
    doc="two Dense layers with Tanh: nested names fc1.weight/fc2.bias map unchanged",
    torch=MlpPt, mindspore=MlpMs,
    inputs={"x": uniform(2, 6)},
    tags=("linear",),
)

dense_missing_bias = PairedCase(
    doc="known-bad: the port drops the bias (has_bias=False) that torch's Linear has by default",
    torch=lambda: tnn.Linear(5, 4),
    mindspore=lambda: mnn.Dense(5, 4, has_bias=False),
    inputs={"x": uniform(2, 5)},
    checks=("forward",), expect="fail", fails_with="structure",
    tags=("linear", "known-bad"),
)


# --- Embeddings: weight -> embedding_table; integer ids are not differentiated. ---

embedding = PairedCase(
    doc="Embedding(10, 4) with int64 ids: weight maps to embedding_table; backward checks the table gradient",
    torch=lambda: tnn.Embedding(10, 4),
    mindspore=lambda: mnn.Embedding(10, 4),
    inputs={"ids": integers(2, 6, high=10)},
    tags=("embedding",),
)


class EmbedBagMeanPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Embedding(12, 4)
        self.proj = tnn.Linear(4, 3)

    def forward(self, ids):
        return self.proj(self.embed(ids).mean(dim=1))


class EmbedBagMeanMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = mnn.Embedding(12, 4)
        self.proj = mnn.Dense(4, 3)

    def construct(self, ids):
        return self.proj(ops.mean(self.embed(ids), axis=1))


embedding_mean_linear = PairedCase(
    doc="embedding lookup, mean over the sequence (dim= vs axis=) and a Dense head; repeated ids accumulate gradient",
    torch=EmbedBagMeanPt, mindspore=EmbedBagMeanMs,
    inputs={"ids": integers(2, 6, high=12, dtype="int32")},
    tags=("embedding",),
)

embedding_padding_idx = PairedCase(
    doc="known-bad: torch zeroes the padding_idx row's gradient; MindSpore's Embedding(padding_idx=0) only zero-inits it",
    torch=lambda: tnn.Embedding(10, 4, padding_idx=0),
    mindspore=lambda: mnn.Embedding(10, 4, padding_idx=0),
    inputs={"ids": integers(2, 6, high=3)},
    checks=("forward", "backward"), expect="fail", fails_with="value", fails_on=("backward",),
    tags=("embedding", "known-bad"),
)
