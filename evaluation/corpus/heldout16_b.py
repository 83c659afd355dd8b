"""Held-out set 16, half b: single-API pitfalls and small blocks modelled on MindSpore ports of large models."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

ENTRIES: list = []


def _t():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _m():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return ms, mnn, ops


# ---------------------------------------------------------------------------------------------------------------
# 1. Qwen-VL visual resampler cross-attention: packed in_proj_weight applied with F.linear (x @ W^T);
#    the port splits the packed weight and multiplies with ops.MatMul() (no transpose_b).
_D, _NQ, _H = 8, 4, 2


def torch_resampler():
    torch, tnn, F = _t()

    class Resampler(tnn.Module):
        def __init__(self):
            super().__init__()
            self.query = tnn.Parameter(torch.randn(_NQ, _D) * 0.5)
            self.kv_proj = tnn.Linear(12, _D, bias=False)
            self.ln_kv = tnn.LayerNorm(_D)
            self.in_proj_weight = tnn.Parameter(torch.randn(3 * _D, _D) * 0.3)
            self.in_proj_bias = tnn.Parameter(torch.randn(3 * _D) * 0.1)
            self.out_proj = tnn.Linear(_D, _D)

        def forward(self, x):
            kv = self.ln_kv(self.kv_proj(x))
            b = x.shape[0]
            q = self.query.unsqueeze(0).expand(b, -1, -1)
            wq, wk, wv = self.in_proj_weight.chunk(3, dim=0)
            bq, bk, bv = self.in_proj_bias.chunk(3, dim=0)
            q, k, v = F.linear(q, wq, bq), F.linear(kv, wk, bk), F.linear(kv, wv, bv)
            hd = _D // _H
            q = q.reshape(b, -1, _H, hd).transpose(1, 2)
            k = k.reshape(b, -1, _H, hd).transpose(1, 2)
            v = v.reshape(b, -1, _H, hd).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd), dim=-1)
            o = (att @ v).transpose(1, 2).reshape(b, -1, _D)
            return self.out_proj(o)
    return Resampler()


def _ms_resampler(transpose_b):
    ms, mnn, ops = _m()

    class Resampler(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.query = ms.Parameter(ms.Tensor(np.zeros((_NQ, _D), np.float32)), name="query")
            self.kv_proj = mnn.Dense(12, _D, has_bias=False)
            self.ln_kv = mnn.LayerNorm((_D,), epsilon=1e-5)
            self.in_proj_weight = ms.Parameter(ms.Tensor(np.zeros((3 * _D, _D), np.float32)), name="in_proj_weight")
            self.in_proj_bias = ms.Parameter(ms.Tensor(np.zeros((3 * _D,), np.float32)), name="in_proj_bias")
            self.out_proj = mnn.Dense(_D, _D)
            self.matmul = ops.MatMul(transpose_b=True) if transpose_b else ops.MatMul()
            self.bmm = ops.BatchMatMul(transpose_b=True)
            self.bmm_v = ops.BatchMatMul()

        def _proj(self, x, w, bias):
            b, n, d = x.shape
            return self.matmul(x.reshape(b * n, d), w).reshape(b, n, -1) + bias

        def construct(self, x):
            kv = self.ln_kv(self.kv_proj(x))
            b = x.shape[0]
            q = ops.broadcast_to(ops.expand_dims(self.query, 0), (b, _NQ, _D))
            wq, wk, wv = ops.chunk(self.in_proj_weight, 3, 0)
            bq, bk, bv = ops.chunk(self.in_proj_bias, 3, 0)
            q, k, v = self._proj(q, wq, bq), self._proj(kv, wk, bk), self._proj(kv, wv, bv)
            hd = _D // _H
            q = q.reshape(b, -1, _H, hd).transpose(0, 2, 1, 3)
            k = k.reshape(b, -1, _H, hd).transpose(0, 2, 1, 3)
            v = v.reshape(b, -1, _H, hd).transpose(0, 2, 1, 3)
            att = ops.softmax(self.bmm(q, k) / math.sqrt(hd), axis=-1)
            o = self.bmm_v(att, v).transpose(0, 2, 1, 3).reshape(b, -1, _D)
            return self.out_proj(o)
    return Resampler()


ENTRIES.append(entry(
    "h16b_port_qwen_vl_resampler_in_proj_matmul_transpose_b_dropped", "h16-port",
    "model:Qwen-VL visual Resampler (HF Qwen-VL visual.py) vs a mindnlp-style port; MatMul.md",
    torch_resampler, lambda: _ms_resampler(False), lambda: _ms_resampler(True),
    ["<root>"], ["in_proj_weight|F.linear|transpose_b|MatMul"],
    inputs={"x": uniform(2, 5, 12)},
    cause_pattern=r"\btranspose_b\b|\bF\.linear\b|\bops\.dense\b|\bin_proj_weight\b[^.]*\btranspos"
                  r"|\btranspos\w*\b[^.]*\bin_proj_weight\b|\bweight\b[^.]*\btranspos\w*\b[^.]*\bmatmul\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 2. Mixtral sparse-MoE router: top-k gate weights scattered into a dense (tokens, experts) gate matrix with
#    Tensor.scatter(1, idx, w); the port uses ops.tensor_scatter_elements, whose axis defaults to 0.
_E, _K, _HID = 4, 2, 6


def torch_router():
    torch, tnn, F = _t()

    class MoE(tnn.Module):
        def __init__(self):
            super().__init__()
            self.gate = tnn.Linear(_HID, _E, bias=False)
            self.experts = tnn.ModuleList([tnn.Linear(_HID, _HID) for _ in range(_E)])

        def forward(self, x):
            b, s, d = x.shape
            h = x.reshape(-1, d)
            probs = F.softmax(self.gate(h), dim=1, dtype=torch.float)
            w, idx = torch.topk(probs, _K, dim=-1)
            w = w / w.sum(dim=-1, keepdim=True)
            gates = torch.zeros_like(probs).scatter(1, idx, w)
            out = torch.stack([e(h) for e in self.experts], dim=1)
            return (gates.unsqueeze(-1) * out).sum(dim=1).reshape(b, s, d)
    return MoE()


def _ms_router(axis):
    ms, mnn, ops = _m()

    class MoE(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.gate = mnn.Dense(_HID, _E, has_bias=False)
            self.experts = mnn.CellList([mnn.Dense(_HID, _HID) for _ in range(_E)])

        def construct(self, x):
            b, s, d = x.shape
            h = x.reshape(-1, d)
            probs = ops.softmax(self.gate(h), axis=1)
            w, idx = ops.topk(probs, _K, dim=-1)
            w = w / w.sum(axis=-1, keepdims=True)
            if axis is None:
                gates = ops.tensor_scatter_elements(ops.zeros_like(probs), idx, w)
            else:
                gates = ops.tensor_scatter_elements(ops.zeros_like(probs), idx, w, axis=axis)
            out = ops.stack([e(h) for e in self.experts], axis=1)
            return (ops.expand_dims(gates, -1) * out).sum(axis=1).reshape(b, s, d)
    return MoE()


ENTRIES.append(entry(
    "h16b_port_mixtral_router_gates_tensor_scatter_elements_default_axis", "h16-port",
    "model:Mixtral sparse MoE block (HF modeling_mixtral) vs a mindformers-style port; TensorScatterElements.md",
    torch_router, lambda: _ms_router(None), lambda: _ms_router(1),
    ["<root>"], ["tensor_scatter_elements|axis|scatter dim"],
    inputs={"x": uniform(2, 4, _HID)},
    cause_pattern=r"\btensor_scatter_elements\b[^.]*\baxis\b|\baxis\s*=\s*1\b[^.]*\bscatter|\bscatter\w*\b[^.]*\b(?:axis|dim)\s*=?\s*1\b"
                  r"|\bscatter\w*\b[^.]*\baxis\b[^.]*\b0\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 3. CLIP text transformer pooling at the end-of-text token: x[arange(B), input_ids.argmax(dim=-1)];
#    the port calls ops.argmax(input_ids) whose dim defaults to None (argmax over the flattened tensor).
_V, _W, _L = 12, 8, 6


def torch_clip_pool():
    torch, tnn, F = _t()

    class TextPool(tnn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding = tnn.Embedding(_V, _W)
            self.positional_embedding = tnn.Parameter(torch.randn(_L, _W) * 0.1)
            self.ln_final = tnn.LayerNorm(_W)
            self.text_projection = tnn.Parameter(torch.randn(_W, 4) * 0.3)

        def forward(self, input_ids):
            x = self.token_embedding(input_ids) + self.positional_embedding
            x = self.ln_final(x)
            x = x[torch.arange(x.shape[0]), input_ids.argmax(dim=-1)]
            return x @ self.text_projection
    return TextPool()


def _ms_clip_pool(with_dim):
    ms, mnn, ops = _m()

    class TextPool(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.token_embedding = mnn.Embedding(_V, _W)
            self.positional_embedding = ms.Parameter(ms.Tensor(np.zeros((_L, _W), np.float32)), name="positional_embedding")
            self.ln_final = mnn.LayerNorm((_W,), epsilon=1e-5)
            self.text_projection = ms.Parameter(ms.Tensor(np.zeros((_W, 4), np.float32)), name="text_projection")

        def construct(self, input_ids):
            x = self.token_embedding(input_ids) + self.positional_embedding
            x = self.ln_final(x)
            eot = ops.argmax(input_ids, dim=-1) if with_dim else ops.argmax(input_ids)
            x = x[ops.arange(x.shape[0]), eot]
            return ops.matmul(x, self.text_projection)
    return TextPool()


ENTRIES.append(entry(
    "h16b_port_clip_text_eot_pool_ops_argmax_default_dim_none", "h16-port",
    "model:CLIP text transformer EOT pooling (open_clip / HF CLIPTextTransformer) vs a mindone-style port; argmax.md",
    torch_clip_pool, lambda: _ms_clip_pool(False), lambda: _ms_clip_pool(True),
    ["<root>"], ["argmax|dim=-1|flattened"],
    inputs={"input_ids": given(np.array([[1, 5, 11, 0, 0, 0], [1, 3, 7, 4, 11, 0]], np.int64))},
    weight_map={"token_embedding.weight": "token_embedding.embedding_table"},
    cause_pattern=r"\bargmax\b[^.]*\b(?:dim|axis)\s*=?\s*-1\b|\bargmax\b[^.]*\bflatten|\bargmax\b[^.]*\b(?:dim|axis)\b[^.]*\bNone\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 4. Falcon multi-query attention: one shared K/V head; scores q @ k^T computed with ops.BatchMatMul()
#    without transpose_b (seq length == head_dim, so the shapes line up).
_FD, _FH, _FS = 8, 2, 4  # head_dim 4 == seq 4


def torch_falcon_mqa():
    torch, tnn, F = _t()

    class MQA(tnn.Module):
        def __init__(self):
            super().__init__()
            self.query_key_value = tnn.Linear(_FD, _FD + 2 * (_FD // _FH), bias=False)
            self.dense = tnn.Linear(_FD, _FD, bias=False)

        def forward(self, x):
            b, s, _ = x.shape
            hd = _FD // _FH
            qkv = self.query_key_value(x)
            q = qkv[..., :_FD].reshape(b, s, _FH, hd).transpose(1, 2)
            k = qkv[..., _FD:_FD + hd].reshape(b, s, 1, hd).transpose(1, 2)
            v = qkv[..., _FD + hd:].reshape(b, s, 1, hd).transpose(1, 2)
            k = k.expand(-1, _FH, -1, -1)
            v = v.expand(-1, _FH, -1, -1)
            mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + mask, dim=-1)
            return self.dense((att @ v).transpose(1, 2).reshape(b, s, _FD))
    return MQA()


def _ms_falcon_mqa(transpose_b):
    ms, mnn, ops = _m()

    class MQA(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.query_key_value = mnn.Dense(_FD, _FD + 2 * (_FD // _FH), has_bias=False)
            self.dense = mnn.Dense(_FD, _FD, has_bias=False)
            self.qk = ops.BatchMatMul(transpose_b=True) if transpose_b else ops.BatchMatMul()
            self.av = ops.BatchMatMul()
            self.mask = ms.Tensor(np.triu(np.full((_FS, _FS), -np.inf, np.float32), 1))

        def construct(self, x):
            b, s, _ = x.shape
            hd = _FD // _FH
            qkv = self.query_key_value(x)
            q = qkv[..., :_FD].reshape(b, s, _FH, hd).transpose(0, 2, 1, 3)
            k = qkv[..., _FD:_FD + hd].reshape(b, s, 1, hd).transpose(0, 2, 1, 3)
            v = qkv[..., _FD + hd:].reshape(b, s, 1, hd).transpose(0, 2, 1, 3)
            k = ops.broadcast_to(k, (b, _FH, s, hd))
            v = ops.broadcast_to(v, (b, _FH, s, hd))
            att = ops.softmax(self.qk(q, k) / math.sqrt(hd) + self.mask, axis=-1)
            return self.dense(self.av(att, v).transpose(0, 2, 1, 3).reshape(b, s, _FD))
    return MQA()


ENTRIES.append(entry(
    "h16b_port_falcon_mqa_scores_batchmatmul_transpose_b_dropped", "h16-port",
    "model:Falcon multi-query attention (HF modeling_falcon) vs a mindformers-style port; BatchMatMul.md",
    torch_falcon_mqa, lambda: _ms_falcon_mqa(False), lambda: _ms_falcon_mqa(True),
    ["<root>"], ["BatchMatMul|transpose_b|key transpose"],
    inputs={"x": uniform(2, _FS, _FD)},
    cause_pattern=r"\btranspose_b\b|\bBatchMatMul\b[^.]*\btranspos|\bkey\b[^.]*\btranspos\w*|\btranspos\w*\b[^.]*\bkey\b"
                  r"|\bswapaxes\b|\bk\.transpose\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 5. (gradient only) word embedding with scale_grad_by_freq=True; mindspore.nn.Embedding has no such option and
#    the port silently drops it: same forward, the embedding-table gradient is not divided by token counts.
def torch_embed_freq():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embed = tnn.Embedding(10, 6, scale_grad_by_freq=True)
            self.fc = tnn.Linear(6, 3)

        def forward(self, ids):
            return self.fc(torch.tanh(self.embed(ids)))
    return Net()


def _ms_embed_freq(scaled):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = mnn.Embedding(10, 6)
            self.fc = mnn.Dense(6, 3)

        def construct(self, ids):
            e = self.embed(ids)
            if scaled:
                # divide each looked-up row's gradient by the token's count in the batch, forward unchanged
                flat = ids.reshape(-1)
                counts = ops.gather(ops.bincount(flat.astype(ms.int32), minlength=10).astype(ms.float32),
                                    flat, 0).reshape(ids.shape + (1,))
                e = e / counts + ops.stop_gradient(e - e / counts)
            return self.fc(ops.tanh(e))
    return Net()


ENTRIES.append(entry(
    "h16b_embedding_scale_grad_by_freq_dropped_weight_gradient", "h16",
    "Embedding.md",
    torch_embed_freq, lambda: _ms_embed_freq(False), lambda: _ms_embed_freq(True),
    ["embed"], ["scale_grad_by_freq"],
    inputs={"ids": given(np.array([[1, 1, 1, 4, 2], [4, 7, 1, 2, 2]], np.int64))},
    checks=("forward", "backward"), fails_on=("backward",),
    weight_map={"embed.weight": "embed.embedding_table", "fc.weight": "fc.weight", "fc.bias": "fc.bias"},
    cause_pattern=r"\bscale_grad_by_freq\b|\b(?:gradient|grad)\w*\b[^.]*\b(?:frequen\w*|count\w*)\b[^.]*\b(?:token|word|index|indices)",
))


# ---------------------------------------------------------------------------------------------------------------
# 6. (functional) torch.flatten(x) flattens everything (start_dim=0); mindspore.ops.flatten keeps axis 0
#    (start_dim=1 by default). Here a per-sample net scores all positions of its single feature map jointly.
def torch_flatten():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 3)

        def forward(self, x):
            h = self.fc1(x)               # (5, 3)
            return torch.softmax(torch.flatten(h), dim=-1)
    return Net()


def _ms_flatten(start0):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(4, 3)

        def construct(self, x):
            h = self.fc1(x)
            f = ops.flatten(h, start_dim=0) if start0 else ops.flatten(h)
            return ops.softmax(f, axis=-1)
    return Net()


ENTRIES.append(entry(
    "h16b_flatten_default_start_dim_one_per_row_softmax", "h16",
    "flatten.md",
    torch_flatten, lambda: _ms_flatten(False), lambda: _ms_flatten(True),
    ["after:fc1"], ["flatten|start_dim"],
    inputs={"x": uniform(5, 4)}, fails_with="shape",
    cause_pattern=r"\bstart_dim\b[^.]*\b0\b|\bflatten\b[^.]*\bstart_dim\b|\bflatten\b[^.]*\b(?:axis|dimension)\s*0\b|\breshape\b[^.]*\(-1\)",
))


# ---------------------------------------------------------------------------------------------------------------
# 7. (error) Gemma RMSNorm ((1 + weight) scaling) ported with mindspore.ops.rms_norm, which has no CPU kernel.
def torch_gemma_rms():
    torch, tnn, F = _t()

    class GemmaRMSNorm(tnn.Module):
        def __init__(self, dim, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = tnn.Parameter(torch.zeros(dim))

        def forward(self, x):
            x32 = x.float()
            y = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
            return (y * (1.0 + self.weight.float())).type_as(x)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(6, 8)
            self.norm = GemmaRMSNorm(8)
            self.fc2 = tnn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.norm(self.fc1(x)))
    return Net()


def _ms_gemma_rms(fused):
    ms, mnn, ops = _m()

    class GemmaRMSNorm(mnn.Cell):
        def __init__(self, dim, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = ms.Parameter(ms.Tensor(np.zeros(dim, np.float32)), name="weight")

        def construct(self, x):
            if fused:
                return ops.rms_norm(x, 1.0 + self.weight, epsilon=self.eps)[0]
            y = x * ops.rsqrt(ops.mean(x * x, -1, True) + self.eps)
            return y * (1.0 + self.weight)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(6, 8)
            self.norm = GemmaRMSNorm(8)
            self.fc2 = mnn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(self.norm(self.fc1(x)))
    return Net()


ENTRIES.append(entry(
    "h16b_gemma_rmsnorm_ops_rms_norm_no_cpu_kernel_raises", "h16",
    "probe:mindspore.ops.rms_norm on CPU (RmsNorm kernel unregistered); model:Gemma RMSNorm",
    torch_gemma_rms, lambda: _ms_gemma_rms(True), lambda: _ms_gemma_rms(False),
    ["norm"], ["rms_norm|RmsNorm|CPU kernel"],
    inputs={"x": uniform(3, 6)}, fails_with="error",
    cause_pattern=r"\brms_?norm\b[^.]*\b(?:CPU|kernel|unregistered|not supported|unsupported)\b"
                  r"|\b(?:CPU|kernel)\b[^.]*\brms_?norm\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 8. (functional) F.softplus(x, beta=2.0) ported with the ops.Softplus primitive, which has no beta.
def torch_softplus():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(5, 6)
            self.fc2 = tnn.Linear(6, 2)

        def forward(self, x):
            return self.fc2(F.softplus(self.fc1(x), beta=2.0))
    return Net()


def _ms_softplus(with_beta):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(5, 6)
            self.fc2 = mnn.Dense(6, 2)
            self.sp = ops.Softplus()

        def construct(self, x):
            h = self.fc1(x)
            h = ops.softplus(h, beta=2.0) if with_beta else self.sp(h)
            return self.fc2(h)
    return Net()


ENTRIES.append(entry(
    "h16b_functional_softplus_beta_as_softplus_primitive", "h16",
    "Softplus.md",
    torch_softplus, lambda: _ms_softplus(False), lambda: _ms_softplus(True),
    ["after:fc1"], ["softplus|beta"],
    inputs={"x": uniform(4, 5, low=-2.0, high=2.0)},
    cause_pattern=r"\bbeta\b[^.]*\b2(?:\.0)?\b|\bsoftplus\b[^.]*\bbeta\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 9. LLaVA multimodal projector Linear -> GELU (exact erf) -> Linear, ported with
#    mindspore.nn.Dense(..., activation="gelu"), whose GELU cell is the tanh approximation.
def torch_llava_proj():
    torch, tnn, F = _t()

    class LlavaMultiModalProjector(tnn.Module):
        def __init__(self):
            super().__init__()
            self.linear_1 = tnn.Linear(10, 12)
            self.act = tnn.GELU()
            self.linear_2 = tnn.Linear(12, 8)

        def forward(self, image_features):
            return self.linear_2(self.act(self.linear_1(image_features)))
    return LlavaMultiModalProjector()


def _ms_llava_proj(exact):
    ms, mnn, ops = _m()

    class LlavaMultiModalProjector(mnn.Cell):
        def __init__(self):
            super().__init__()
            if exact:
                self.linear_1 = mnn.Dense(10, 12, activation=mnn.GELU(approximate=False))
            else:
                self.linear_1 = mnn.Dense(10, 12, activation="gelu")
            self.linear_2 = mnn.Dense(12, 8)

        def construct(self, image_features):
            return self.linear_2(self.linear_1(image_features))
    return LlavaMultiModalProjector()


ENTRIES.append(entry(
    "h16b_port_llava_projector_dense_activation_string_gelu", "h16-port",
    "model:LLaVA LlavaMultiModalProjector (HF modeling_llava) vs a mindnlp-style port; GELU.md",
    torch_llava_proj, lambda: _ms_llava_proj(False), lambda: _ms_llava_proj(True),
    ["act"], ["gelu|approximate|tanh|activation string"],
    inputs={"image_features": uniform(2, 3, 10, low=-3.0, high=3.0)},
    cause_pattern=r"\bapproximate\s*=\s*(?:False|['\"]none['\"])|\bapproximate\b[^.]*\b(?:False|none|erf|exact)\b"
                  r"|\b(?:exact|erf)\b[^.]*\bgelu\b|\bgelu\b[^.]*\b(?:tanh|erf|exact)\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 10. SigLIP pairwise sigmoid loss with learnable temperature and bias: -logsigmoid(labels * logits).sum() / n.
#     The port uses ops.binary_cross_entropy_with_logits on 0/1 targets, whose reduction defaults to 'mean'
#     (divides by n*n instead of n).
def torch_siglip():
    torch, tnn, F = _t()

    class SigLipLoss(tnn.Module):
        def __init__(self):
            super().__init__()
            self.logit_scale = tnn.Parameter(torch.tensor(math.log(10.0)))
            self.logit_bias = tnn.Parameter(torch.tensor(-10.0))

        def forward(self, image_features, text_features):
            img = F.normalize(image_features, dim=-1)
            txt = F.normalize(text_features, dim=-1)
            logits = img @ txt.T * self.logit_scale.exp() + self.logit_bias
            n = logits.shape[0]
            labels = 2 * torch.eye(n) - 1
            return -F.logsigmoid(labels * logits).sum() / n
    return SigLipLoss()


def _ms_siglip(summed):
    ms, mnn, ops = _m()

    class SigLipLoss(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.logit_scale = ms.Parameter(ms.Tensor(math.log(10.0), ms.float32), name="logit_scale")
            self.logit_bias = ms.Parameter(ms.Tensor(-10.0, ms.float32), name="logit_bias")

        def construct(self, image_features, text_features):
            img = image_features / ops.norm(image_features, dim=-1, keepdim=True)
            txt = text_features / ops.norm(text_features, dim=-1, keepdim=True)
            logits = ops.matmul(img, txt.T) * ops.exp(self.logit_scale) + self.logit_bias
            n = logits.shape[0]
            targets = ops.eye(n, n, ms.float32)
            ones = ops.ones_like(logits)
            if summed:
                return ops.binary_cross_entropy_with_logits(logits, targets, ones, ones, reduction="sum") / n
            return ops.binary_cross_entropy_with_logits(logits, targets, ones, ones)
    return SigLipLoss()


ENTRIES.append(entry(
    "h16b_port_siglip_sigmoid_loss_bce_with_logits_default_mean", "h16-port",
    "model:SigLIP sigmoid loss (open_clip loss.py SigLipLoss) vs a mindone-style port; BCEWithLogitsLoss.md",
    torch_siglip, lambda: _ms_siglip(False), lambda: _ms_siglip(True),
    ["<root>"], ["reduction|mean|sum"],
    inputs={"image_features": uniform(4, 6), "text_features": uniform(4, 6)},
    cause_pattern=r"\breduction\s*=\s*['\"]?sum\b|\breduction\b[^.]*\bsum\b|\bmean\b[^.]*\b(?:n\s*\*\s*n|n\^?2|n²|batch\s*size)\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 11. (gradient only) nn.Hardswish ported as mindspore.nn.HSwish: same values, but the derivative at x == +3
#     (exact boundary values after a clamp-free scaling) differs.
def torch_hswish():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.act = tnn.Hardswish()
            self.fc = tnn.Linear(4, 2)

        def forward(self, x):
            return self.fc(self.act(x))
    return Net()


def _ms_hswish(manual):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.act = mnn.HSwish()
            self.fc = mnn.Dense(4, 2)

        def construct(self, x):
            if manual:
                h = x * ops.clamp(x + 3.0, 0.0, 6.0) / 6.0
                h = ops.where(x >= 3.0, x, h)
            else:
                h = self.act(x)
            return self.fc(h)
    return Net()


ENTRIES.append(entry(
    "h16b_hswish_cell_gradient_at_plus_three", "h16",
    "probe:mindspore.nn.HSwish backward at x == 3 vs torch.nn.Hardswish",
    torch_hswish, lambda: _ms_hswish(False), lambda: _ms_hswish(True),
    ["act"], ["hardswish|hswish|gradient at 3"],
    inputs={"x": given(np.array([[3.0, 1.0, -1.0, 3.0], [0.5, 3.0, 2.0, -2.0]], np.float32))},
    checks=("forward", "backward"), fails_on=("backward",),
    cause_pattern=r"\bh(?:ard)?swish\b[^.]*\b(?:gradient|grad|derivative|backward)\b|\b(?:gradient|grad|derivative|backward)\b[^.]*\bh(?:ard)?swish\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 12. SigLIP vision multihead-attention pooling head (HF SiglipMultiheadAttentionPoolingHead): a learned probe
#     attends over the patch tokens with nn.MultiheadAttention(batch_first=True); the port builds
#     mindspore.nn.MultiheadAttention without batch_first=True (it defaults to False there too).
_PD, _PH = 8, 2


def torch_siglip_map():
    torch, tnn, F = _t()

    class MAPHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.probe = tnn.Parameter(torch.randn(1, 1, _PD) * 0.5)
            self.attention = tnn.MultiheadAttention(_PD, _PH, batch_first=True)
            self.layernorm = tnn.LayerNorm(_PD)
            self.fc1 = tnn.Linear(_PD, 16)
            self.fc2 = tnn.Linear(16, _PD)

        def forward(self, hidden_state):
            b = hidden_state.shape[0]
            probe = self.probe.repeat(b, 1, 1)
            h = self.attention(probe, hidden_state, hidden_state)[0]
            r = h
            h = self.fc2(F.gelu(self.fc1(self.layernorm(h)), approximate="tanh"))
            return (r + h)[:, 0]
    return MAPHead()


def _ms_siglip_map(batch_first):
    ms, mnn, ops = _m()

    class MAPHead(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.probe = ms.Parameter(ms.Tensor(np.zeros((1, 1, _PD), np.float32)), name="probe")
            if batch_first:
                self.attention = mnn.MultiheadAttention(_PD, _PH, batch_first=True)
            else:
                self.attention = mnn.MultiheadAttention(_PD, _PH)
            self.layernorm = mnn.LayerNorm((_PD,), epsilon=1e-5)
            self.fc1 = mnn.Dense(_PD, 16)
            self.fc2 = mnn.Dense(16, _PD)

        def construct(self, hidden_state):
            b = hidden_state.shape[0]
            probe = ops.tile(self.probe, (b, 1, 1))
            h = self.attention(probe, hidden_state, hidden_state)[0]
            r = h
            h = self.fc2(ops.gelu(self.fc1(self.layernorm(h)), approximate="tanh"))
            return (r + h)[:, 0]
    return MAPHead()


ENTRIES.append(entry(
    "h16b_port_siglip_map_head_multihead_attention_batch_first_dropped_raises", "h16-port",
    "model:SigLIP SiglipMultiheadAttentionPoolingHead (HF modeling_siglip) vs a mindnlp-style port; MultiheadAttention.md",
    torch_siglip_map, lambda: _ms_siglip_map(False), lambda: _ms_siglip_map(True),
    ["attention"], ["batch_first|MultiheadAttention"],
    inputs={"hidden_state": uniform(2, 5, _PD)}, fails_with="error",
    cause_pattern=r"\bbatch_first\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 13. PixArt-alpha AdaLN-single: t_block = Sequential(SiLU(), Linear(D, 6D)) on the timestep embedding; the port
#     folds it into mindspore.nn.Dense(D, 6D, activation="silu"), whose activation runs AFTER the matmul.
_AD = 4


def torch_pixart():
    torch, tnn, F = _t()

    class AdaLNSingleBlock(tnn.Module):
        def __init__(self):
            super().__init__()
            self.t_block = tnn.Sequential(tnn.SiLU(), tnn.Linear(_AD, 6 * _AD))
            self.scale_shift_table = tnn.Parameter(torch.randn(6, _AD) / _AD ** 0.5)
            self.norm1 = tnn.LayerNorm(_AD, elementwise_affine=False, eps=1e-6)
            self.mlp = tnn.Linear(_AD, _AD)

        def forward(self, x, t):
            b = x.shape[0]
            t6 = self.t_block(t)
            shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = (
                self.scale_shift_table[None] + t6.reshape(b, 6, -1)).chunk(6, dim=1)
            h = self.norm1(x) * (1 + scale_mlp) + shift_mlp
            return x + gate_mlp * self.mlp(h) + gate_msa * shift_msa + scale_msa
    return AdaLNSingleBlock()


def _ms_pixart(separate):
    ms, mnn, ops = _m()

    class TBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.act = mnn.SiLU()
            self.lin = mnn.Dense(_AD, 6 * _AD) if separate else mnn.Dense(_AD, 6 * _AD, activation="silu")

        def construct(self, t):
            return self.lin(self.act(t)) if separate else self.lin(t)

    class AdaLNSingleBlock(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.t_block = TBlock()
            self.scale_shift_table = ms.Parameter(ms.Tensor(np.zeros((6, _AD), np.float32)), name="scale_shift_table")
            self.mlp = mnn.Dense(_AD, _AD)

        def norm1(self, x):  # LayerNorm(elementwise_affine=False, eps=1e-6): no parameters
            mu = x.mean(axis=-1, keep_dims=True)
            var = ((x - mu) ** 2).mean(axis=-1, keep_dims=True)
            return (x - mu) / ops.sqrt(var + 1e-6)

        def construct(self, x, t):
            b = x.shape[0]
            t6 = self.t_block(t)
            shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = ops.chunk(
                ops.expand_dims(self.scale_shift_table, 0) + t6.reshape(b, 6, -1), 6, 1)
            h = self.norm1(x) * (1 + scale_mlp) + shift_mlp
            return x + gate_mlp * self.mlp(h) + gate_msa * shift_msa + scale_msa
    return AdaLNSingleBlock()


ENTRIES.append(entry(
    "h16b_port_pixart_adaln_single_t_block_dense_activation_applied_after", "h16-port",
    "model:PixArt-alpha AdaLN-single t_block (PixArt-alpha PixArt.py / diffusers AdaLayerNormSingle) vs a mindone-style port; Dense.md",
    torch_pixart, lambda: _ms_pixart(False), lambda: _ms_pixart(True),
    ["t_block"], ["Dense activation|silu order|SequentialCell"],
    inputs={"x": uniform(2, 3, _AD), "t": uniform(2, 1, _AD, low=-2.0, high=2.0)},
    weight_map={"t_block.1.weight": "t_block.lin.weight", "t_block.1.bias": "t_block.lin.bias",
                "scale_shift_table": "scale_shift_table", "mlp.weight": "mlp.weight", "mlp.bias": "mlp.bias"},
    cause_pattern=r"\bactivation\b[^.]*\b(?:after|before|output|input)\b|\bsilu\b[^.]*\b(?:before|after|input|output|order)\b"
                  r"|\bSequentialCell\b[^.]*\bSiLU\b",
))
