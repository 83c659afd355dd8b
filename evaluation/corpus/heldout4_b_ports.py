"""Held-out set 4, half b: two small model blocks, each ported with one functional-op mistake (family "h4-port").

- a cosine-similarity classifier head (NormFace / CosFace style): features and class weights L2-normalised per
  row; the naive port uses mindspore.ops.L2Normalize with its default axis=0 (normalises across the batch and
  across the classes instead of along each row).
- an FPN top-down merge: the coarser map upsampled x2 (bilinear, align_corners=False) and added to the lateral
  1x1 conv; the naive port keeps scale_factor=2, which mindspore.ops.interpolate refuses for 4-D bilinear input.
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
from migcheck.specs import uniform

FAM = "h4-port"


# --- cosine classifier head ---------------------------------------------------------------------------------------

class TorchCosineHead(tnn.Module):
    def __init__(self, dim, classes, scale=8.0):
        super().__init__()
        self.weight = tnn.Parameter(torch.randn(classes, dim))
        self.scale = scale

    def forward(self, x):
        return self.scale * F.linear(F.normalize(x, dim=1), F.normalize(self.weight, dim=1))


class TorchCosineNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Linear(5, 6)
        self.head = TorchCosineHead(6, 4)

    def forward(self, x):
        return self.head(torch.tanh(self.embed(x)))


def ms_cosine_net(axis_given: bool):
    class MsCosineHead(mnn.Cell):
        def __init__(self, dim, classes, scale=8.0):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.zeros((classes, dim), np.float32)), name="weight")
            self.scale = scale
            # the naive port keeps L2Normalize's default axis=0
            self.l2norm = ops.L2Normalize(axis=1, epsilon=1e-12) if axis_given else ops.L2Normalize(epsilon=1e-12)

        def construct(self, x):
            return self.scale * ops.matmul(self.l2norm(x), self.l2norm(self.weight).T)

    class MsCosineNet(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.embed = mnn.Dense(5, 6)
            self.head = MsCosineHead(6, 4)

        def construct(self, x):
            return self.head(ops.tanh(self.embed(x)))

    return MsCosineNet


# --- FPN top-down merge -----------------------------------------------------------------------------------------

class TorchFpnMerge(tnn.Module):
    def __init__(self):
        super().__init__()
        self.lat3 = tnn.Conv2d(3, 4, 1)
        self.lat4 = tnn.Conv2d(5, 4, 1)
        self.smooth = tnn.Conv2d(4, 4, 3, padding=1)

    def forward(self, c3, c4):
        p4 = self.lat4(c4)
        p3 = self.lat3(c3) + F.interpolate(p4, scale_factor=2, mode="bilinear", align_corners=False)
        return self.smooth(p3), p4


def ms_fpn_merge(by_size: bool):
    class MsFpnMerge(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.lat3 = mnn.Conv2d(3, 4, 1, has_bias=True)
            self.lat4 = mnn.Conv2d(5, 4, 1, has_bias=True)
            self.smooth = mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True)

        def construct(self, c3, c4):
            p4 = self.lat4(c4)
            if by_size:
                up = ops.interpolate(p4, size=(p4.shape[2] * 2, p4.shape[3] * 2), mode="bilinear",
                                     align_corners=False)
            else:
                up = ops.interpolate(p4, scale_factor=2.0, mode="bilinear", align_corners=False)
            p3 = self.lat3(c3) + up
            return self.smooth(p3), p4

    return MsFpnMerge


ENTRIES = [
    entry("h4b_port_cosine_classifier_l2normalize_axis", FAM,
          "model: NormFace/CosFace cosine classifier head; probe: ops.L2Normalize(axis=0, epsilon=1e-4) defaults",
          TorchCosineNet, ms_cosine_net(False), ms_cosine_net(True), ("head",), ("L2Normalize|axis",),
          inputs={"x": uniform(3, 5)}, checks=("forward", "backward"),
          cause_pattern=r"\b(axis|dim)\s*=\s*(1|-1)\b|\b(axis|dim)\b(?:[^.\n]|\.(?=\w)){0,30}(?<![-.\w])(1|-1)\b(?!\.\d)"
                        r"|\b(each|per)[ -]row\b|\brow[- ]wise\b"),
    entry("h4b_port_fpn_topdown_bilinear_scale_factor", FAM,
          "model: FPN top-down pathway (lateral 1x1 + upsampled coarser map); probe: ops.interpolate refuses"
          " scale_factor for 4-D bilinear/nearest input",
          TorchFpnMerge, ms_fpn_merge(False), ms_fpn_merge(True), ("after:lat4",), ("interpolate|scale_factor|size",),
          inputs={"c3": uniform(2, 3, 4, 4), "c4": uniform(2, 5, 2, 2)}, checks=("forward",), fails_with="error",
          cause_pattern=r"(?<![\w.])size\s*=|\bsize\b(?:[^.\n]|\.(?=\w)){0,40}\b(instead|rather)\b"
                        r"|\bscale_factor\b(?:[^.\n]|\.(?=\w)){0,80}\b(size|not supported|unsupported|cannot|refuse\w*)\b"),
]
