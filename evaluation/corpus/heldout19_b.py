"""Held-out set 19, half b: volumetric, video, medical and restoration pitfalls (blind; see evaluation/README.md).

Single-API entries (family "h19") and small model blocks (family "h19-port", prefix h19b_port_), each a naive
port with one MindSpore API difference and a correct port of the same network.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import given, uniform

H = "h19"
P = "h19-port"


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


# --------------------------------------------------------------------------------------------------------------
# single-API: InstanceNorm3d cell (error)

def _inorm_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv3d(2, 3, 1)
            self.norm = tnn.InstanceNorm3d(3, affine=True)
            self.act = tnn.ReLU()

        def forward(self, x):
            return self.act(self.norm(self.conv(x)))
    return Net()


def _inorm_ms(cell_norm: bool):
    ms, mnn, ops = _m()

    class InstanceNorm3dOps(mnn.Cell):
        """Instance normalization over D, H, W per sample and channel, written with ops (CPU has no kernel)."""

        def __init__(self, c, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = ms.Parameter(ms.Tensor(np.ones(c, np.float32)), name="gamma")
            self.beta = ms.Parameter(ms.Tensor(np.zeros(c, np.float32)), name="beta")
            # the same (unused) running statistics the MindSpore cell keeps, so both ports share names
            self.moving_mean = ms.Parameter(ms.Tensor(np.zeros(c, np.float32)), name="moving_mean",
                                            requires_grad=False)
            self.moving_variance = ms.Parameter(ms.Tensor(np.ones(c, np.float32)), name="moving_variance",
                                             requires_grad=False)

        def construct(self, x):
            mean = ops.mean(x, (2, 3, 4), keep_dims=True)
            var = ops.mean(ops.square(x - mean), (2, 3, 4), keep_dims=True)
            y = (x - mean) / ops.sqrt(var + self.eps)
            return y * self.gamma.reshape(1, -1, 1, 1, 1) + self.beta.reshape(1, -1, 1, 1, 1)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv3d(2, 3, 1, has_bias=True)
            self.norm = mnn.InstanceNorm3d(3, affine=True) if cell_norm else InstanceNorm3dOps(3)
            self.act = mnn.ReLU()

        def construct(self, x):
            return self.act(self.norm(self.conv(x)))
    return Net()


_INORM_MAP = {"conv.weight": "conv.weight", "conv.bias": "conv.bias", "norm.weight": "norm.gamma",
              "norm.bias": "norm.beta"}

# --------------------------------------------------------------------------------------------------------------
# functional: avg_pool3d default stride (temporal pooling of a clip)


def _tpool_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv3d(2, 3, 1)
            self.head = tnn.Linear(3, 2)

        def forward(self, x):
            y = F.avg_pool3d(self.conv(x), kernel_size=(2, 1, 1))
            return self.head(y.permute(0, 2, 3, 4, 1))
    return Net()


def _tpool_ms(stride: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv3d(2, 3, 1, has_bias=True)
            self.head = mnn.Dense(3, 2)

        def construct(self, x):
            if stride:
                y = ops.avg_pool3d(self.conv(x), kernel_size=(2, 1, 1), stride=(2, 1, 1))
            else:
                y = ops.avg_pool3d(self.conv(x), kernel_size=(2, 1, 1))
            return self.head(y.permute(0, 2, 3, 4, 1))
    return Net()

# --------------------------------------------------------------------------------------------------------------
# functional: reflect padding of a volume (error)


def _rpad_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv3d(2, 2, 1)
            self.conv2 = tnn.Conv3d(2, 2, 3)

        def forward(self, x):
            return self.conv2(F.pad(self.conv1(x), (1, 1, 1, 1, 1, 1), mode="reflect"))
    return Net()


def _rpad_ms(cell: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = mnn.Conv3d(2, 2, 1, has_bias=True)
            self.conv2 = mnn.Conv3d(2, 2, 3, pad_mode="valid", has_bias=True)
            self.pad = mnn.ReflectionPad3d(1)

        def construct(self, x):
            h = self.conv1(x)
            if cell:
                return self.conv2(self.pad(h))
            return self.conv2(ops.pad(h, (1, 1, 1, 1, 1, 1), mode="reflect"))
    return Net()

# --------------------------------------------------------------------------------------------------------------
# gradient-only: relu of an MR volume with an exactly-zero background


def _bg_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.in_drop = tnn.Dropout(0.1)
            self.proj = tnn.Linear(4, 3)

        def forward(self, x):
            return self.proj(torch.relu(self.in_drop(x)))
    return Net()


def _bg_ms(relu: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.in_drop = mnn.Dropout(p=0.1)
            self.proj = mnn.Dense(4, 3)

        def construct(self, x):
            x = self.in_drop(x)
            return self.proj(ops.relu(x) if relu else ops.maximum(x, 0.0))
    return Net()


_BG = np.array([[0.0, 0.0, 0.7, 1.2], [0.0, 0.4, 0.0, 0.9], [0.0, 0.0, 0.0, 0.0], [0.3, 0.8, 1.1, 0.0],
                [0.0, 0.6, 0.5, 0.2], [0.0, 0.0, 0.0, 0.0]], np.float32)

# --------------------------------------------------------------------------------------------------------------
# gradient-only: unit-normalized patch descriptors, empty (all-zero) background patches


def _desc_torch():
    torch, tnn, F = _t()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.in_drop = tnn.Dropout(0.1)
            self.proj = tnn.Linear(4, 3)

        def forward(self, x):
            return self.proj(F.normalize(self.in_drop(x), p=2.0, dim=-1))
    return Net()


def _desc_ms(manual: bool):
    ms, mnn, ops = _m()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.in_drop = mnn.Dropout(p=0.1)
            self.proj = mnn.Dense(4, 3)
            self.l2 = ops.L2Normalize(axis=-1)

        def construct(self, x):
            x = self.in_drop(x)
            if manual:
                # torch: x / max(||x||, 1e-12); squared, so the clamp is never a tie at an all-zero row
                y = x / ops.sqrt(ops.maximum(ops.sum(x * x, -1, keepdim=True), 1e-24))
            else:
                y = self.l2(x)
            return self.proj(y)
    return Net()


_DESC = np.array([[0.5, -0.2, 0.3, 0.1], [0.0, 0.0, 0.0, 0.0], [0.2, 0.9, -0.4, 0.6], [0.0, 0.0, 0.0, 0.0],
                  [-0.7, 0.1, 0.2, 0.3]], np.float32)


ENTRIES = [
    entry("h19b_instance_norm3d_cell_no_cpu_kernel_raises", H, "probe:mindspore.nn.InstanceNorm3d on CPU",
          _inorm_torch, lambda: _inorm_ms(True), lambda: _inorm_ms(False), ("norm",),
          ("InstanceNorm3d|no CPU kernel|compute with ops",), inputs={"x": uniform(2, 2, 3, 4, 4)},
          fails_with="error", weight_map=_INORM_MAP,
          constant_params=("norm.moving_mean", "norm.moving_variance"),
          cause_pattern=r"\bInstanceNorm3d\b[^.]*\b(cpu|kernel|unsupported|not supported|ops|mean|var)\b|"
                        r"\b(ops\.mean|ops\.var|reducemean|moments)\b[^.]*\b(axis|axes|instance|2, ?3, ?4)\b"),
    entry("h19b_functional_temporal_avg_pool3d_default_stride_one", H, "AvgPool3d",
          _tpool_torch, lambda: _tpool_ms(False), lambda: _tpool_ms(True), ("after:conv",),
          ("avg_pool3d|stride|default 1",), inputs={"x": uniform(2, 2, 4, 3, 3)}, fails_with="shape",
          cause_pattern=r"\bstride\b[^.]*\(\s*2\s*,\s*1\s*,\s*1\s*\)|\bstride\b[^.]*\b(kernel_size|kernel size)\b"),
    entry("h19b_functional_volume_reflect_pad_ops_pad_raises", H, "probe:mindspore.ops.pad reflect on 5-D input",
          _rpad_torch, lambda: _rpad_ms(False), lambda: _rpad_ms(True), ("after:conv1",),
          ("ops.pad reflect|5-D|ReflectionPad3d",), inputs={"x": uniform(1, 2, 3, 4, 4)}, fails_with="error",
          cause_pattern=r"\bReflectionPad3d\b|\breflect\b[^.]*\b(5-?d|five|4 dims|<= ?4|less than or equal to 4|"
                        r"5 dim)"),
    entry("h19b_mri_background_relu_as_ops_maximum_tie_gradient", H, "probe:ops.maximum gradient at ties",
          _bg_torch, lambda: _bg_ms(False), lambda: _bg_ms(True), ("after:in_drop",),
          ("ops.maximum|tie|gradient at zero|relu",), inputs={"x": given(_BG)}, checks=("forward", "backward"),
          fails_on=("backward",),
          cause_pattern=r"\b(ops\.)?maximum\b[^.]*\b(tie|ties|equal|0\.5|half|split)\b|"
                        r"\b(ops\.relu|nn\.ReLU)\b[^;\n]{0,40}\b(instead of|rather than|in place of)\b"
                        r"[^;\n]{0,20}\bmaximum\b|"
                        r"\bmaximum\b[^;\n]{0,40}\b(with|by|for)\b[^;\n]{0,20}\b(ops\.relu|nn\.ReLU)\b"),
    entry("h19b_zero_patch_descriptor_l2normalize_epsilon_gradient", H, "L2Normalize",
          _desc_torch, lambda: _desc_ms(False), lambda: _desc_ms(True), ("after:in_drop",),
          ("L2Normalize|epsilon|1e-12|zero vector gradient",), inputs={"x": given(_DESC)},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bepsilon\b[^.]*\b(1e-0?12|1e-0?4|0\.0001)\b|\beps\b[^.]*\b1e-0?12\b|"
                        r"\b(norm|clamp|clamp_min|maximum)\b[^.]*\b1e-0?12\b"),
]

from evaluation.corpus.heldout19_b_ports import ENTRIES as _PORTS  # noqa: E402

ENTRIES += _PORTS
