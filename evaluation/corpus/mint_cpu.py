"""Run mindone's blocks on a CPU: its `mindspore.mint` ops whose kernels MindSpore 2.10 registers only for Ascend.

mindone writes its ports with `mindspore.mint` (torch-like API). On CPU, MindSpore 2.10 has no kernel for
Conv2DExt (mint.nn.Conv2d), LayerNormExt (mint.nn.LayerNorm, mint.nn.functional.layer_norm), GeluExt
(mint.nn.GELU, mint.nn.functional.gelu), Arange, Baddbmm, ConstantPadND (mint.nn.functional.pad) and AvgPool2D:
every real port fails with "kernel ... unregistered" before computing anything (migcheck classifies that
correctly). `install()` routes exactly these calls to MindSpore's own public ops that compute the same
function and do have CPU kernels (ops.conv2d, ops.LayerNorm, ops.gelu, ops.pad, ...). The ports' code --
their structure, attributes and functional calls -- is unchanged; what is not tested is the Ascend kernels
themselves. Only on CPU, and only for the third-party corpus (imported first by evaluation/corpus/thirdparty.py).
"""
from __future__ import annotations

from typing import List

import numpy as np

import mindspore as ms
from mindspore import mint, ops

INSTALLED: List[str] = []  # the mint entry points rerouted in this process


def _conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(padding, str):
        return ops.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    ph, pw = (padding, padding) if isinstance(padding, int) else tuple(padding)
    return ops.conv2d(input, weight, bias, stride, "pad", (ph, pw), dilation, groups)


def _conv2d_construct(self, input):
    if self.padding_mode != "zeros":
        raise NotImplementedError(f"mint_cpu: Conv2d padding_mode={self.padding_mode!r} is not rerouted")
    return _conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


def _layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    weight = ops.ones(shape, input.dtype) if weight is None else weight
    bias = ops.zeros(shape, input.dtype) if bias is None else bias
    return ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=axis, epsilon=eps)(input, weight, bias)[0]


def _layer_norm_construct(self, input):
    return _layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


def _gelu(input, approximate="none"):
    return ops.gelu(input, approximate=approximate)


def _gelu_construct(self, input):
    return _gelu(input, self.approximate)


def _pad(input, pad, mode="constant", value=None):
    return ops.pad(input, tuple(pad), mode, value)


def _arange(start=0, end=None, step=1, *, dtype=None):
    if end is None:
        start, end = 0, start
    values = np.arange(float(start), float(end), float(step))
    if dtype is None:
        as_int = all(isinstance(v, int) for v in (start, end, step))
        dtype = ms.int64 if as_int else ms.float32
    return ms.Tensor(values).astype(dtype)


def _baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return input * beta + ops.bmm(batch1, batch2) * alpha


def _avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    return ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override or 0)


def install() -> List[str]:
    """Reroute the Ascend-only mint ops (CPU only; idempotent). Returns what was rerouted."""
    if INSTALLED or ms.get_context("device_target") != "CPU":
        return INSTALLED
    functional = mint.nn.functional
    for owner, name, replacement in (
            (mint.nn.Conv2d, "construct", _conv2d_construct), (mint.nn.LayerNorm, "construct", _layer_norm_construct),
            (mint.nn.GELU, "construct", _gelu_construct), (functional, "conv2d", _conv2d),
            (functional, "layer_norm", _layer_norm), (functional, "gelu", _gelu), (functional, "pad", _pad),
            (functional, "avg_pool2d", _avg_pool2d), (mint, "arange", _arange), (mint, "baddbmm", _baddbmm)):
        setattr(owner, name, replacement)
        INSTALLED.append(f"{getattr(owner, '__name__', owner)}.{name}")
    return INSTALLED
