"""Pooling and resampling: pad_mode, count_include_pad, ceil_mode, adaptive pools, interpolation corners."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn
import torch.nn.functional as F

from migcheck import PairedCase, uniform


X = {"x": uniform(2, 3, 7, 7)}

maxpool2d = PairedCase(
    doc="MaxPool2d(2, 2): MindSpore's kernel_size/stride default to 1, so both are named",
    torch=lambda: tnn.MaxPool2d(2, 2), mindspore=lambda: mnn.MaxPool2d(kernel_size=2, stride=2),
    inputs={"x": uniform(2, 3, 8, 8)}, tags=("pool",),
)

maxpool2d_padded = PairedCase(
    doc="MaxPool2d(3, stride 2, padding 1) needs pad_mode='pad': padding is ignored under the default 'valid'",
    torch=lambda: tnn.MaxPool2d(3, 2, padding=1),
    mindspore=lambda: mnn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1),
    inputs=X, tags=("pool",),
)

avgpool2d_padded = PairedCase(
    doc="AvgPool2d(3, 1, padding 1): count_include_pad=True is the default on both sides",
    torch=lambda: tnn.AvgPool2d(3, 1, padding=1),
    mindspore=lambda: mnn.AvgPool2d(kernel_size=3, stride=1, pad_mode="pad", padding=1),
    inputs=X, tags=("pool",),
)

avgpool2d_exclude_pad = PairedCase(
    doc="AvgPool2d(count_include_pad=False): border windows divide by the valid element count",
    torch=lambda: tnn.AvgPool2d(3, 2, padding=1, count_include_pad=False),
    mindspore=lambda: mnn.AvgPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1, count_include_pad=False),
    inputs=X, tags=("pool",),
)

avgpool2d_count_include_pad_dropped = PairedCase(
    doc="known-bad: torch's count_include_pad=False not carried over; MindSpore's default counts the zero padding",
    torch=lambda: tnn.AvgPool2d(3, 2, padding=1, count_include_pad=False),
    mindspore=lambda: mnn.AvgPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1),
    inputs=X, expect="fail", fails_with="value", diagnosis="pool-count-include-pad", tags=("pool", "known-bad"),
)

avgpool2d_ceil = PairedCase(
    doc="AvgPool2d(2, 2, ceil_mode=True) on 7x7 keeps the partial last window (4x4 output)",
    torch=lambda: tnn.AvgPool2d(2, 2, ceil_mode=True),
    mindspore=lambda: mnn.AvgPool2d(kernel_size=2, stride=2, pad_mode="pad", ceil_mode=True),
    inputs=X, tags=("pool",),
)

avgpool2d_ceil_dropped = PairedCase(
    doc="known-bad: ceil_mode=True not carried over: MindSpore floors to 3x3 where torch gives 4x4",
    torch=lambda: tnn.AvgPool2d(2, 2, ceil_mode=True),
    mindspore=lambda: mnn.AvgPool2d(kernel_size=2, stride=2),
    inputs=X, expect="fail", fails_with="shape", diagnosis="pool-ceil-mode", tags=("pool", "known-bad"),
)

avgpool1d = PairedCase(
    doc="AvgPool1d(3, 2) on (batch, channels, length)",
    torch=lambda: tnn.AvgPool1d(3, 2), mindspore=lambda: mnn.AvgPool1d(kernel_size=3, stride=2),
    inputs={"x": uniform(2, 3, 9)}, tags=("pool",),
)

adaptive_avgpool2d = PairedCase(
    doc="AdaptiveAvgPool2d((3, 3)) on 7x7: non-divisible, overlapping windows",
    torch=lambda: tnn.AdaptiveAvgPool2d((3, 3)), mindspore=lambda: mnn.AdaptiveAvgPool2d((3, 3)),
    inputs=X, tags=("pool", "adaptive"),
)


# --- Resampling: F.interpolate vs ops.interpolate. ---

class ResizePt(tnn.Module):
    def __init__(self, mode, align_corners):
        super().__init__()
        self.mode, self.align_corners = mode, align_corners

    def forward(self, x):
        return F.interpolate(x, size=(7, 9), mode=self.mode, align_corners=self.align_corners)


class ResizeMs(mnn.Cell):
    def __init__(self, mode, align_corners):
        super().__init__()
        self.mode, self.align_corners = mode, align_corners

    def construct(self, x):
        return ops.interpolate(x, size=(7, 9), mode=self.mode, align_corners=self.align_corners)


R = {"x": uniform(2, 2, 4, 5)}

bilinear_align_corners = PairedCase(
    doc="bilinear upsampling, align_corners=True (the old nn.ResizeBilinear behaviour)",
    torch=lambda: ResizePt("bilinear", True), mindspore=lambda: ResizeMs("bilinear", True),
    inputs=R, tags=("resize",),
)

bilinear_half_pixel = PairedCase(
    doc="bilinear upsampling, align_corners=False (torch's default, half-pixel centres)",
    torch=lambda: ResizePt("bilinear", False), mindspore=lambda: ResizeMs("bilinear", False),
    inputs=R, tags=("resize",),
)

bilinear_align_corners_mismatch = PairedCase(
    doc="known-bad: torch align_corners=False ported with align_corners=True samples different positions",
    torch=lambda: ResizePt("bilinear", False), mindspore=lambda: ResizeMs("bilinear", True),
    inputs=R, expect="fail", fails_with="value", diagnosis="align-corners", tags=("resize", "known-bad"),
)

nearest_upsample = PairedCase(
    doc="nearest upsampling to a non-integer scale (4x5 -> 7x9)",
    torch=lambda: ResizePt("nearest", None), mindspore=lambda: ResizeMs("nearest", None),
    inputs=R, tags=("resize",),
)
