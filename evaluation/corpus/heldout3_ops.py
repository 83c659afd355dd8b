"""Held-out set 3 (blind), functional ops inside forward/construct: Linear -> op -> Linear networks.

Every naive port differs from its correct twin in one functional call after `fc1`; each difference was
probed on torch 2.13 / MindSpore 2.10 CPU before it was written down (numbers differ, the twin agrees).
"""
from __future__ import annotations

import mindspore as ms
import numpy as np
import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops

from evaluation.corpus.build import entry
from migcheck.specs import integers, mask, uniform

FAM = "h3"
# Differences found by probing the installed versions (no API-difference page shows them); the "/" keeps
# build.entry from turning the source into a page path.
PROBE = "probe: torch 2.13 vs MindSpore 2.10 CPU/"


def t_net(op, din=4, dmid=6, dop=None, dout=3):
    """torch: fc1 -> op(h, *extra inputs) -> fc2 (a class, i.e. a factory)."""
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(din, dmid)
            self.fc2 = torch.nn.Linear(dop or dmid, dout)

        def forward(self, x, *extra):
            return self.fc2(op(self.fc1(x), *extra))
    return Net


def m_net(op, din=4, dmid=6, dop=None, dout=3):
    """MindSpore: the same network with the port's op in construct."""
    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = mnn.Dense(din, dmid)
            self.fc2 = mnn.Dense(dop or dmid, dout)

        def construct(self, x, *extra):
            return self.fc2(op(self.fc1(x), *extra))
    return Net


def pair(name, source, t_op, naive_op, correct_op, pattern, words, *, inputs=None, dims=None, **kw):
    dims = dims or {}
    return entry(name, FAM, source, t_net(t_op, **dims), m_net(naive_op, **dims), m_net(correct_op, **dims),
                 ("after:fc1",), (words,), inputs=inputs or {"x": uniform(2, dims.get("din", 4))},
                 cause_pattern=pattern, **kw)


F32 = ms.float32

# -- reductions and norms -------------------------------------------------------------------------------------
var_ddof = pair(
    "h3_var_ddof", "var", lambda h: h - h.var(-1, keepdim=True),
    lambda h: h - ops.var(h, axis=-1, keepdims=True),
    lambda h: h - ops.var(h, axis=-1, ddof=1, keepdims=True),
    r"\b(ddof|unbiased|correction|bessel)\b", "ddof|unbiased|correction")

l2normalize_eps = pair(
    "h3_l2normalize_epsilon", PROBE + "L2Normalize", lambda h: F.normalize(h * 1e-3, dim=-1),
    lambda h: ops.L2Normalize(axis=-1)(h * 1e-3),
    lambda h: ops.L2Normalize(axis=-1, epsilon=1e-24)(h * 1e-3),
    r"\b(epsilon|eps)\b[^.]*(1e-0?4|0\.0001|1e-12|1e-24)", "epsilon|eps")

norm_matrix = pair(
    "h3_norm_p1_matrix", PROBE + "norm", lambda h: h / torch.norm(h, p=1),
    lambda h: h / ops.norm(h, ord=1),
    lambda h: h / ops.norm(ops.reshape(h, (-1,)), ord=1),
    r"\bord\b|\bmatrix[- ]norm\b|\bvector[- ]norm\b", "ord|matrix norm")


def _t_nanmean(h):
    pos = torch.where(h > 0, h, torch.full_like(h, float("nan")))
    return h - torch.nanmean(pos, dim=-1, keepdim=True)


def _m_mean_nan_to_num(h):
    pos = ops.where(h > 0, h, ops.full_like(h, float("nan")))
    return h - ops.mean(ops.nan_to_num(pos, 0.0), -1, True)


def _m_nanmean(h):
    pos = ops.where(h > 0, h, ops.full_like(h, float("nan")))
    return h - ops.nanmean(pos, -1, True)


nanmean = pair("h3_nanmean_as_nan_to_num_mean", PROBE + "nanmean", _t_nanmean, _m_mean_nan_to_num, _m_nanmean,
               r"\bnanmean\b|\bnan_to_num\b", "nanmean|nan_to_num", inputs={"x": uniform(3, 4)})


# -- in-place, shapes, splits ----------------------------------------------------------------------------------
def _t_mul_(h):
    h.mul_(2.0)
    return h


def _m_mul_(h):
    h.mul_(2.0)  # MindSpore 2.10 eager: returns, leaves h unchanged
    return h


