"""Held-out set 5, half c: real-port text blocks (CLIP MLP, Qwen2 rotary attention, T5 attention, RoBERTa embeddings).

Each block is written small, in the style of mindnlp's MindSpore port and of the huggingface transformers original
it follows; the naive port carries one realistic porting mistake, the correct port none.
"""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck import integers, uniform

FAMILY = "h5-port"


# --- CLIP encoder MLP with quick_gelu ---------------------------------------------------------------------------

def clip_torch():
    import torch
    from torch import nn

    class QuickGELUActivation(nn.Module):
        def forward(self, x):
            return x * torch.sigmoid(1.702 * x)

    class CLIPMLP(nn.Module):
        def __init__(self, hidden=8, intermediate=16):
            super().__init__()
            self.activation_fn = QuickGELUActivation()
            self.fc1 = nn.Linear(hidden, intermediate)
            self.fc2 = nn.Linear(intermediate, hidden)

        def forward(self, x):
            return self.fc2(self.activation_fn(self.fc1(x)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_norm2 = nn.LayerNorm(8, eps=1e-5)
            self.mlp = CLIPMLP()

        def forward(self, x):
            return x + self.mlp(self.layer_norm2(x))

    return Net()


def _clip_ms(quick):
    from mindspore import nn, ops

    class QuickGELUActivation(nn.Cell):
        def construct(self, x):
            return x * ops.sigmoid(1.702 * x)

    class CLIPMLP(nn.Cell):
        def __init__(self, hidden=8, intermediate=16):
            super().__init__()
            self.activation_fn = QuickGELUActivation() if quick else nn.GELU()
            self.fc1 = nn.Dense(hidden, intermediate)
            self.fc2 = nn.Dense(intermediate, hidden)

        def construct(self, x):
            return self.fc2(self.activation_fn(self.fc1(x)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer_norm2 = nn.LayerNorm((8,), epsilon=1e-5)
            self.mlp = CLIPMLP()

        def construct(self, x):
            return x + self.mlp(self.layer_norm2(x))

    return Net()


# --- Qwen2 attention with rotary position embedding (rope_theta=1e6) --------------------------------------------

def qwen2_torch():
    import torch
    from torch import nn

    class Qwen2RotaryEmbedding(nn.Module):
        def __init__(self, dim, base=10000):
            super().__init__()
            self.dim, self.base = dim, base

        def forward(self, x, seq_len):
            inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2, dtype=torch.int64).float() / self.dim))
            t = torch.arange(seq_len, dtype=torch.float32)
            freqs = torch.outer(t, inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    class Qwen2Attention(nn.Module):
        def __init__(self, hidden=16, heads=2, rope_theta=1000000.0):
            super().__init__()
            self.heads, self.head_dim = heads, hidden // heads
            self.q_proj = nn.Linear(hidden, hidden, bias=True)
            self.k_proj = nn.Linear(hidden, hidden, bias=True)
            self.v_proj = nn.Linear(hidden, hidden, bias=True)
            self.o_proj = nn.Linear(hidden, hidden, bias=False)
            self.rotary_emb = Qwen2RotaryEmbedding(self.head_dim, base=rope_theta)

        def forward(self, x):
            b, s, _ = x.shape
            q = self.q_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
            k = self.k_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
            v = self.v_proj(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
            cos, sin = self.rotary_emb(v, s)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
            scores = scores + torch.full((s, s), float("-inf")).triu(1)
            attn = torch.softmax(scores, dim=-1, dtype=torch.float32)
            out = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, -1)
            return self.o_proj(out)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn = Qwen2Attention()

        def forward(self, x):
            return x + self.self_attn(x)

    return Net()


def _qwen2_ms(pass_theta):
    import mindspore as ms
    from mindspore import Tensor, nn, ops

    class Qwen2RotaryEmbedding(nn.Cell):
        def __init__(self, dim, max_position_embeddings=32, base=10000):
            super().__init__()
            inv_freq = 1.0 / (base ** (np.arange(0, dim, 2).astype(np.float32) / dim))
            t = np.arange(max_position_embeddings, dtype=np.float32)
            emb = np.concatenate([np.outer(t, inv_freq)] * 2, axis=-1)
            self.cos_cached = Tensor(np.cos(emb), ms.float32)
            self.sin_cached = Tensor(np.sin(emb), ms.float32)

        def construct(self, x, seq_len):
            return self.cos_cached[:seq_len].astype(x.dtype), self.sin_cached[:seq_len].astype(x.dtype)

    def rotate_half(x):
        half = x.shape[-1] // 2
        return ops.cat((-x[..., half:], x[..., :half]), axis=-1)

    class Qwen2Attention(nn.Cell):
        def __init__(self, hidden=16, heads=2, rope_theta=1000000.0):
            super().__init__()
            self.heads, self.head_dim = heads, hidden // heads
            self.q_proj = nn.Dense(hidden, hidden, has_bias=True)
            self.k_proj = nn.Dense(hidden, hidden, has_bias=True)
            self.v_proj = nn.Dense(hidden, hidden, has_bias=True)
            self.o_proj = nn.Dense(hidden, hidden, has_bias=False)
            if pass_theta:
                self.rotary_emb = Qwen2RotaryEmbedding(self.head_dim, max_position_embeddings=32, base=rope_theta)
            else:
                self.rotary_emb = Qwen2RotaryEmbedding(self.head_dim, max_position_embeddings=32)
            self.causal = Tensor(np.triu(np.full((32, 32), -np.inf, dtype=np.float32), 1))

        def construct(self, x):
            b, s, _ = x.shape
            q = self.q_proj(x).view(b, s, self.heads, self.head_dim).swapaxes(1, 2)
            k = self.k_proj(x).view(b, s, self.heads, self.head_dim).swapaxes(1, 2)
            v = self.v_proj(x).view(b, s, self.heads, self.head_dim).swapaxes(1, 2)
            cos, sin = self.rotary_emb(v, s)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            scores = ops.matmul(q, k.swapaxes(2, 3)) / math.sqrt(self.head_dim)
            scores = scores + self.causal[:s, :s]
            attn = ops.softmax(scores.astype(ms.float32), axis=-1)
            out = ops.matmul(attn, v).swapaxes(1, 2).reshape(b, s, -1)
            return self.o_proj(out)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.self_attn = Qwen2Attention()

        def construct(self, x):
            return x + self.self_attn(x)

    return Net()


# --- T5 self-attention with relative position bias (no 1/sqrt(d) scaling) --------------------------------------

def t5_torch():
    import torch
    from torch import nn

    def relative_position_bucket(relative_position, num_buckets=8, max_distance=16):
        buckets = 0
        num_buckets //= 2  # bidirectional
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        large = max_exact + (torch.log(relative_position.float() / max_exact)
                             / math.log(max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, num_buckets - 1))
        return buckets + torch.where(is_small, relative_position, large)

    class T5Attention(nn.Module):
        def __init__(self, d_model=8, d_kv=4, heads=2, num_buckets=8, max_distance=16):
            super().__init__()
            self.heads, self.d_kv = heads, d_kv
            self.num_buckets, self.max_distance = num_buckets, max_distance
            inner = heads * d_kv
            self.q = nn.Linear(d_model, inner, bias=False)
            self.k = nn.Linear(d_model, inner, bias=False)
            self.v = nn.Linear(d_model, inner, bias=False)
            self.o = nn.Linear(inner, d_model, bias=False)
            self.relative_attention_bias = nn.Embedding(num_buckets, heads)

        def compute_bias(self, length):
            context = torch.arange(length, dtype=torch.long)[:, None]
            memory = torch.arange(length, dtype=torch.long)[None, :]
            bucket = relative_position_bucket(memory - context, self.num_buckets, self.max_distance)
            return self.relative_attention_bias(bucket).permute(2, 0, 1).unsqueeze(0)

        def forward(self, x):
            b, s, _ = x.shape

            def shape(t):
                return t.view(b, -1, self.heads, self.d_kv).transpose(1, 2)

            q, k, v = shape(self.q(x)), shape(self.k(x)), shape(self.v(x))
            scores = torch.matmul(q, k.transpose(3, 2)) + self.compute_bias(s)
            attn = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
            out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, -1, self.heads * self.d_kv)
            return self.o(out)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.SelfAttention = T5Attention()

        def forward(self, x):
            return x + self.SelfAttention(x)

    return Net()


def _t5_ms(scaled):
    import mindspore as ms
    from mindspore import nn, ops

    def relative_position_bucket(relative_position, num_buckets=8, max_distance=16):
        num_buckets //= 2
        buckets = (relative_position > 0).astype(ms.int64) * num_buckets
        relative_position = ops.abs(relative_position)
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        large = max_exact + (ops.log(relative_position.astype(ms.float32) / max_exact)
                             / math.log(max_distance / max_exact) * (num_buckets - max_exact)).astype(ms.int64)
        large = ops.minimum(large, ops.full_like(large, num_buckets - 1))
        return buckets + ops.where(is_small, relative_position, large)

    class T5Attention(nn.Cell):
        def __init__(self, d_model=8, d_kv=4, heads=2, num_buckets=8, max_distance=16):
            super().__init__()
            self.heads, self.d_kv = heads, d_kv
            self.num_buckets, self.max_distance = num_buckets, max_distance
            inner = heads * d_kv
            self.q = nn.Dense(d_model, inner, has_bias=False)
            self.k = nn.Dense(d_model, inner, has_bias=False)
            self.v = nn.Dense(d_model, inner, has_bias=False)
            self.o = nn.Dense(inner, d_model, has_bias=False)
            self.relative_attention_bias = nn.Embedding(num_buckets, heads)
            self.scale = d_kv ** -0.5

        def compute_bias(self, length):
            context = ops.arange(length, dtype=ms.int64)[:, None]
            memory = ops.arange(length, dtype=ms.int64)[None, :]
            bucket = relative_position_bucket(memory - context, self.num_buckets, self.max_distance)
            return self.relative_attention_bias(bucket).permute(2, 0, 1).expand_dims(0)

        def construct(self, x):
            b, s, _ = x.shape

            def shape(t):
                return t.view(b, -1, self.heads, self.d_kv).swapaxes(1, 2)

            q, k, v = shape(self.q(x)), shape(self.k(x)), shape(self.v(x))
            scores = ops.matmul(q, k.swapaxes(3, 2))
            if scaled:
                scores = scores * self.scale
            scores = scores + self.compute_bias(s)
            attn = ops.softmax(scores.astype(ms.float32), axis=-1).astype(scores.dtype)
            out = ops.matmul(attn, v).swapaxes(1, 2).view(b, -1, self.heads * self.d_kv)
            return self.o(out)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.SelfAttention = T5Attention()

        def construct(self, x):
            return x + self.SelfAttention(x)

    return Net()


# --- RoBERTa embeddings: position ids start after padding_idx ---------------------------------------------------

def roberta_torch():
    import torch
    from torch import nn

    def create_position_ids_from_input_ids(input_ids, padding_idx):
        mask = input_ids.ne(padding_idx).int()
        incremental = torch.cumsum(mask, dim=1).type_as(mask) * mask
        return incremental.long() + padding_idx

    class RobertaEmbeddings(nn.Module):
        def __init__(self, vocab=12, hidden=8, max_positions=10, pad=1):
            super().__init__()
            self.padding_idx = pad
            self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=pad)
            self.position_embeddings = nn.Embedding(max_positions, hidden, padding_idx=pad)
            self.token_type_embeddings = nn.Embedding(1, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-5)
            self.dropout = nn.Dropout(0.1)

        def forward(self, input_ids):
            position_ids = create_position_ids_from_input_ids(input_ids, self.padding_idx)
            token_type_ids = torch.zeros_like(input_ids)
            emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            emb = emb + self.position_embeddings(position_ids)
            return self.dropout(self.LayerNorm(emb))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = RobertaEmbeddings()
            self.dense = nn.Linear(8, 8)

        def forward(self, input_ids):
            return self.dense(self.embeddings(input_ids))

    return Net()


