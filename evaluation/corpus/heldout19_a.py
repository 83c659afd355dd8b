"""Held-out set 19, half a: layers with parameters and their settings, layouts and state (blind).

Each entry is ONE nameable difference between a small torch network and its MindSpore port; the correct
port is the same network ported right. Sources: MindSpore's pytorch_diff pages and probes of torch 2.13 /
MindSpore 2.10 on CPU.
"""
from __future__ import annotations

import mindspore as ms
import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F
from mindspore import Parameter, Tensor, ops

from evaluation.corpus.build import entry, renamer
from migcheck.specs import integers, uniform

FAMILY = "h19"


# --- 1. functional local_response_norm -> ops.lrn: torch's `size` is the full window, MindSpore's depth_radius
#        is the half-width (the window is 2*depth_radius+1 channels).
class _TorchLrnNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 8, 1)
        self.head = tnn.Conv2d(8, 4, 1)

    def forward(self, x):
        h = self.conv(x)
        h = F.local_response_norm(h, 5, alpha=0.5, beta=0.75, k=1.0)
        return self.head(h)


class _MsLrnNet(mnn.Cell):
    def __init__(self, depth_radius):
        super().__init__()
        self.conv = mnn.Conv2d(3, 8, 1, has_bias=True)
        self.head = mnn.Conv2d(8, 4, 1, has_bias=True)
        self.depth_radius = depth_radius

    def construct(self, x):
        h = self.conv(x)
        h = ops.lrn(h, depth_radius=self.depth_radius, bias=1.0, alpha=0.5 / 5, beta=0.75)
        return self.head(h)


# --- 2. InstanceNorm2d(track_running_stats=True) in eval normalises with its running statistics; MindSpore's
#        InstanceNorm2d has no CPU kernel, so the porter writes per-instance statistics by hand.
class _TorchInstanceNormNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 4, 1)
        self.norm = tnn.InstanceNorm2d(4, affine=True, track_running_stats=True)
        self.head = tnn.Conv2d(4, 4, 1)

    def forward(self, x):
        return self.head(self.norm(self.conv(x)))


class _MsPerInstanceNorm(mnn.Cell):
    def __init__(self, channels, eps=1e-5):
        super().__init__()
        self.gamma = Parameter(Tensor(np.ones(channels, np.float32)), name="gamma")
        self.beta = Parameter(Tensor(np.zeros(channels, np.float32)), name="beta")
        self.moving_mean = Parameter(Tensor(np.zeros(channels, np.float32)), name="moving_mean", requires_grad=False)
        self.moving_variance = Parameter(Tensor(np.ones(channels, np.float32)), name="moving_variance",
                                         requires_grad=False)
        self.eps = eps

    def construct(self, x):
        mean = x.mean(axis=(2, 3), keep_dims=True)
        var = ((x - mean) ** 2).mean(axis=(2, 3), keep_dims=True)
        y = (x - mean) / ops.sqrt(var + self.eps)
        return y * self.gamma.reshape(1, -1, 1, 1) + self.beta.reshape(1, -1, 1, 1)


class _MsInstanceNormNet(mnn.Cell):
    def __init__(self, running):
        super().__init__()
        self.conv = mnn.Conv2d(3, 4, 1, has_bias=True)
        self.norm = mnn.BatchNorm2d(4, eps=1e-5, momentum=0.9) if running else _MsPerInstanceNorm(4)
        self.head = mnn.Conv2d(4, 4, 1, has_bias=True)

    def construct(self, x):
        return self.head(self.norm(self.conv(x)))


_IN_MAP = renamer([("conv", "conv"), ("norm", "norm"), ("head", "head")], norms=["norm"])


# --- 3. LayerNorm over the two trailing dims: MindSpore's nn.LayerNorm needs begin_params_axis moved with
#        begin_norm_axis (its default -1 expects gamma of the last dim only).
class _TorchLayerNorm2dNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 3, 1)
        self.norm = tnn.LayerNorm((4, 4))
        self.head = tnn.Conv2d(3, 2, 1)

    def forward(self, x):
        return self.head(self.norm(self.conv(x)))


