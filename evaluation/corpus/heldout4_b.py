"""Held-out set 4, half b: functional ops in construct, errors and gradient-only differences (family "h4").

Written blind (see evaluation/README.md). Each entry is a small net fc1 -> OP -> fc2 whose torch OP and MindSpore
OP differ in one call; the naive port is the mistake, the correct port the same net ported right. Optimizers and
schedules are in heldout4_b_train.py, the two model blocks in heldout4_b_ports.py.
"""
from __future__ import annotations

import mindspore as ms
import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F
from mindspore import ops

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

FAM = "h4"


def t_net(op, din=4, dmid=6, dop=None, dout=3, act=False):
    """torch: fc1 (or a ReLU child `act` when act=True) -> op(self, h, *extra) -> fc2."""
    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            if act:
                self.act = tnn.ReLU()
            else:
                self.fc1 = tnn.Linear(din, dmid)
            self.fc2 = tnn.Linear(dop or dmid, dout)

        def forward(self, x, *extra):
            h = self.act(x) if act else self.fc1(x)
            return self.fc2(op(self, h, *extra))
    return Net


def m_net(op, din=4, dmid=6, dop=None, dout=3, act=False):
    """MindSpore twin of t_net: the same children, op(self, h, *extra) in construct."""
    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            if act:
                self.act = mnn.ReLU()
            else:
                self.fc1 = mnn.Dense(din, dmid)
            self.fc2 = mnn.Dense(dop or dmid, dout)

        def construct(self, x, *extra):
            h = self.act(x) if act else self.fc1(x)
            return self.fc2(op(self, h, *extra))
    return Net


def probe_source(e, source):
    """build.entry reads a source without '/' as a page name; keep a "probe: ..." source as written."""
    import dataclasses

    return dataclasses.replace(e, source=source) if source.startswith("probe:") else e


def pair(name, source, t_op, naive_op, correct_op, layer, words, pattern, *, inputs, dims=None, **kw):
    dims = dims or {}
    return probe_source(entry(name, FAM, source, t_net(t_op, **dims), m_net(naive_op, **dims),
                              m_net(correct_op, **dims), (layer,), (words,), inputs=inputs, cause_pattern=pattern,
                              **kw), source)


ENTRIES = []

# --- functional ops in construct ------------------------------------------------------------------------------

# torch F.leaky_relu's negative_slope defaults to 0.01; mindspore.ops.leaky_relu's alpha defaults to 0.2.
ENTRIES.append(pair(
    "h4b_leaky_relu_functional_default_slope", "probe: ops.leaky_relu(input, alpha=0.2) vs F.leaky_relu 0.01",
    lambda m, h: F.leaky_relu(h),
    lambda m, h: ops.leaky_relu(h),
    lambda m, h: ops.leaky_relu(h, alpha=0.01),
    "after:fc1", "leaky_relu|alpha|negative_slope",
    r"\b(alpha|negative_slope)\b(?:[^.\n]|\.(?=\w)){0,40}(?<![\d.])0\.01\b"
    r"|(?<![\d.])0\.01\b(?:[^.\n]|\.(?=\w)){0,40}\b(alpha|negative_slope)\b", inputs={"x": uniform(4, 4)}))

# F.dropout(..., training=self.training) ported as ops.dropout(h, p): MindSpore's functional dropout defaults to
# training=True, so it still drops (and rescales) in eval mode.
ENTRIES.append(pair(
    "h4b_functional_dropout_training_default", "probe: ops.dropout(input, p=0.5, training=True, seed=None)",
    lambda m, h: F.dropout(h, p=0.3, training=m.training),
    lambda m, h: ops.dropout(h, p=0.3),
    lambda m, h: ops.dropout(h, p=0.3, training=m.training),
    "after:fc1", "dropout|training",
    r"\btraining\s*=\s*(false|self\.training)\b|\btraining\b(?:[^.\n]|\.(?=\w)){0,60}\b(false|self\.training|eval(uation)?)\b"
    r"|\b(eval(uation)?|inference) mode\b(?:[^.\n]|\.(?=\w)){0,60}\bdropout\b|\bdropout\b(?:[^.\n]|\.(?=\w)){0,80}\b(eval(uation)?|inference)"
    r" mode\b", inputs={"x": uniform(4, 4)}))

