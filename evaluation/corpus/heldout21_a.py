"""Held-out set 21, half a: detection, segmentation and OCR heads and the geometry ops they use (blind).

This file: layers and losses inside small nets; functional and gradient-only entries are in heldout21_a_ops.py,
model blocks in heldout21_a_ports.py."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

F21 = "h21"
P21 = "h21-port"


def _torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    return torch, tnn, F


def _ms():
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return ms, mnn, ops


# ---------------------------------------------------------------- RoIAlign (torchvision semantics, written in torch)
ROIS = [[0.0, 0.5, 1.0, 6.3, 7.1], [0.0, 2.2, 0.4, 7.6, 4.9], [1.0, 1.0, 1.5, 5.2, 6.8]]


def _axis_weights(torch, start, size, bins, grid, limit):
    """Bilinear weights (bins*grid, limit) of the sample points along one axis, torchvision roi_align rules."""
    step = size / bins
    rows = []
    for b in range(bins):
        for g in range(grid):
            p = start + b * step + (g + 0.5) * step / grid
            row = [0.0] * limit
            if -1.0 <= p <= limit:
                p = max(p, 0.0)
                lo = int(math.floor(p))
                if lo >= limit - 1:
                    lo = hi = limit - 1
                    p = float(lo)
                else:
                    hi = lo + 1
                frac = p - lo
                row[lo] += 1.0 - frac
                row[hi] += frac
            rows.append(row)
    return torch.tensor(rows, dtype=torch.float32)


def _torch_roi_align(torch, feat, rois, out_size, scale, sampling_ratio, aligned=False):
    n, c, h, w = feat.shape
    outs = []
    for r in rois:
        b = int(r[0])
        x1, y1, x2, y2 = (v * scale - (0.5 if aligned else 0.0) for v in r[1:])
        rw, rh = (x2 - x1, y2 - y1) if aligned else (max(x2 - x1, 1.0), max(y2 - y1, 1.0))
        gh = sampling_ratio if sampling_ratio > 0 else math.ceil(rh / out_size)
        gw = sampling_ratio if sampling_ratio > 0 else math.ceil(rw / out_size)
        wy = _axis_weights(torch, y1, rh, out_size, gh, h)
        wx = _axis_weights(torch, x1, rw, out_size, gw, w)
        s = wy @ feat[b] @ wx.t()  # (c, out*gh, out*gw)
        s = s.reshape(c, out_size, gh, out_size, gw).mean(dim=(2, 4))
        outs.append(s)
    return torch.stack(outs)


def roi_torch():
    torch, tnn, F = _torch()

    class RoIAlign(tnn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, feat):
            return _torch_roi_align(torch, feat, ROIS, 2, 1.0, 4)

    class BoxHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(2, 3, 1)
            self.pool = RoIAlign()
            self.fc = tnn.Linear(12, 4)

        def forward(self, x):
            return self.fc(self.pool(self.conv(x)).flatten(1))

    return BoxHead()


def _roi_ms(sample_num):
    def make():
        ms, mnn, ops = _ms()

        class BoxHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)
                self.pool = (ops.ROIAlign(2, 2, 1.0, roi_end_mode=0) if sample_num is None
                             else ops.ROIAlign(2, 2, 1.0, sample_num=sample_num, roi_end_mode=0))
                self.rois = ms.Tensor(np.array(ROIS, np.float32))
                self.fc = mnn.Dense(12, 4)

            def construct(self, x):
                p = self.pool(self.conv(x), self.rois)
                return self.fc(p.reshape(p.shape[0], -1))

        return BoxHead()
    return make


# ---------------------------------------------------------------- CRNN CTC loss
CTC_TARGETS = [[1, 3, 2, 4], [2, 2, 1, 0], [4, 1, 0, 0]]
CTC_IN_LEN = [8, 7, 8]
CTC_TGT_LEN = [4, 3, 2]


def ctc_torch():
    torch, tnn, F = _torch()

    class CTCHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(6, 5)
            self.ctc = tnn.CTCLoss(blank=0, reduction="mean")

        def forward(self, x, targets, in_len, tgt_len):
            lp = F.log_softmax(self.fc(x), dim=2)
            return self.ctc(lp, targets, in_len, tgt_len)

    return CTCHead()


def _ctc_ms(v2):
    def make():
        ms, mnn, ops = _ms()

        class CTCHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(6, 5)
                self.v2 = v2
                self.ctc = ops.CTCLossV2(blank=0, reduction="mean") if v2 else mnn.CTCLoss(blank=0, reduction="mean")

            def construct(self, x, targets, in_len, tgt_len):
                lp = ops.log_softmax(self.fc(x), axis=2)
                if self.v2:
                    return self.ctc(lp, targets, in_len, tgt_len)[0]
                return self.ctc(lp, targets, in_len, tgt_len)

        return CTCHead()
    return make


# ---------------------------------------------------------------- modulated deformable conv (torchvision semantics)
def _torch_deform_conv3x3(torch, F, x, offset, mask, weight, bias):
    """torchvision.ops.deform_conv2d (stride 1, padding 1, one offset group): offset channels interleave (dy, dx)."""
    n, c, h, w = x.shape
    o = weight.shape[0]
    ii = torch.arange(h, dtype=x.dtype).view(1, h, 1)
    jj = torch.arange(w, dtype=x.dtype).view(1, 1, w)
    cols = []
    for a in range(3):
        for b in range(3):
            k = a * 3 + b
            y = ii - 1 + a + offset[:, 2 * k]
            xx = jj - 1 + b + offset[:, 2 * k + 1]
            grid = torch.stack([2 * xx / (w - 1) - 1, 2 * y / (h - 1) - 1], dim=-1)
            v = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
            cols.append(v * mask[:, k:k + 1])
    cols = torch.stack(cols, dim=2)
    return torch.einsum("ock,nckhw->nohw", weight.reshape(o, c, 9), cols) + bias.view(1, o, 1, 1)


def dcn_torch():
    torch, tnn, F = _torch()

    class ModulatedDeformConv(tnn.Module):
        def __init__(self):
            super().__init__()
            self.weight = tnn.Parameter(torch.randn(3, 2, 3, 3) * 0.3)
            self.bias = tnn.Parameter(torch.zeros(3))

        def forward(self, x, offset, mask):
            return _torch_deform_conv3x3(torch, F, x, offset, mask, self.weight, self.bias)

    class DCNv2Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv_offset = tnn.Conv2d(2, 27, 3, padding=1)
            self.dcn = ModulatedDeformConv()

        def forward(self, x):
            o1, o2, m = torch.chunk(self.conv_offset(x), 3, dim=1)
            return self.dcn(x, torch.cat((o1, o2), dim=1), torch.sigmoid(m))

    return DCNv2Block()


def _dcn_ms(blocks):
    def make():
        ms, mnn, ops = _ms()

        class ModulatedDeformConv(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.weight = ms.Parameter(ms.Tensor(np.zeros((3, 2, 3, 3), np.float32)), name="weight")
                self.bias = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="bias")

            def construct(self, x, offset, mask):
                if blocks:
                    n, _, h, w = offset.shape
                    pairs = offset.reshape(n, 9, 2, h, w)
                    offsets = ops.concat((pairs[:, :, 1], pairs[:, :, 0], mask), axis=1)
                else:
                    offsets = ops.concat((offset, mask), axis=1)
                return ops.deformable_conv2d(x, self.weight, offsets, (3, 3), (1, 1, 1, 1), (1, 1, 1, 1),
                                             bias=self.bias)

        class DCNv2Block(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.conv_offset = mnn.Conv2d(2, 27, 3, pad_mode="pad", padding=1, has_bias=True)
                self.dcn = ModulatedDeformConv()

            def construct(self, x):
                o1, o2, m = ops.chunk(self.conv_offset(x), 3, axis=1)
                return self.dcn(x, ops.concat((o1, o2), axis=1), ops.sigmoid(m))

        return DCNv2Block()
    return make

# ---------------------------------------------------------------- V-Net style multi-class soft Dice on seg logits
DICE_LABELS = np.array([[[0, 1, 2, 2], [1, 1, 0, 2], [2, 0, 0, 1], [1, 2, 2, 0]],
                        [[2, 2, 1, 0], [0, 1, 1, 1], [2, 0, 1, 2], [0, 0, 2, 1]]])
DICE_ONEHOT = np.eye(3, dtype=np.float32)[DICE_LABELS].transpose(0, 3, 1, 2).copy()


def dice_torch():
    torch, tnn, F = _torch()

    class SoftDice(tnn.Module):
        def forward(self, probs, onehot):
            c = probs.shape[1]
            p = probs.transpose(0, 1).reshape(c, -1)
            y = onehot.transpose(0, 1).reshape(c, -1)
            inter = (p * y).sum(1)
            union = (p * p).sum(1) + (y * y).sum(1)
            return (1 - (2 * inter + 1e-5) / (union + 1e-5)).mean()

    class SegDice(tnn.Module):
        def __init__(self):
            super().__init__()
            self.cls = tnn.Conv2d(3, 3, 1)
            self.loss = SoftDice()

        def forward(self, x, onehot):
            return self.loss(F.softmax(self.cls(x), dim=1), onehot)

    return SegDice()


def _dice_ms(builtin_activation):
    def make():
        ms, mnn, ops = _ms()

        class SegDice(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.cls = mnn.Conv2d(3, 3, 1, has_bias=True)
                self.builtin = builtin_activation
                self.loss = mnn.MultiClassDiceLoss() if builtin_activation else mnn.MultiClassDiceLoss(activation=None)

            def construct(self, x, onehot):
                logits = self.cls(x)
                if self.builtin:
                    return self.loss(logits, onehot)
                return self.loss(ops.softmax(logits, axis=1), onehot)

        return SegDice()
    return make


ENTRIES = [
    entry("h21a_box_head_roialign_sampling_ratio_4_left_at_sample_num_default", F21, "ROIAlign",
          roi_torch, _roi_ms(None), _roi_ms(4), ("pool",), ("sample_num|sampling_ratio|adaptive",),
          inputs={"x": uniform(2, 2, 9, 9)},
          cause_pattern=r"\bsample_num\b[^.]*\b4\b|\bsampling_ratio\b[^.]*\b4\b"),
    entry("h21a_crnn_ctc_loss_as_ops_ctclossv2_reduction_mean_raises", F21, "CTCLoss",
          ctc_torch, _ctc_ms(True), _ctc_ms(False), ("ctc",), ("CTCLossV2|reduction|nn.CTCLoss",),
          inputs={"x": uniform(8, 3, 6), "targets": given(np.array(CTC_TARGETS, np.int64)),
                  "in_len": given(np.array(CTC_IN_LEN, np.int64)), "tgt_len": given(np.array(CTC_TGT_LEN, np.int64))},
          fails_with="error",
          cause_pattern=r"\bCTCLossV2\b[^.]*\b(reduction|none)\b|\bnn\.CTCLoss\b|\bops\.ctc_loss\b"),
    entry("h21a_dcnv2_torchvision_interleaved_offsets_passed_to_ops_deformable_conv2d", F21, "deformable_conv2d",
          dcn_torch, _dcn_ms(False), _dcn_ms(True), ("dcn",), ("offsets|layout|interleaved",),
          inputs={"x": uniform(2, 2, 5, 5)},
          cause_pattern=r"\boffsets?\b[^.]*\b(layout|order|interleav\w*|x[- ]offsets?|dx|dy)\b"),
    entry("h21a_vnet_multiclass_dice_loss_builtin_softmax_activation_on_nchw_logits", F21,
          "probe:nn.MultiClassDiceLoss",
          dice_torch, _dice_ms(True), _dice_ms(False), ("loss",), ("activation|softmax|axis",),
          inputs={"x": uniform(2, 3, 4, 4), "onehot": given(DICE_ONEHOT)},
          cause_pattern=r"\bactivation\b[^.]*\b(None|axis|dim|channel|class(es)?)\b"
                        r"|\bsoftmax\b[^.]*\b(axis|dim)\b[^.]*\b1\b"),
]