class _MsLayerNorm2dNet(mnn.Cell):
    def __init__(self, params_axis):
        super().__init__()
        self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)
        if params_axis is None:
            self.norm = mnn.LayerNorm((4, 4), begin_norm_axis=2, epsilon=1e-5)
        else:
            self.norm = mnn.LayerNorm((4, 4), begin_norm_axis=2, begin_params_axis=params_axis, epsilon=1e-5)
        self.head = mnn.Conv2d(3, 2, 1, has_bias=True)

    def construct(self, x):
        return self.head(self.norm(self.conv(x)))


# --- 4. Embedding.from_pretrained freezes the table by default (freeze=True); mindspore.nn.Embedding built
#        from the same table trains it.
class _TorchPretrainedEmbeddingNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.emb = tnn.Embedding.from_pretrained(torch.randn(12, 6))
        self.fc = tnn.Linear(6, 3)

    def forward(self, ids):
        return self.fc(torch.tanh(self.emb(ids))).mean(dim=1)


class _MsPretrainedEmbeddingNet(mnn.Cell):
    def __init__(self, frozen):
        super().__init__()
        self.emb = mnn.Embedding(12, 6, embedding_table=Tensor(np.random.randn(12, 6).astype(np.float32)))
        if frozen:
            self.emb.embedding_table.requires_grad = False
        self.fc = mnn.Dense(6, 3)

    def construct(self, ids):
        return self.fc(ops.tanh(self.emb(ids))).mean(axis=1)


# --- 5. ConvTranspose2d called with output_size= in forward picks output_padding itself; MindSpore's
#        Conv2dTranspose.construct takes no output_size, so output_padding must be set on the layer.
class _TorchUpNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.down = tnn.Conv2d(2, 4, 3, stride=2, padding=1)
        self.up = tnn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)

    def forward(self, x):
        h = torch.relu(self.down(x))
        return self.up(h, output_size=x.shape[-2:])


class _MsUpNet(mnn.Cell):
    def __init__(self, padding):
        super().__init__()
        self.down = mnn.Conv2d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        # torch's output_size=(8, 8) means output_padding=1: one row/column more at the bottom/right, which
        # MindSpore gets from an asymmetric (top, bottom, left, right) padding.
        self.up = mnn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=padding, has_bias=True)

    def construct(self, x):
        return self.up(ops.relu(self.down(x)))


# --- 6. MultiheadAttention(bias=False): MindSpore's nn.MultiheadAttention calls the switch has_bias (default
#        True) and its out_proj bias starts non-zero, so a port that keeps the default adds a bias torch lacks.
class _TorchMhaNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.proj = tnn.Linear(6, 8)
        self.attn = tnn.MultiheadAttention(8, 2, bias=False, batch_first=True)
        self.head = tnn.Linear(8, 3)

    def forward(self, x):
        h = self.proj(x)
        out, _ = self.attn(h, h, h, need_weights=False)
        return self.head(out)


class _MsMhaNet(mnn.Cell):
    def __init__(self, has_bias):
        super().__init__()
        self.proj = mnn.Dense(6, 8)
        if has_bias is None:
            self.attn = mnn.MultiheadAttention(8, 2, batch_first=True)
        else:
            self.attn = mnn.MultiheadAttention(8, 2, has_bias=has_bias, batch_first=True)
        self.head = mnn.Dense(8, 3)

    def construct(self, x):
        h = self.proj(x)
        out = self.attn(h, h, h, need_weights=False)[0]
        return self.head(out)


# --- 7. functional batch_norm with no running statistics (running_mean=None, running_var=None, training=True),
#        as in functional/meta-learning code; mindspore.ops.batch_norm needs running_mean/running_var tensors.
class _TorchFunctionalBnNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 4, 1)
        self.gamma = tnn.Parameter(torch.ones(4))
        self.beta = tnn.Parameter(torch.zeros(4))
        self.head = tnn.Conv2d(4, 2, 1)

    def forward(self, x):
        h = self.conv(x)
        h = F.batch_norm(h, None, None, self.gamma, self.beta, training=True)
        return self.head(h)


