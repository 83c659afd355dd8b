"""Held-out set 8, half a: small model blocks (family "h8-port"), written blind from public architecture
descriptions and ported with one API mistake each."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

FAM = "h8-port"

# ---------------------------------------------------------------- GraphSAGE, pooling aggregator
# Hamilton et al. 2017: h_N(v) = max_{u in N(v)} relu(W_pool h_u + b); h_v' = W [h_v || h_N(v)].
# Node 4 has no incoming edge (an isolated node): its neighbourhood aggregate is the empty maximum, 0 here.
N_NODES = 5
SRC = np.array([0, 1, 2, 3, 0, 2, 1], np.int64)
DST = np.array([1, 0, 1, 2, 3, 3, 2], np.int64)


def _sage_torch():
    import torch

    class SAGEPool(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = torch.nn.Linear(4, 6)
            self.lin = torch.nn.Linear(10, 5)

        def forward(self, x, src, dst):
            msg = torch.relu(self.pool(x))[src]
            index = dst.unsqueeze(-1).expand(-1, msg.shape[-1])
            agg = torch.zeros(x.shape[0], msg.shape[-1], dtype=msg.dtype).scatter_reduce(
                0, index, msg, reduce="amax", include_self=False)
            return self.lin(torch.cat([x, agg], dim=-1))
    return SAGEPool()


def _sage_ms(correct):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class SAGEPool(nn.Cell):
            def __init__(self):
                super().__init__()
                self.pool = nn.Dense(4, 6)
                self.lin = nn.Dense(10, 5)

            def construct(self, x, src, dst):
                msg = ops.gather(ops.relu(self.pool(x)), src, 0)
                seg = dst.astype(ms.int32)
                agg = ops.unsorted_segment_max(msg, seg, x.shape[0])
                if correct:
                    count = ops.unsorted_segment_sum(ops.ones((msg.shape[0], 1), ms.float32), seg, x.shape[0])
                    agg = ops.where(count > 0, agg, ops.zeros_like(agg))
                return self.lin(ops.cat([x, agg], -1))
        return SAGEPool()
    return make


# ---------------------------------------------------------------- MLP-Mixer block
# Tolstikhin et al. 2021: token mixing MLP on the transposed (channels, tokens) view, then channel mixing.
def _mixer_torch():
    import torch
    import torch.nn.functional as F

    class MixerBlock(torch.nn.Module):
        def __init__(self, tokens=4, dim=6, token_hidden=8, channel_hidden=12):
            super().__init__()
            self.norm1 = torch.nn.LayerNorm(dim)
            self.token_fc1 = torch.nn.Linear(tokens, token_hidden)
            self.token_fc2 = torch.nn.Linear(token_hidden, tokens)
            self.norm2 = torch.nn.LayerNorm(dim)
            self.channel_fc1 = torch.nn.Linear(dim, channel_hidden)
            self.channel_fc2 = torch.nn.Linear(channel_hidden, dim)

        def forward(self, x):
            y = self.norm1(x).transpose(1, 2)
            y = self.token_fc2(F.gelu(self.token_fc1(y))).transpose(1, 2)
            x = x + y
            return x + self.channel_fc2(F.gelu(self.channel_fc1(self.norm2(x))))
    return MixerBlock()


def _mixer_ms(correct):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        def swap(t):
            return ops.transpose(t, (0, 2, 1)) if correct else ops.transpose(t, (1, 2))

        class MixerBlock(nn.Cell):
            def __init__(self, tokens=4, dim=6, token_hidden=8, channel_hidden=12):
                super().__init__()
                self.norm1 = nn.LayerNorm((dim,), epsilon=1e-5)
                self.token_fc1 = nn.Dense(tokens, token_hidden)
                self.token_fc2 = nn.Dense(token_hidden, tokens)
                self.norm2 = nn.LayerNorm((dim,), epsilon=1e-5)
                self.channel_fc1 = nn.Dense(dim, channel_hidden)
                self.channel_fc2 = nn.Dense(channel_hidden, dim)

            def construct(self, x):
                y = swap(self.norm1(x))
                y = swap(self.token_fc2(ops.gelu(self.token_fc1(y), approximate="none")))
                x = x + y
                return x + self.channel_fc2(ops.gelu(self.channel_fc1(self.norm2(x)), approximate="none"))
        return MixerBlock()
    return make


# ---------------------------------------------------------------- Conv-TasNet encoder / mask / decoder
# Luo & Mesgarani 2019: a learned 1-D conv encoder (kernel L, hop L/2, no bias), a mask applied to its ReLU output,
# and a transposed-conv decoder (kernel L, hop L/2, no bias) back to a waveform of length (T - 1) * L/2 + L.
def _tasnet_torch():
    import torch

    class TasNetCodec(torch.nn.Module):
        def __init__(self, n_filters=6, kernel=4):
            super().__init__()
            self.encoder = torch.nn.Conv1d(1, n_filters, kernel, stride=kernel // 2, bias=False)
            self.mask = torch.nn.Conv1d(n_filters, n_filters, 1)
            self.decoder = torch.nn.ConvTranspose1d(n_filters, 1, kernel, stride=kernel // 2, bias=False)

        def forward(self, wav):
            w = torch.relu(self.encoder(wav))
            return self.decoder(w * torch.sigmoid(self.mask(w)))
    return TasNetCodec()


def _tasnet_ms(correct):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class TasNetCodec(nn.Cell):
            def __init__(self, n_filters=6, kernel=4):
                super().__init__()
                self.encoder = nn.Conv1d(1, n_filters, kernel, stride=kernel // 2, pad_mode="valid")
                self.mask = nn.Conv1d(n_filters, n_filters, 1, has_bias=True)
                if correct:
                    self.decoder = nn.Conv1dTranspose(n_filters, 1, kernel, stride=kernel // 2, pad_mode="valid")
                else:
                    self.decoder = nn.Conv1dTranspose(n_filters, 1, kernel, stride=kernel // 2)

            def construct(self, wav):
                w = ops.relu(self.encoder(wav))
                return self.decoder(w * ops.sigmoid(self.mask(w)))
        return TasNetCodec()
    return make


ENTRIES = [
    entry("h8a_port_graphsage_pool_aggregator_isolated_node", FAM,
          "model:GraphSAGE pooling aggregator (Hamilton et al. 2017); probe: ops.unsorted_segment_max on empty segments",
          _sage_torch, _sage_ms(False), _sage_ms(True), ["after:pool"], ["unsorted_segment_max|empty|isolated"],
          inputs={"x": uniform(N_NODES, 4), "src": given(SRC), "dst": given(DST)},
          cause_pattern=r"\bunsorted_segment_max\b[^.]*\b(empty|lowest|minimum|-?3\.4\d*e\+?38|no (elements|edges|neighbou?rs))\b"
                        r"|\bempty (segments?|neighbou?rhoods?)\b|\binclude_self\b|\bisolated nodes?\b"),
    entry("h8a_port_mlp_mixer_token_mixing_transpose_pair", FAM,
          "model:MLP-Mixer block (Tolstikhin et al. 2021); page transpose", _mixer_torch, _mixer_ms(False),
          _mixer_ms(True), ["after:norm1"], ["transpose|perm|swapaxes"],
          inputs={"x": uniform(2, 4, 6)}, fails_with="error",
          cause_pattern=r"\btranspose\b[^.]*\b(perm|permutation|input_perm)\b|\bswapaxes\b|\(0,\s*2,\s*1\)"),
    entry("h8a_port_conv_tasnet_decoder_transpose_default_same", FAM,
          "model:Conv-TasNet encoder/decoder (Luo & Mesgarani 2019); page ConvTranspose1d", _tasnet_torch,
          _tasnet_ms(False), _tasnet_ms(True), ["decoder"], ["Conv1dTranspose|pad_mode|same"],
          inputs={"wav": uniform(2, 1, 16)}, fails_with="shape",
          cause_pattern=r"\bpad_mode\b[^.]*\b(valid|pad)\b|\b(valid|pad)\b[^.]*\bpad_mode\b"),
]
