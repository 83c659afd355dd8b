"""Convolutions: padding modes, groups, dilation, strides, transposed convolution and weight layouts."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch.nn as tnn

from migcheck import PairedCase, uniform


# --- Conv1d: MindSpore's nn.Conv1d stores a 4-D (out, in, 1, k) weight; a port that keeps torch's
# 3-D (out, in, k) layout uses ops.conv1d on its own Parameter. ---

class Conv1dMs(mnn.Cell):
    def __init__(self, c_in, c_out, k, padding=0, stride=1):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.zeros((c_out, c_in, k), np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.zeros((c_out,), np.float32)), name="bias")
        self.padding = padding
        self.stride = stride

    def construct(self, x):
        return ops.conv1d(x, self.weight, self.bias, stride=self.stride, pad_mode="pad", padding=self.padding)


conv1d_pad = PairedCase(
    doc="Conv1d(padding=1) ported as ops.conv1d(pad_mode='pad') on a torch-shaped (out, in, k) weight",
    torch=lambda: tnn.Conv1d(4, 6, 3, padding=1),
    mindspore=lambda: Conv1dMs(4, 6, 3, padding=1),
    inputs={"x": uniform(2, 4, 8)},
    tags=("conv",),
)

conv1d_nn_reshaped = PairedCase(
    doc="mindspore.nn.Conv1d keeps a 4-D (out, in, 1, k) weight: the mapping reshapes torch's 3-D one (and gradients back)",
    torch=lambda: tnn.Conv1d(4, 6, 3, padding=1),
    mindspore=lambda: mnn.Conv1d(4, 6, 3, pad_mode="pad", padding=1, has_bias=True),
    inputs={"x": uniform(2, 4, 8)},
    tags=("conv", "mapping"),
)


# --- Conv2d ---

conv2d_strided = PairedCase(
    doc="Conv2d stride 2, padding 1: pad_mode='pad' with has_bias=True (MindSpore's defaults are 'same' and no bias)",
    torch=lambda: tnn.Conv2d(3, 6, 3, stride=2, padding=1),
    mindspore=lambda: mnn.Conv2d(3, 6, 3, stride=2, pad_mode="pad", padding=1, has_bias=True),
    inputs={"x": uniform(2, 3, 9, 9)},
    tags=("conv",),
)

conv2d_grouped_dilated = PairedCase(
    doc="grouped, dilated Conv2d: torch groups= is MindSpore group=; weight (out, in/groups, k, k) on both sides",
    torch=lambda: tnn.Conv2d(4, 8, 3, padding=2, dilation=2, groups=2),
    mindspore=lambda: mnn.Conv2d(4, 8, 3, pad_mode="pad", padding=2, dilation=2, group=2, has_bias=True),
    inputs={"x": uniform(2, 4, 8, 8)},
    tags=("conv",),
)

conv2d_depthwise = PairedCase(
    doc="depthwise Conv2d (groups == channels) without bias, valid padding",
    torch=lambda: tnn.Conv2d(4, 4, 3, groups=4, bias=False),
    mindspore=lambda: mnn.Conv2d(4, 4, 3, pad_mode="valid", group=4),
    inputs={"x": uniform(2, 4, 7, 7)},
    tags=("conv",),
)

conv2d_asymmetric_padding = PairedCase(
    doc="torch padding=(1, 2) (height, width) is MindSpore's 4-tuple (top, bottom, left, right) = (1, 1, 2, 2)",
    torch=lambda: tnn.Conv2d(3, 4, (3, 5), padding=(1, 2)),
    mindspore=lambda: mnn.Conv2d(3, 4, (3, 5), pad_mode="pad", padding=(1, 1, 2, 2), has_bias=True),
    inputs={"x": uniform(2, 3, 6, 7)},
    tags=("conv",),
)

conv2d_same = PairedCase(
    doc="torch padding='same' (stride 1) is MindSpore pad_mode='same'",
    torch=lambda: tnn.Conv2d(3, 4, 3, padding="same"),
    mindspore=lambda: mnn.Conv2d(3, 4, 3, pad_mode="same", has_bias=True),
    inputs={"x": uniform(2, 3, 6, 6)},
    tags=("conv",),
)

conv2d_default_same_stride2 = PairedCase(
    doc="known-bad: stride-2 Conv2d left at MindSpore's default pad_mode='same' gives 4x4 where torch (padding 0) gives 3x3",
    torch=lambda: tnn.Conv2d(3, 4, 3, stride=2),
    mindspore=lambda: mnn.Conv2d(3, 4, 3, stride=2, has_bias=True),
    inputs={"x": uniform(2, 3, 8, 8)},
    expect="fail", fails_with="shape", diagnosis="pad-mode",
    tags=("conv", "known-bad"),
)


# --- Conv3d and transposed convolution ---

conv3d_pad = PairedCase(
    doc="Conv3d with padding 1: pad_mode='pad', has_bias=True; weight (out, in, d, h, w) on both sides",
    torch=lambda: tnn.Conv3d(2, 3, 3, padding=1),
    mindspore=lambda: mnn.Conv3d(2, 3, 3, pad_mode="pad", padding=1, has_bias=True),
    inputs={"x": uniform(2, 2, 4, 5, 5)},
    tags=("conv",),
)

conv2d_transpose = PairedCase(
    doc="ConvTranspose2d(stride 2, padding 1, output_padding 1) as Conv2dTranspose with asymmetric padding (1, 0, 1, 0)",
    torch=lambda: tnn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    mindspore=lambda: mnn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=(1, 0, 1, 0), has_bias=True),
    inputs={"x": uniform(2, 4, 5, 5)},
    tags=("conv", "transpose"),
)

conv2d_transpose_output_padding = PairedCase(
    doc="known-bad: MindSpore 2.10 CPU Conv2dTranspose(output_padding=1) zero-fills the extra row/column torch computes",
    torch=lambda: tnn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    mindspore=lambda: mnn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True),
    inputs={"x": uniform(2, 4, 5, 5)},
    expect="fail", fails_with="value",
    tags=("conv", "transpose", "known-bad"),
)