class _MsFunctionalBnNet(mnn.Cell):
    def __init__(self, with_buffers):
        super().__init__()
        self.conv = mnn.Conv2d(3, 4, 1, has_bias=True)
        self.gamma = Parameter(Tensor(np.ones(4, np.float32)), name="gamma")
        self.beta = Parameter(Tensor(np.zeros(4, np.float32)), name="beta")
        self.head = mnn.Conv2d(4, 2, 1, has_bias=True)
        self.with_buffers = with_buffers

    def construct(self, x):
        h = self.conv(x)
        if self.with_buffers:
            mean = ops.zeros(4, ms.float32)
            var = ops.ones(4, ms.float32)
            h = ops.batch_norm(h, mean, var, self.gamma, self.beta, training=True)
        else:
            h = ops.batch_norm(h, None, None, self.gamma, self.beta, training=True)
        return self.head(h)


# --- 8. LayerNorm(elementwise_affine=False) has no parameters; mindspore.nn.LayerNorm always creates trainable
#        gamma/beta; the port without them normalises by hand (no affine parameters).
class _TorchPlainLayerNormNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(5, 6)
        self.norm = tnn.LayerNorm(6, elementwise_affine=False)
        self.fc2 = tnn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(self.norm(torch.relu(self.fc1(x))))


class _MsPlainLayerNorm(mnn.Cell):
    def __init__(self, features, eps=1e-5):
        super().__init__()
        self.shape = (features,)
        self.eps = eps

    def construct(self, x):
        mean = x.mean(axis=-1, keep_dims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keep_dims=True)
        return (x - mean) / ops.sqrt(var + self.eps)


class _MsPlainLayerNormNet(mnn.Cell):
    def __init__(self, affine):
        super().__init__()
        self.fc1 = mnn.Dense(5, 6)
        self.norm = mnn.LayerNorm((6,), epsilon=1e-5) if affine else _MsPlainLayerNorm(6)
        self.fc2 = mnn.Dense(6, 3)

    def construct(self, x):
        return self.fc2(self.norm(ops.relu(self.fc1(x))))


# --- 9. spectral_norm in eval divides by sigma = u . (W v) from its stored weight_u / weight_v buffers (no power
#        iteration outside training); a port that takes the exact largest singular value differs.
class _TorchSpectralNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(5, 6)
        self.sn = tnn.utils.spectral_norm(tnn.Linear(6, 4))

    def forward(self, x):
        return self.sn(torch.relu(self.fc1(x)))


class _MsSpectralLinear(mnn.Cell):
    def __init__(self, stored):
        super().__init__()
        self.weight_orig = Parameter(Tensor(np.random.randn(4, 6).astype(np.float32)), name="weight_orig")
        self.bias = Parameter(Tensor(np.zeros(4, np.float32)), name="bias")
        self.weight_u = Parameter(Tensor(np.ones(4, np.float32)), name="weight_u", requires_grad=False)
        self.weight_v = Parameter(Tensor(np.ones(6, np.float32)), name="weight_v", requires_grad=False)
        self.stored = stored

    def construct(self, x):
        w = self.weight_orig
        if self.stored:
            sigma = (self.weight_u * ops.mv(w, self.weight_v)).sum()
        else:
            sigma = ops.svd(w, compute_uv=False)[0]
        return ops.dense(x, w / sigma, self.bias)


class _MsSpectralNet(mnn.Cell):
    def __init__(self, stored):
        super().__init__()
        self.fc1 = mnn.Dense(5, 6)
        self.sn = _MsSpectralLinear(stored)

    def construct(self, x):
        return self.sn(ops.relu(self.fc1(x)))