# Softmax over positions (dim=1 of (B, L, C)) ported with mindspore.ops.softmax's default axis=-1 (channels).
ENTRIES.append(pair(
    "h4b_softmax_over_positions_default_axis", "probe: ops.softmax(input, axis=-1) default vs F.softmax(dim=1)",
    lambda m, h: F.softmax(h, dim=1) * h,
    lambda m, h: ops.softmax(h) * h,
    lambda m, h: ops.softmax(h, axis=1) * h,
    "after:fc1", "softmax|axis|dim",
    r"\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\b(?:[^.\n]|\.(?=\w)){0,30}(?<![-.\w])1\b(?!\.\d)", inputs={"x": uniform(2, 5, 4)}))

# Quantising toward zero with torch.div(..., rounding_mode='trunc') ported as Python floor division (//),
# which rounds toward minus infinity: negative values land one step lower.
ENTRIES.append(pair(
    "h4b_div_trunc_as_floor_division", "probe: torch.div(rounding_mode='trunc') vs Tensor.__floordiv__",
    lambda m, h: torch.div(h, 0.25, rounding_mode="trunc") * 0.25,
    lambda m, h: (h // 0.25) * 0.25,
    lambda m, h: ops.div(h, 0.25, rounding_mode="trunc") * 0.25,
    "after:fc1", "trunc|rounding_mode|floor",
    r"\brounding_mode\b[^\n]{0,20}\btrunc\b|\b(trunc|truncat\w*)\b(?:[^.\n]|\.(?=\w)){0,60}\b(toward|towards|floor\w*)\b"
    r"|\bfloor\w*\b(?:[^.\n]|\.(?=\w)){0,60}\btrunc\w*\b|\bops\.trunc\b", inputs={"x": uniform(4, 4, low=-2.0, high=2.0)},
    checks=("forward",)))

# torch.linalg.cross works on the last dimension; mindspore.ops.cross(dim=None) takes the FIRST dimension of
# size 3 (the deprecated torch.cross default): with (B, T=3, 3) vectors it crosses along T.
ENTRIES.append(pair(
    "h4b_linalg_cross_default_dim", "probe: ops.cross(input, other, dim=None) = first size-3 dim",
    lambda m, h: torch.linalg.cross(h[..., :3], h[..., 3:]),
    lambda m, h: ops.cross(h[..., :3], h[..., 3:]),
    lambda m, h: ops.cross(h[..., :3], h[..., 3:], dim=-1),
    "after:fc1", "cross|dim",
    r"\bdim\s*=\s*(-1|2)\b|\b(last|final|trailing) (dim|dimension|axis)\b|\b(dim|axis)\b(?:[^.\n]|\.(?=\w)){0,30}-1\b",
    inputs={"x": uniform(2, 3, 4)}, dims={"dop": 3}))

# A masked mean whose token count is taken with the ReduceSum primitive on the bool mask: ReduceSum over bool
# returns bool (a logical any), so the sum is divided by 1 instead of the number of valid tokens.
_MASK = np.array([[1, 1, 0, 1, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)


def _t_masked_mean(m, h, mask):
    return (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)


def _naive_masked_mean(m, h, mask):
    return (h * mask.expand_dims(-1)).sum(1) / ops.ReduceSum(keep_dims=True)(mask, 1)


def _m_masked_mean(m, h, mask):
    return (h * mask.expand_dims(-1)).sum(1) / ops.ReduceSum(keep_dims=True)(mask.astype(ms.float32), 1)


ENTRIES.append(pair(
    "h4b_reducesum_bool_mask_count", "probe: ops.ReduceSum on a bool tensor returns bool (torch sums to int64)",
    _t_masked_mean, _naive_masked_mean, _m_masked_mean, "after:fc1", "ReduceSum|bool|count",
    r"\bbool\w*\b[^\n]{0,100}\b(count\w*|astype|cast\w*|float32|int32|int64)\b"
    r"|\b(astype|cast)\b[^\n]{0,60}\b(float32|int32|int64|float)\b",
    inputs={"x": uniform(3, 5, 4), "mask": given(_MASK)}))

# --- errors: MindSpore raises at the ported call ----------------------------------------------------------------

# F.elu(h, alpha=0.5) ported as ops.elu(h, alpha=0.5): MindSpore's Elu only supports alpha=1.0 and raises.
ENTRIES.append(pair(
    "h4b_elu_alpha_not_one_raises", "probe: ops.elu raises 'alpha must be 1.0f' for other alphas",
    lambda m, h: F.elu(h, alpha=0.5),
    lambda m, h: ops.elu(h, alpha=0.5),
    lambda m, h: ops.where(h > 0, h, 0.5 * ops.expm1(h)),
    "after:fc1", "elu|alpha",
    r"\balpha\b[^\n]{0,60}\b(1\.0f?|0\.5)\b|\bexpm1\b|\belu\b[^\n]{0,60}\b(only|unsupported|not supported)\b",
    inputs={"x": uniform(4, 4)}, fails_with="error"))

# F.adaptive_avg_pool1d to 3 bins over a length-7 sequence: torch uses overlapping bins, MindSpore's
# adaptive_avg_pool1d requires the length to be divisible by the output size and raises.
ENTRIES.append(pair(
    "h4b_adaptive_avg_pool1d_not_divisible_raises",
    "probe: ops.adaptive_avg_pool1d raises unless L % output_size == 0; adaptive_avg_pool2d does not",
    lambda m, h: F.adaptive_avg_pool1d(h.transpose(1, 2), 3).flatten(1),
    lambda m, h: ops.flatten(ops.adaptive_avg_pool1d(ops.swapaxes(h, 1, 2), 3)),
    lambda m, h: ops.flatten(ops.adaptive_avg_pool2d(ops.swapaxes(h, 1, 2).expand_dims(2), (1, 3)).squeeze(2)),
    "after:fc1", "adaptive_avg_pool1d|divisible",
    r"\bdivisib\w*\b|\badaptive_avg_pool2d\b|\bAdaptiveAvgPool2[dD]\b",
    inputs={"x": uniform(2, 7, 4)}, dims={"dop": 18}, fails_with="error"))

# torch.max(a, b) (the elementwise overload) ported as ops.max(a, b): MindSpore's second argument is the axis.
ENTRIES.append(pair(
    "h4b_max_two_tensors_as_reduction_raises", "probe: ops.max(input, axis=None, ...) has no elementwise overload",
    lambda m, h: torch.max(h[:, :3], h[:, 3:]),
    lambda m, h: ops.max(h[:, :3], h[:, 3:]),
    lambda m, h: ops.maximum(h[:, :3], h[:, 3:]),
    "after:fc1", "maximum|max|axis",
    r"\bmaximum\b", inputs={"x": uniform(4, 4)}, dims={"dop": 3}, fails_with="error"))

# --- gradient-only differences ----------------------------------------------------------------------------------

# torch.amax splits the gradient evenly between tied maxima; ops.max(..., axis)[0] (ArgMaxWithValue) sends it all
# to one index. Inputs are small integers, so ReLU outputs tie often; the forward values agree.
_TIED = np.array([[[2, 0, 2, 1, -1], [1, 1, 0, 1, -2], [3, -1, 3, 3, 0]],
                  [[0, 2, 1, 2, 2], [-1, -2, -1, 0, 0], [1, 2, 0, 0, 1]]], np.float32)
ENTRIES.append(pair(
    "h4b_amax_as_max_dim_tie_gradient", "probe: gradient of amax (even split) vs max(dim) at ties",
    lambda m, h: torch.amax(h, dim=-1),
    lambda m, h: ops.max(h, axis=-1)[0],
    lambda m, h: ops.amax(h, axis=-1),
    "after:act", "amax|tie|ties",
    r"\bamax\b|\bReduceMax\b|\b(ties?|tied)\b(?:[^.\n]|\.(?=\w)){0,60}\b(even\w*|equal\w*|split\w*|distribut\w*|shar\w*)\b",
    inputs={"x": given(_TIED)}, dims={"din": 5, "dmid": 5, "dop": 3, "act": True},
    checks=("forward", "backward"), fails_on=("backward",)))


# A straight-through quantiser h + (round(4h)/4 - h).detach() ported without stop_gradient: the forward value is
# the same, but the gradient through round is 0, so nothing reaches fc1.
def _t_ste(m, h):
    q = torch.round(h * 4) / 4
    return h + (q - h).detach()


def _naive_ste(m, h):
    q = ops.round(h * 4) / 4
    return h + (q - h)


def _m_ste(m, h):
    q = ops.round(h * 4) / 4
    return h + ops.stop_gradient(q - h)


ENTRIES.append(pair(
    "h4b_straight_through_missing_stop_gradient", "probe: Tensor.detach vs ops.stop_gradient in a straight-through"
    " estimator", _t_ste, _naive_ste, _m_ste, "after:fc1", "stop_gradient|detach",
    r"\bstop_gradient\b|\bdetach\w*\b|\bstraight[- ]through\b", inputs={"x": uniform(4, 4)},
    checks=("forward", "backward"), fails_on=("backward",)))
