"""Held-out set 21, half b: small model blocks in the style of public MindSpore ports of recommendation, graph,
tabular and large-language-model code, each with one porting mistake.

Written blind: without reading migcheck's localization, mapping, judging or running code.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

import mindspore as ms
import mindspore.nn as mnn
from mindspore import Parameter, Tensor, ops

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform

FAMILY = "h21-port"


# --- 1. DCN-v2 cross network (torchrec CrossNet style) -----------------------------------------------------------

class CrossNetPt(tnn.Module):
    def __init__(self, dim=6, layers=2):
        super().__init__()
        self.layers = tnn.ModuleList([tnn.Linear(dim, dim) for _ in range(layers)])

    def forward(self, x0):
        x = x0
        for lin in self.layers:
            x = x0 * lin(x) + x
        return x


class CrossLayerMs(mnn.Cell):
    def __init__(self, dim, transpose_b):
        super().__init__()
        self.weight = Parameter(Tensor(np.zeros((dim, dim), np.float32)), name="weight")
        self.bias = Parameter(Tensor(np.zeros((dim,), np.float32)), name="bias")
        self.matmul = ops.MatMul(transpose_b=True) if transpose_b else ops.matmul

    def construct(self, x0, x):
        return x0 * (self.matmul(x, self.weight) + self.bias) + x


class CrossNetMs(mnn.Cell):
    def __init__(self, transpose_b, dim=6, layers=2):
        super().__init__()
        self.layers = mnn.CellList([CrossLayerMs(dim, transpose_b) for _ in range(layers)])

    def construct(self, x0):
        x = x0
        for layer in self.layers:
            x = layer(x0, x)
        return x


# --- 2. GPT-NeoX attention with partial rotary embeddings (rotary_pct) -------------------------------------------

def _rotate_half_pt(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class NeoxAttentionPt(tnn.Module):
    def __init__(self, hidden=16, heads=2, rotary_pct=0.5):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.rotary_ndims = int(self.head_dim * rotary_pct)
        self.query_key_value = tnn.Linear(hidden, 3 * hidden)
        self.dense = tnn.Linear(hidden, hidden)

    def _rope(self, x, cos, sin):
        rd = self.rotary_ndims
        x_rot, x_pass = x[..., :rd], x[..., rd:]
        return torch.cat((x_rot * cos + _rotate_half_pt(x_rot) * sin, x_pass), dim=-1)

    def forward(self, x):
        b, t, hidden = x.shape
        qkv = self.query_key_value(x).view(b, t, self.heads, 3 * self.head_dim).permute(0, 2, 1, 3)
        q, k, v = qkv.split(self.head_dim, dim=-1)
        rd = self.rotary_ndims
        inv_freq = 1.0 / (10000 ** (torch.arange(0, rd, 2).float() / rd))
        freqs = torch.arange(t).float()[:, None] * inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        q, k = self._rope(q, emb.cos(), emb.sin()), self._rope(k, emb.cos(), emb.sin())
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        probs = scores.masked_fill(causal, -1e9).softmax(-1)
        out = (probs @ v).permute(0, 2, 1, 3).reshape(b, t, hidden)
        return self.dense(out)


class NeoxRotaryBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.attention = NeoxAttentionPt()

    def forward(self, x):
        return self.attention(x)


def _rotate_half_ms(x):
    half = x.shape[-1] // 2
    return ops.cat((-x[..., half:], x[..., :half]), -1)


class NeoxAttentionMs(mnn.Cell):
    def __init__(self, rotary_pct, hidden=16, heads=2):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.rotary_ndims = int(self.head_dim * rotary_pct)
        self.query_key_value = mnn.Dense(hidden, 3 * hidden)
        self.dense = mnn.Dense(hidden, hidden)

    def _rope(self, x, cos, sin):
        rd = self.rotary_ndims
        x_rot, x_pass = x[..., :rd], x[..., rd:]
        return ops.cat((x_rot * cos + _rotate_half_ms(x_rot) * sin, x_pass), -1)

    def construct(self, x):
        b, t, hidden = x.shape
        qkv = self.query_key_value(x).view(b, t, self.heads, 3 * self.head_dim).transpose(0, 2, 1, 3)
        q, k, v = ops.split(qkv, self.head_dim, -1)
        rd = self.rotary_ndims
        inv_freq = 1.0 / (10000 ** (ops.arange(0, rd, 2).astype(ms.float32) / rd))
        freqs = ops.arange(t).astype(ms.float32)[:, None] * inv_freq[None, :]
        emb = ops.cat((freqs, freqs), -1)
        cos, sin = ops.cos(emb), ops.sin(emb)
        q, k = self._rope(q, cos, sin), self._rope(k, cos, sin)
        scores = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(self.head_dim)
        causal = ops.triu(ops.ones((t, t), ms.float32), 1).astype(ms.bool_)
        probs = ops.softmax(ops.masked_fill(scores, causal, -1e9), -1)
        out = ops.matmul(probs, v).transpose(0, 2, 1, 3).reshape(b, t, hidden)
        return self.dense(out)


class NeoxRotaryBlockMs(mnn.Cell):
    def __init__(self, rotary_pct):
        super().__init__()
        self.attention = NeoxAttentionMs(rotary_pct)

    def construct(self, x):
        return self.attention(x)


# --- 3. Qwen2-MoE sparse MoE block: router weights not renormalised over the top-k --------------------------------

class ExpertPt(tnn.Module):
    def __init__(self, dim=8, inner=12):
        super().__init__()
        self.gate_proj = tnn.Linear(dim, inner, bias=False)
        self.up_proj = tnn.Linear(dim, inner, bias=False)
        self.down_proj = tnn.Linear(inner, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Qwen2MoeBlockPt(tnn.Module):
    def __init__(self, dim=8, experts=4, top_k=2, norm_topk_prob=False):
        super().__init__()
        self.top_k, self.norm_topk_prob = top_k, norm_topk_prob
        self.gate = tnn.Linear(dim, experts, bias=False)
        self.experts = tnn.ModuleList([ExpertPt(dim) for _ in range(experts)])

    def forward(self, x):
        b, t, d = x.shape
        h = x.reshape(-1, d)
        probs = F.softmax(self.gate(h), dim=-1, dtype=torch.float)
        top_w, top_i = torch.topk(probs, self.top_k, dim=-1)
        if self.norm_topk_prob:
            top_w = top_w / top_w.sum(dim=-1, keepdim=True)
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            w = (top_w * (top_i == e).float()).sum(dim=-1, keepdim=True)
            out = out + w * expert(h)
        return out.reshape(b, t, d)


class ExpertMs(mnn.Cell):
    def __init__(self, dim=8, inner=12):
        super().__init__()
        self.gate_proj = mnn.Dense(dim, inner, has_bias=False)
        self.up_proj = mnn.Dense(dim, inner, has_bias=False)
        self.down_proj = mnn.Dense(inner, dim, has_bias=False)

    def construct(self, x):
        return self.down_proj(ops.silu(self.gate_proj(x)) * self.up_proj(x))


class Qwen2MoeBlockMs(mnn.Cell):
    def __init__(self, norm_topk_prob, dim=8, experts=4, top_k=2):
        super().__init__()
        self.top_k, self.norm_topk_prob = top_k, norm_topk_prob
        self.gate = mnn.Dense(dim, experts, has_bias=False)
        self.experts = mnn.CellList([ExpertMs(dim) for _ in range(experts)])

    def construct(self, x):
        b, t, d = x.shape
        h = x.reshape(-1, d)
        probs = ops.softmax(self.gate(h), -1)
        top_w, top_i = ops.topk(probs, self.top_k)
        if self.norm_topk_prob:
            top_w = top_w / ops.sum(top_w, -1, keepdim=True)
        out = ops.zeros_like(h)
        for e, expert in enumerate(self.experts):
            w = ops.sum(top_w * (top_i == e).astype(ms.float32), -1, keepdim=True)
            out = out + w * expert(h)
        return out.reshape(b, t, d)


# --- 4. Gemma decoder MLP sub-block: GemmaRMSNorm scales by (1 + weight) -----------------------------------------

class GemmaRMSNormPt(tnn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = tnn.Parameter(torch.zeros(dim))

    def forward(self, x):
        xf = x.float()
        out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (out * (1.0 + self.weight.float())).type_as(x)


class GemmaMlpPt(tnn.Module):
    def __init__(self, dim=8, inner=16):
        super().__init__()
        self.gate_proj = tnn.Linear(dim, inner, bias=False)
        self.up_proj = tnn.Linear(dim, inner, bias=False)
        self.down_proj = tnn.Linear(inner, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


class GemmaMlpBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = GemmaRMSNormPt(8)
        self.mlp = GemmaMlpPt()

    def forward(self, x):
        return x + self.mlp(self.input_layernorm(x))


class GemmaRMSNormMs(mnn.Cell):
    def __init__(self, dim, offset, eps=1e-6):
        super().__init__()
        self.eps, self.offset = eps, offset
        self.weight = Parameter(Tensor(np.zeros((dim,), np.float32)), name="weight")

    def construct(self, x):
        xf = x.astype(ms.float32)
        out = xf * ops.rsqrt(ops.mean(ops.square(xf), -1, keep_dims=True) + self.eps)
        scale = 1.0 + self.weight if self.offset else self.weight
        return (out * scale).astype(x.dtype)


class GemmaMlpMs(mnn.Cell):
    def __init__(self, dim=8, inner=16):
        super().__init__()
        self.gate_proj = mnn.Dense(dim, inner, has_bias=False)
        self.up_proj = mnn.Dense(dim, inner, has_bias=False)
        self.down_proj = mnn.Dense(inner, dim, has_bias=False)

    def construct(self, x):
        return self.down_proj(ops.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


class GemmaMlpBlockMs(mnn.Cell):
    def __init__(self, offset):
        super().__init__()
        self.input_layernorm = GemmaRMSNormMs(8, offset)
        self.mlp = GemmaMlpMs()

    def construct(self, x):
        return x + self.mlp(self.input_layernorm(x))


# --- 5. GCN convolution (PyG GCNConv, dense adjacency): self-loops -----------------------------------------------

_ADJ = np.array([[0, 1, 1, 0, 0],
                 [1, 0, 0, 1, 0],
                 [1, 0, 0, 1, 0],
                 [0, 1, 1, 0, 0],
                 [0, 0, 0, 0, 0]], dtype=np.float32)  # node 4 has no neighbours


class GCNConvPt(tnn.Module):
    def __init__(self, cin=4, cout=6):
        super().__init__()
        self.lin = tnn.Linear(cin, cout, bias=False)
        self.bias = tnn.Parameter(torch.zeros(cout))

    def forward(self, x, adj):
        a = adj + torch.eye(adj.shape[0])
        dinv = a.sum(1).pow(-0.5)
        dinv = dinv.masked_fill(torch.isinf(dinv), 0.0)
        norm = dinv[:, None] * a * dinv[None, :]
        return norm @ self.lin(x) + self.bias


class GcnNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = GCNConvPt()

    def forward(self, x, adj):
        return F.relu(self.conv(x, adj))


class GCNConvMs(mnn.Cell):
    def __init__(self, self_loops, cin=4, cout=6):
        super().__init__()
        self.self_loops = self_loops
        self.lin = mnn.Dense(cin, cout, has_bias=False)
        self.bias = Parameter(Tensor(np.zeros((cout,), np.float32)), name="bias")

    def construct(self, x, adj):
        a = adj + ops.eye(adj.shape[0], adj.shape[0], ms.float32) if self.self_loops else adj
        dinv = ops.pow(a.sum(1), -0.5)
        dinv = ops.masked_fill(dinv, ops.isinf(dinv), 0.0)
        norm = dinv[:, None] * a * dinv[None, :]
        return ops.matmul(norm, self.lin(x)) + self.bias


class GcnNetMs(mnn.Cell):
    def __init__(self, self_loops):
        super().__init__()
        self.conv = GCNConvMs(self_loops)

    def construct(self, x, adj):
        return ops.relu(self.conv(x, adj))


# --- 6. GPT-NeoX layer with use_parallel_residual=True -----------------------------------------------------------

class CausalSelfAttentionPt(tnn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.query_key_value = tnn.Linear(hidden, 3 * hidden)
        self.dense = tnn.Linear(hidden, hidden)

    def forward(self, x):
        t = x.shape[1]
        q, k, v = self.query_key_value(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        return self.dense(scores.masked_fill(causal, -1e9).softmax(-1) @ v)


class NeoxMlpPt(tnn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.dense_h_to_4h = tnn.Linear(hidden, 4 * hidden)
        self.dense_4h_to_h = tnn.Linear(4 * hidden, hidden)

    def forward(self, x):
        return self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(x)))


class NeoxLayerPt(tnn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.input_layernorm = tnn.LayerNorm(hidden)
        self.post_attention_layernorm = tnn.LayerNorm(hidden)
        self.attention = CausalSelfAttentionPt(hidden)
        self.mlp = NeoxMlpPt(hidden)

    def forward(self, x):
        return x + self.attention(self.input_layernorm(x)) + self.mlp(self.post_attention_layernorm(x))


class CausalSelfAttentionMs(mnn.Cell):
    def __init__(self, hidden=8):
        super().__init__()
        self.query_key_value = mnn.Dense(hidden, 3 * hidden)
        self.dense = mnn.Dense(hidden, hidden)

    def construct(self, x):
        t = x.shape[1]
        q, k, v = ops.chunk(self.query_key_value(x), 3, -1)
        scores = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(q.shape[-1])
        causal = ops.triu(ops.ones((t, t), ms.float32), 1).astype(ms.bool_)
        return self.dense(ops.matmul(ops.softmax(ops.masked_fill(scores, causal, -1e9), -1), v))


class NeoxMlpMs(mnn.Cell):
    def __init__(self, hidden=8):
        super().__init__()
        self.dense_h_to_4h = mnn.Dense(hidden, 4 * hidden)
        self.dense_4h_to_h = mnn.Dense(4 * hidden, hidden)

    def construct(self, x):
        return self.dense_4h_to_h(ops.gelu(self.dense_h_to_4h(x), approximate="none"))


class NeoxLayerMs(mnn.Cell):
    def __init__(self, parallel, hidden=8):
        super().__init__()
        self.parallel = parallel
        self.input_layernorm = mnn.LayerNorm((hidden,), epsilon=1e-5)
        self.post_attention_layernorm = mnn.LayerNorm((hidden,), epsilon=1e-5)
        self.attention = CausalSelfAttentionMs(hidden)
        self.mlp = NeoxMlpMs(hidden)

    def construct(self, x):
        attn = self.attention(self.input_layernorm(x))
        if self.parallel:
            return x + attn + self.mlp(self.post_attention_layernorm(x))
        h = x + attn
        return h + self.mlp(self.post_attention_layernorm(h))


# --- 7. GraphSAGE convolution with normalize=True (PyG SAGEConv, mean aggregation) --------------------------------

class SAGEConvPt(tnn.Module):
    def __init__(self, cin=4, cout=6):
        super().__init__()
        self.lin_l = tnn.Linear(cin, cout)
        self.lin_r = tnn.Linear(cin, cout, bias=False)

    def forward(self, x, adj):
        agg = adj @ x / adj.sum(1, keepdim=True).clamp(min=1.0)
        return F.normalize(self.lin_l(agg) + self.lin_r(x), p=2.0, dim=-1)


class SageNetPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = SAGEConvPt()

    def forward(self, x, adj):
        return self.conv(x, adj)


class SAGEConvMs(mnn.Cell):
    def __init__(self, row_axis, cin=4, cout=6):
        super().__init__()
        self.lin_l = mnn.Dense(cin, cout)
        self.lin_r = mnn.Dense(cin, cout, has_bias=False)
        self.normalize = ops.L2Normalize(axis=-1, epsilon=1e-12) if row_axis else ops.L2Normalize()

    def construct(self, x, adj):
        agg = ops.matmul(adj, x) / ops.clamp(adj.sum(1, keepdim=True), min=1.0)
        return self.normalize(self.lin_l(agg) + self.lin_r(x))


class SageNetMs(mnn.Cell):
    def __init__(self, row_axis):
        super().__init__()
        self.conv = SAGEConvMs(row_axis)

    def construct(self, x, adj):
        return self.conv(x, adj)


# --- 8. Wide & Deep with a weighted EmbeddingBag wide part -------------------------------------------------------

class WideDeepPt(tnn.Module):
    def __init__(self, vocab=20, dim=4):
        super().__init__()
        self.wide = tnn.EmbeddingBag(vocab, 1, mode="sum")
        self.deep_emb = tnn.EmbeddingBag(vocab, dim, mode="mean")
        self.deep = tnn.Sequential(tnn.Linear(dim, 8), tnn.ReLU(), tnn.Linear(8, 1))

    def forward(self, ids, values):
        wide = self.wide(ids, per_sample_weights=values)
        return torch.sigmoid(wide + self.deep(self.deep_emb(ids)))


class WideDeepMs(mnn.Cell):
    def __init__(self, weighted, vocab=20, dim=4):
        super().__init__()
        self.weighted = weighted
        self.wide = mnn.Embedding(vocab, 1)
        self.deep_emb = mnn.Embedding(vocab, dim)
        self.deep = mnn.SequentialCell([mnn.Dense(dim, 8), mnn.ReLU(), mnn.Dense(8, 1)])

    def construct(self, ids, values):
        wide = self.wide(ids)
        if self.weighted:
            wide = wide * values[..., None]
        wide = wide.sum(1)
        deep = self.deep(ops.mean(self.deep_emb(ids), 1))
        return ops.sigmoid(wide + deep)


_WIDE_DEEP_MAP = {"wide.weight": "wide.embedding_table", "deep_emb.weight": "deep_emb.embedding_table",
                  "deep.0.weight": "deep.0.weight", "deep.0.bias": "deep.0.bias",
                  "deep.2.weight": "deep.2.weight", "deep.2.bias": "deep.2.bias"}


ENTRIES = [
    entry("h21b_port_dcnv2_cross_layer_ops_matmul_weight_not_transposed", FAMILY,
          "model:torchrec CrossNet / DCN-v2 vs a MindSpore recommend port (nn.Linear weight stored (out, in))",
          CrossNetPt, lambda: CrossNetMs(False), lambda: CrossNetMs(True),
          ("layers.0",), ("weight layout|transpose_b|(out, in)",),
          inputs={"x0": uniform(4, 6)},
          cause_pattern=r"\b(transpos\w*|transpose_b|layout)\b(?:[^.]|\.(?=\w))*\bweight\b"
                        r"|\bweight\b(?:[^.]|\.(?=\w))*\b(transpos\w*|layout|\(out, ?in\)|out_features)\b"
                        r"|\btranspose_b\s*=\s*True\b|\bweight\.T\b"),
    entry("h21b_port_gptneox_attention_rotary_pct_applied_to_full_head", FAMILY,
          "model:HF GPTNeoXAttention (rotary_pct) vs a mindnlp-style port",
          NeoxRotaryBlockPt, lambda: NeoxRotaryBlockMs(1.0), lambda: NeoxRotaryBlockMs(0.5),
          ("attention",), ("rotary_pct|rotary_ndims|partial rotary",),
          inputs={"x": uniform(2, 5, 16)},
          cause_pattern=r"\brotary_(pct|ndims|dim)\b|\bpartial_rotary_factor\b"
                        r"|\brotary\b(?:[^.]|\.(?=\w))*\b(0\.5|half|first 4|partial|subset)\b"
                        r"|\b(partial|first 4|half)\b(?:[^.]|\.(?=\w))*\brotary\b"),
    entry("h21b_port_qwen2_moe_router_topk_weights_renormalised", FAMILY,
          "model:HF Qwen2MoeSparseMoeBlock (norm_topk_prob=False) vs a port copied from Mixtral's router",
          Qwen2MoeBlockPt, lambda: Qwen2MoeBlockMs(True), lambda: Qwen2MoeBlockMs(False),
          ("after:gate",), ("norm_topk_prob|renormalised top-k weights",),
          inputs={"x": uniform(2, 3, 8)},
          cause_pattern=r"\bnorm_topk_prob\b|\brenormali[sz]\w*\b"
                        r"|\b(top-?k|topk)\b(?:[^.]|\.(?=\w))*\b(weights?|probabilit\w+)\b(?:[^.]|\.(?=\w))*\b(sum|normali[sz]\w*)\b"),
    entry("h21b_port_gemma_mlp_block_rmsnorm_one_plus_weight_dropped", FAMILY,
          "model:HF GemmaRMSNorm (scales by 1 + weight) vs a port reusing a LLaMA-style RMSNorm",
          GemmaMlpBlockPt, lambda: GemmaMlpBlockMs(False), lambda: GemmaMlpBlockMs(True),
          ("input_layernorm",), ("(1 + weight)|Gemma RMSNorm offset",),
          inputs={"x": uniform(2, 3, 8)},
          cause_pattern=r"\b1(\.0)?\s*\+\s*(self\.)?weight\b|\bweight\s*\+\s*1\b"
                        r"|\bone plus\b|\b(unit|1)[- ]offset\b|\bzero-centred\b|\bzero-centered\b"),
    entry("h21b_port_gcn_conv_self_loops_not_added", FAMILY,
          "model:PyG GCNConv (add_self_loops=True) vs a dense-adjacency MindSpore port",
          GcnNetPt, lambda: GcnNetMs(False), lambda: GcnNetMs(True),
          ("conv",), ("add_self_loops|self-loops|A + I",),
          inputs={"x": uniform(5, 4), "adj": given(_ADJ)},
          cause_pattern=r"\bself[- _]?loops?\b|\badd_self_loops\b|\b(identity|eye)\b(?:[^.]|\.(?=\w))*\badj\w*"
                        r"|\badj\w*\b(?:[^.]|\.(?=\w))*\b(identity|eye)\b|\bA\s*\+\s*I\b"),
    entry("h21b_port_gptneox_layer_parallel_residual_ported_sequential", FAMILY,
          "model:HF GPTNeoXLayer (use_parallel_residual=True) vs a port with a sequential residual",
          NeoxLayerPt, lambda: NeoxLayerMs(False), lambda: NeoxLayerMs(True),
          ("post_attention_layernorm",), ("use_parallel_residual|parallel attention and MLP",),
          inputs={"x": uniform(2, 4, 8)},
          cause_pattern=r"\buse_parallel_residual\b|\bparallel\b(?:[^.]|\.(?=\w))*\b(residual|attention|branch\w*|mlp)\b"
                        r"|\b(sequential|serial)\b(?:[^.]|\.(?=\w))*\bresidual\b"),
    entry("h21b_port_graphsage_normalize_l2normalize_default_axis", FAMILY,
          "model:PyG SAGEConv(normalize=True) vs a MindSpore port using ops.L2Normalize",
          SageNetPt, lambda: SageNetMs(False), lambda: SageNetMs(True),
          ("conv",), ("L2Normalize axis|default axis 0|normalize dim=-1",),
          inputs={"x": uniform(5, 4), "adj": given(_ADJ)},
          cause_pattern=r"\bL2Normalize\b(?:[^.]|\.(?=\w))*\baxis\b|\baxis\s*=\s*-?1\b"
                        r"|\b(dim|axis)\b(?:[^.]|\.(?=\w))*\b(-1|last|1|feature)\b(?:[^.]|\.(?=\w))*\bnormali[sz]\w*"
                        r"|\bnormali[sz]\w*\b(?:[^.]|\.(?=\w))*\b(axis|dim)\b(?:[^.]|\.(?=\w))*\b(-1|last|1)\b"),
    entry("h21b_port_wide_deep_embeddingbag_per_sample_weights_dropped", FAMILY,
          "model:Wide&Deep with nn.EmbeddingBag(mode='sum', per_sample_weights) vs a MindSpore recommend port",
          WideDeepPt, lambda: WideDeepMs(False), lambda: WideDeepMs(True),
          ("wide",), ("per_sample_weights|weighted bag sum",),
          inputs={"ids": integers(3, 5, high=20), "values": uniform(3, 5, low=0.0, high=2.0)},
          weight_map=_WIDE_DEEP_MAP,
          cause_pattern=r"\bper[_ -]sample[_ -]weights?\b|\bweighted\b(?:[^.]|\.(?=\w))*\b(sum|bag|pool\w*)\b"
                        r"|\bvalues\b(?:[^.]|\.(?=\w))*\bmultipl\w*|\bmultipl\w*\b(?:[^.]|\.(?=\w))*\bvalues\b"),
]