def _roberta_ms(from_input_ids):
    import mindspore as ms
    from mindspore import nn, ops

    def create_position_ids_from_input_ids(input_ids, padding_idx):
        mask = (input_ids != padding_idx).astype(ms.int32)
        incremental = ops.cumsum(mask, axis=1).astype(ms.int32) * mask
        return incremental.astype(ms.int64) + padding_idx

    class RobertaEmbeddings(nn.Cell):
        def __init__(self, vocab=12, hidden=8, max_positions=10, pad=1):
            super().__init__()
            self.padding_idx = pad
            self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=pad)
            self.position_embeddings = nn.Embedding(max_positions, hidden, padding_idx=pad)
            self.token_type_embeddings = nn.Embedding(1, hidden)
            self.LayerNorm = nn.LayerNorm((hidden,), epsilon=1e-5)
            self.dropout = nn.Dropout(p=0.1)

        def construct(self, input_ids):
            if from_input_ids:
                position_ids = create_position_ids_from_input_ids(input_ids, self.padding_idx)
            else:
                position_ids = ops.arange(input_ids.shape[1], dtype=ms.int64).expand_dims(0)
            token_type_ids = ops.zeros_like(input_ids)
            emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            emb = emb + self.position_embeddings(position_ids)
            return self.dropout(self.LayerNorm(emb))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.embeddings = RobertaEmbeddings()
            self.dense = nn.Dense(8, 8)

        def construct(self, input_ids):
            return self.dense(self.embeddings(input_ids))

    return Net()