ENTRIES = [
    entry("h19a_functional_lrn_size_passed_as_ops_lrn_depth_radius", FAMILY, "probe:F.local_response_norm size vs ops.lrn depth_radius",
          _TorchLrnNet, lambda: _MsLrnNet(5), lambda: _MsLrnNet(2), ["after:conv"],
          ["depth_radius|size|half-width window"], inputs={"x": uniform(2, 3, 4, 4)},
          cause_pattern=r"\bdepth_radius\b[^.]*(=\s*2\b|\b2\b|size\s*//\s*2|\bhalf)|\bhalf\b[^.]*\bsize\b[^.]*\bdepth_radius\b"),
    entry("h19a_instancenorm2d_tracked_running_stats_eval_normalised_per_instance", FAMILY,
          "probe:InstanceNorm2d track_running_stats eval (MindSpore InstanceNorm has no CPU kernel)",
          _TorchInstanceNormNet, lambda: _MsInstanceNormNet(False), lambda: _MsInstanceNormNet(True), ["norm"],
          ["track_running_stats|running statistics"], inputs={"x": uniform(2, 3, 4, 4)}, weight_map=_IN_MAP,
          cause_pattern=r"\btrack_running_stats\b|\brunning[_ ](mean|var|stat)|\bmoving[_ ](mean|variance|statistic)|\buse_batch_statistics\b"),
    entry("h19a_layernorm_two_trailing_dims_begin_params_axis_default_raises", FAMILY, "LayerNorm",
          _TorchLayerNorm2dNet, lambda: _MsLayerNorm2dNet(None), lambda: _MsLayerNorm2dNet(2), ["norm"],
          ["begin_params_axis"], inputs={"x": uniform(2, 2, 4, 4)}, fails_with="error",
          cause_pattern=r"\bbegin_params_axis\b"),
    entry("h19a_embedding_from_pretrained_freeze_default_table_trained", FAMILY, "probe:Embedding.from_pretrained freeze=True default",
          _TorchPretrainedEmbeddingNet, lambda: _MsPretrainedEmbeddingNet(False), lambda: _MsPretrainedEmbeddingNet(True),
          ["emb"], ["freeze|requires_grad"], inputs={"ids": integers(3, 5, high=12)}, checks=("forward", "backward"),
          fails_with="structure", cause_pattern=r"\bfreeze\b|\bfrozen\b|\brequires_grad\b[^.]*\bfalse\b|\bnot\b[^.]*\btrain(ed|able)\b"),
    entry("h19a_conv_transpose2d_forward_output_size_dropped_in_construct", FAMILY, "probe:ConvTranspose2d forward output_size",
          _TorchUpNet, lambda: _MsUpNet(1), lambda: _MsUpNet((1, 0, 1, 0)), ["up"], ["output_padding|output_size"],
          inputs={"x": uniform(2, 2, 8, 8)}, fails_with="shape",
          cause_pattern=r"\boutput_padding\b|\boutput_size\b|\bpadding\s*=\s*\(\s*1\s*,\s*0\s*,\s*1\s*,\s*0\s*\)"),
    entry("h19a_multihead_attention_bias_false_ported_with_default_has_bias", FAMILY, "MultiheadAttention",
          _TorchMhaNet, lambda: _MsMhaNet(None), lambda: _MsMhaNet(False), ["attn"], ["has_bias|bias=False"],
          inputs={"x": uniform(2, 4, 6)}, fails_with="structure",
          cause_pattern=r"\bhas_bias\b[^.]*\bfalse\b|\bbias\s*=\s*false\b[^.]*\bhas_bias\b|\bout_proj[._]bias\b"),
    entry("h19a_functional_batch_norm_without_running_stats_ops_batch_norm_raises", FAMILY, "probe:F.batch_norm(None, None, training=True) vs ops.batch_norm",
          _TorchFunctionalBnNet, lambda: _MsFunctionalBnNet(False), lambda: _MsFunctionalBnNet(True), ["after:conv"],
          ["running_mean|running_var|None"], inputs={"x": uniform(3, 3, 4, 4)}, fails_with="error",
          cause_pattern=r"\brunning_(mean|var)\b|\bmoving_(mean|variance)\b|\brunning stat"),
    entry("h19a_layernorm_elementwise_affine_false_ported_with_trainable_gamma_beta", FAMILY, "LayerNorm",
          _TorchPlainLayerNormNet, lambda: _MsPlainLayerNormNet(True), lambda: _MsPlainLayerNormNet(False), ["norm"],
          ["elementwise_affine|requires_grad"], inputs={"x": uniform(4, 5)}, checks=("forward", "backward"),
          fails_with="structure",
          cause_pattern=r"\belementwise_affine\b|\brequires_grad\b[^.]*\bfalse\b"),
    entry("h19a_spectral_norm_eval_sigma_from_stored_u_v_ported_as_exact_svd", FAMILY,
          "probe:torch.nn.utils.spectral_norm in eval (stored weight_u/weight_v)",
          _TorchSpectralNet, lambda: _MsSpectralNet(False), lambda: _MsSpectralNet(True), ["sn"],
          ["weight_u|weight_v|power iteration"], inputs={"x": uniform(3, 5)},
          cause_pattern=r"\bweight_[uv]\b|\bpower[- ]iterations?\b|\bn_power_iterations\b|\bstored\b[^.]*\b(u|v)\b"),
]