inplace_mul = pair("h3_inplace_mul_", PROBE + "in-place", _t_mul_, _m_mul_, lambda h: h * 2.0,
                   r"\bmul_\b|\bin-?place\b", "in-place|inplace|mul_")

tensor_split = pair(
    "h3_tensor_split_as_chunk", PROBE + "tensor_split",
    lambda h: torch.cat(list(torch.tensor_split(h, 3, dim=-1))[::-1], -1),
    lambda h: ops.cat(list(ops.chunk(h, 3, axis=-1))[::-1], -1),
    lambda h: ops.cat(list(ops.tensor_split(h, 3, axis=-1))[::-1], -1),
    r"\bchunk\b[^.]*\btensor_split\b|\btensor_split\b[^.]*\bchunk\b|\bops\.tensor_split\b", "tensor_split|chunk",
    dims={"dmid": 7})

repeat_tile = pair(
    "h3_repeat_as_repeat_interleave", PROBE + "repeat", lambda h: h.repeat(1, 2),
    lambda h: ops.repeat_interleave(h, 2, 1), lambda h: ops.tile(h, (1, 2)),
    r"\btile\b|\brepeat_interleave\b", "tile|repeat_interleave", dims={"dop": 12})

# -- clamp, cumsum -----------------------------------------------------------------------------------------
clamp_positional = pair(
    "h3_clamp_max_passed_as_min", PROBE + "clamp", lambda h: h.clamp(max=0.5),
    lambda h: ops.clamp(h, 0.5), lambda h: ops.clamp(h, max=0.5),
    r"\bmax\b\s*=?\s*0\.5|\b(min|max)\b[^.]*\b(swap|instead|position)", "max=0.5|min")

cumsum_exclusive = pair(
    "h3_reverse_cumsum_exclusive", PROBE + "CumSum",
    lambda h: torch.flip(torch.cumsum(torch.flip(h, [-1]), -1), [-1]),
    lambda h: ops.CumSum(exclusive=True, reverse=True)(h, -1),
    lambda h: ops.CumSum(reverse=True)(h, -1),
    r"\bexclusive\b", "exclusive")

# -- resampling and padding ----------------------------------------------------------------------------------
_SIZE8 = ms.Tensor(np.array([8], np.int64))
resize_linear = pair(
    "h3_resize_linear1d_align_corners", PROBE + "ResizeLinear1D",
    lambda h: F.interpolate(h.view(-1, 2, 4), size=8, mode="linear").flatten(1),
    lambda h: ops.flatten(ops.ResizeLinear1D()(ops.reshape(h, (-1, 2, 4)), _SIZE8)),
    lambda h: ops.flatten(ops.ResizeLinear1D(coordinate_transformation_mode="half_pixel")(
        ops.reshape(h, (-1, 2, 4)), _SIZE8)),
    r"\balign_corners\b|\bhalf_pixel\b|\bcoordinate_transformation_mode\b", "align_corners|half_pixel",
    dims={"dmid": 8, "dop": 16})

resize_bilinear = pair(
    "h3_resize_bilinear_half_pixel_centers", PROBE + "ResizeBilinearV2",
    lambda h: F.interpolate(h.view(-1, 1, 2, 3), size=(4, 6), mode="bilinear").flatten(1),
    lambda h: ops.flatten(ops.ResizeBilinearV2()(ops.reshape(h, (-1, 1, 2, 3)), (4, 6))),
    lambda h: ops.flatten(ops.ResizeBilinearV2(half_pixel_centers=True)(ops.reshape(h, (-1, 1, 2, 3)), (4, 6))),
    r"\bhalf_pixel_centers\b|\bhalf_pixel\b|\balign_corners\b", "half_pixel|align_corners", dims={"dop": 24})

_PADS = ms.Tensor(np.array([[0, 0], [0, 0], [2, 2]], np.int64))
pad_symmetric = pair(
    "h3_reflect_pad_as_symmetric", PROBE + "MirrorPad",
    lambda h: F.pad(h.view(-1, 2, 3), (2, 2), mode="reflect").flatten(1),
    lambda h: ops.flatten(ops.MirrorPad(mode="SYMMETRIC")(ops.reshape(h, (-1, 2, 3)), _PADS)),
    lambda h: ops.flatten(ops.MirrorPad(mode="REFLECT")(ops.reshape(h, (-1, 2, 3)), _PADS)),
    r"\bsymmetric\b|\bMirrorPad\b[^.]*\bREFLECT\b|\bmode\s*=\s*['\"]?reflect", "symmetric|reflect", dims={"dop": 14})