ENTRIES = [
    entry("h5c_port_clip_mlp_quick_gelu_as_gelu", FAMILY,
          "mindspore-lab/mindnlp/mindnlp/transformers/models/clip/modeling_clip.py (CLIPMLP, hidden_act quick_gelu); "
          "torch: huggingface/transformers/src/transformers/models/clip/modeling_clip.py",
          clip_torch, lambda: _clip_ms(False), lambda: _clip_ms(True),
          layers=("mlp.activation_fn",), causes=("quick_gelu|1.702|gelu",),
          inputs={"x": uniform(2, 5, 8)},
          cause_pattern=r"\b1\.702\b|\bquick[_ ]?gelu\w*\b"),
    entry("h5c_port_qwen2_rotary_base_default_theta", FAMILY,
          "mindspore-lab/mindnlp/mindnlp/transformers/models/qwen2/modeling_qwen2.py (Qwen2RotaryEmbedding base); "
          "torch: huggingface/transformers/src/transformers/models/qwen2/modeling_qwen2.py (rope_theta=1e6)",
          qwen2_torch, lambda: _qwen2_ms(False), lambda: _qwen2_ms(True),
          layers=("self_attn.rotary_emb",), causes=("rope_theta|base|theta",),
          inputs={"x": uniform(2, 5, 16)},
          cause_pattern=r"\b(rope_theta|base|theta)\b[^.\n]*(\b1e\+?0?6\b|\b1000000(\.0)?\b|\b1_000_000\b|\b10\s*\*\*\s*6\b)"),
    entry("h5c_port_t5_attention_scaled_by_sqrt_dkv", FAMILY,
          "mindspore-lab/mindnlp/mindnlp/transformers/models/t5/modeling_t5.py (T5Attention, no score scaling); "
          "torch: huggingface/transformers/src/transformers/models/t5/modeling_t5.py",
          t5_torch, lambda: _t5_ms(True), lambda: _t5_ms(False),
          layers=("SelfAttention",), causes=("scale|sqrt|scaling",),
          inputs={"x": uniform(2, 6, 8)},
          cause_pattern=r"\b(remov|drop|omit|delet|undo)\w*\b[^.\n]*\b(scal\w*|sqrt|rsqrt)\b"
                        r"|\b(no|without|unscaled|not scaled)\b[^.\n]*\b(scal\w*|sqrt)\b"
                        r"|\b(scal\w*|sqrt)\b[^.\n]*\b(should not|must not|is not applied|not be applied)\b"),
    entry("h5c_port_roberta_position_ids_from_zero", FAMILY,
          "mindspore-lab/mindnlp/mindnlp/transformers/models/roberta/modeling_roberta.py (RobertaEmbeddings, "
          "create_position_ids_from_input_ids); torch: huggingface/transformers/src/transformers/models/roberta/"
          "modeling_roberta.py",
          roberta_torch, lambda: _roberta_ms(False), lambda: _roberta_ms(True),
          layers=("embeddings",), causes=("position_ids|padding_idx",),
          inputs={"input_ids": integers(2, 6, low=2, high=12)},
          cause_pattern=r"\bcreate_position_ids_from_input_ids\b|\bpadding_idx\s*\+\s*1\b|\bcumsum\b"
                        r"|\bposition(_ids|\s+ids)?\b[^.\n]*\b(start|begin|offset|shift)\w*\b[^.\n]*\b(2|padding_idx)\b"),
]