# -- masking before softmax / logsumexp ---------------------------------------------------------------------
def _keep(m):
    first = torch.zeros_like(m)
    first[:, 0] = True
    return m | first


def _m_keep(m):
    first = ms.Tensor(np.arange(6)[None, :] == 0)
    return ops.logical_or(m, first)


mask_softmax = pair(
    "h3_softmax_mask_by_multiplication", PROBE + "masked-softmax",
    lambda h, m: F.softmax(h.masked_fill(~_keep(m), float("-inf")), -1),
    lambda h, m: ops.softmax(h * _m_keep(m).astype(F32), -1),
    lambda h, m: ops.softmax(ops.masked_fill(h, ops.logical_not(_m_keep(m)), float("-inf")), -1),
    r"\bmask\w*\b[^.]*(-\s*inf|\binfinity\b|multipl)|(-\s*inf|\binfinity\b|multipl\w*)[^.]*\bmask",
    "-inf|masked_fill",
    inputs={"x": uniform(2, 4), "m": mask(2, 6, p=0.6)})

mask_logsumexp = pair(
    "h3_logsumexp_mask_filled_with_zero", PROBE + "masked-logsumexp",
    lambda h, m: h - torch.logsumexp(h.masked_fill(~_keep(m), float("-inf")), -1, keepdim=True),
    lambda h, m: h - ops.logsumexp(ops.masked_fill(h, ops.logical_not(_m_keep(m)), 0.0), -1, True),
    lambda h, m: h - ops.logsumexp(ops.masked_fill(h, ops.logical_not(_m_keep(m)), float("-inf")), -1, True),
    r"\bmask\w*\b[^.]*(-\s*inf|\binfinity\b|\bfill\w*\b[^.]*\b0(\.0)?\b)|(-\s*inf|\binfinity\b)[^.]*\bmask",
    "-inf|fill",
    inputs={"x": uniform(2, 4), "m": mask(2, 6, p=0.6)})

# -- wrong API calls whose error surfaces later -------------------------------------------------------------
gather_index = pair(
    "h3_gather_as_index_select", PROBE + "gather",
    lambda h, i: torch.gather(h, 1, i).reshape(h.shape[0], -1),
    lambda h, i: ops.reshape(ops.gather(h, i, 1), (h.shape[0], -1)),
    lambda h, i: ops.reshape(ops.gather_elements(h, 1, i), (h.shape[0], -1)),
    r"\bgather_elements\b|\bGatherD\b|\bbatch_dims\b", "gather_elements|GatherD",
    inputs={"x": uniform(2, 4), "i": integers(2, 3, high=6)}, dims={"dop": 3}, fails_with="error")

argmax_with_value = pair(
    "h3_argmaxwithvalue_index_first", PROBE + "ArgMaxWithValue",
    lambda h: h.view(-1, 2, 3).max(-1)[0],
    lambda h: ops.ArgMaxWithValue(axis=-1)(ops.reshape(h, (-1, 2, 3)))[0],
    lambda h: ops.ArgMaxWithValue(axis=-1)(ops.reshape(h, (-1, 2, 3)))[1],
    r"\bArgMaxWithValue\b|\b(index|indices)\b[^.]*\bfirst\b|\border\b[^.]*\b(index|indices|values)\b",
    "ArgMaxWithValue|indices", dims={"dop": 2}, fails_with="error")


def _t_arange(h):
    return h * torch.arange(1.0, 2.2, 0.1)  # 13 values: ceil((2.2 - 1.0) / 0.1) in double


arange_float = pair(
    "h3_arange_float_step_length", PROBE + "arange", _t_arange,
    lambda h: h * ops.arange(1.0, 2.2, 0.1),  # 12 values in MindSpore 2.10
    lambda h: h * (ops.arange(0, 13).astype(F32) * 0.1 + 1.0),
    r"\barange\b[^.]*\b(12|13|length|count|elements?|end(point)?|step)\b|\blinspace\b|\barange\(0,\s*13\)",
    "arange|linspace", dims={"dmid": 13}, fails_with="error")

ENTRIES = [var_ddof, l2normalize_eps, norm_matrix, nanmean, inplace_mul, tensor_split, repeat_tile,
           clamp_positional, cumsum_exclusive, resize_linear, resize_bilinear, pad_symmetric, mask_softmax,
           mask_logsumexp, gather_index, argmax_with_value, arange_float]
