"""Held-out set 21, half a: detection, segmentation and OCR heads and the geometry ops they use (blind)."""
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


def _torch_roi_align(torch, feat, rois, out_size, scale, sampling_ratio):
    n, c, h, w = feat.shape
    outs = []
    for r in rois:
        b = int(r[0])
        x1, y1, x2, y2 = (v * scale for v in r[1:])
        rw, rh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
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
            return _torch_roi_align(torch, feat, ROIS, 2, 1.0, -1)

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
                self.pool = ops.ROIAlign(2, 2, 1.0, sample_num=sample_num, roi_end_mode=0)
                self.rois = ms.Tensor(np.array(ROIS, np.float32))
                self.fc = mnn.Dense(12, 4)

            def construct(self, x):
                p = self.pool(self.conv(x), self.rois)
                return self.fc(p.reshape(p.shape[0], -1))

        return BoxHead()
    return make


# ---------------------------------------------------------------- CenterNet-style peak decoding
def centernet_torch():
    torch, tnn, F = _torch()

    class Decode(tnn.Module):
        def __init__(self):
            super().__init__()
            self.hm = tnn.Conv2d(3, 1, 1)

        def forward(self, x):
            heat = torch.sigmoid(self.hm(x))
            hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
            heat = heat * (hmax == heat).float()
            n, _, h, w = heat.shape
            scores, inds = torch.topk(heat.reshape(n, -1), 4)
            ys = torch.div(inds, w, rounding_mode="floor").float()
            xs = (inds % w).float()
            return torch.stack([xs, ys, scores], dim=-1)

    return Decode()


def _centernet_ms(floor):
    def make():
        ms, mnn, ops = _ms()

        class Decode(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.hm = mnn.Conv2d(3, 1, 1, has_bias=True)
                self.pool = mnn.MaxPool2d(3, 1, pad_mode="pad", padding=1)

            def construct(self, x):
                heat = ops.sigmoid(self.hm(x))
                hmax = self.pool(heat)
                heat = heat * (hmax == heat).astype(ms.float32)
                n, _, h, w = heat.shape
                scores, inds = ops.topk(heat.reshape(n, -1), 4)
                if floor:
                    ys = ops.div(inds, w, rounding_mode="floor").astype(ms.float32)
                else:
                    ys = ops.div(inds, w).astype(ms.float32)
                xs = (inds % w).astype(ms.float32)
                return ops.stack([xs, ys, scores], axis=-1)

        return Decode()
    return make


# ---------------------------------------------------------------- CIoU loss (torchvision complete_box_iou_loss style)
TARGET_BOXES = [[0.1, 0.2, 1.3, 0.9], [-0.5, -0.4, 0.6, 1.8], [0.0, 0.0, 2.0, 0.7], [-1.0, 0.3, 0.2, 0.9]]


def ciou_torch():
    torch, tnn, F = _torch()

    class CIoU(tnn.Module):
        def __init__(self):
            super().__init__()
            self.reg = tnn.Linear(6, 4)
            self.register_buffer("gt", torch.tensor(TARGET_BOXES))

        def forward(self, x):
            r = self.reg(x)
            c, wh = r[:, :2], torch.exp(r[:, 2:])
            p1, p2 = c - wh / 2, c + wh / 2
            g1, g2 = self.gt[:, :2], self.gt[:, 2:]
            eps = 1e-7
            iwh = (torch.min(p2, g2) - torch.max(p1, g1)).clamp(min=0)
            inter = iwh[:, 0] * iwh[:, 1]
            gwh = g2 - g1
            union = wh[:, 0] * wh[:, 1] + gwh[:, 0] * gwh[:, 1] - inter + eps
            iou = inter / union
            cwh = torch.max(p2, g2) - torch.min(p1, g1)
            diag = (cwh ** 2).sum(-1) + eps
            cen = (((p1 + p2) - (g1 + g2)) ** 2).sum(-1) / 4
            v = (4 / math.pi ** 2) * (torch.atan(gwh[:, 0] / gwh[:, 1]) - torch.atan(wh[:, 0] / wh[:, 1])) ** 2
            with torch.no_grad():
                alpha = v / (1 - iou + v + eps)
            return (1 - iou + cen / diag + alpha * v).mean()

    return CIoU()


def _ciou_ms(stop):
    def make():
        ms, mnn, ops = _ms()

        class CIoU(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.reg = mnn.Dense(6, 4)
                self.gt = ms.Tensor(np.array(TARGET_BOXES, np.float32))

            def construct(self, x):
                r = self.reg(x)
                c, wh = r[:, :2], ops.exp(r[:, 2:])
                p1, p2 = c - wh / 2, c + wh / 2
                g1, g2 = self.gt[:, :2], self.gt[:, 2:]
                eps = 1e-7
                iwh = ops.clamp(ops.minimum(p2, g2) - ops.maximum(p1, g1), min=0.0)
                inter = iwh[:, 0] * iwh[:, 1]
                gwh = g2 - g1
                union = wh[:, 0] * wh[:, 1] + gwh[:, 0] * gwh[:, 1] - inter + eps
                iou = inter / union
                cwh = ops.maximum(p2, g2) - ops.minimum(p1, g1)
                diag = (cwh ** 2).sum(-1) + eps
                cen = (((p1 + p2) - (g1 + g2)) ** 2).sum(-1) / 4
                v = (4 / math.pi ** 2) * (ops.atan(gwh[:, 0] / gwh[:, 1]) - ops.atan(wh[:, 0] / wh[:, 1])) ** 2
                alpha = v / (1 - iou + v + eps)
                if stop:
                    alpha = ops.stop_gradient(alpha)
                return (1 - iou + cen / diag + alpha * v).mean()

        return CIoU()
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


def _ctc_ms(reduction):
    def make():
        ms, mnn, ops = _ms()

        class CTCHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mnn.Dense(6, 5)
                self.ctc = ops.CTCLossV2(blank=0) if reduction is None else ops.CTCLossV2(blank=0, reduction=reduction)

            def construct(self, x, targets, in_len, tgt_len):
                lp = ops.log_softmax(self.fc(x), axis=2)
                return self.ctc(lp, targets, in_len, tgt_len)[0]

        return CTCHead()
    return make


ENTRIES = [
    entry("h21a_box_head_roialign_sample_num_fixed_two_vs_adaptive_sampling_ratio", F21, "ROIAlign",
          roi_torch, _roi_ms(2), _roi_ms(0), ("pool",), ("sample_num|sampling_ratio|adaptive",),
          inputs={"x": uniform(2, 2, 9, 9)},
          cause_pattern=r"\bsample_num\b[^.]*\b0\b|\bsampling_ratio\b[^.]*(-1\b|\badaptive)|\badaptive\b[^.]*\bsampl"),
    entry("h21a_functional_centernet_peak_rows_ops_div_rounding_mode_dropped", F21, "probe:ops.div rounding_mode",
          centernet_torch, _centernet_ms(False), _centernet_ms(True), ("after:hm",), ("rounding_mode|floor",),
          inputs={"x": uniform(2, 3, 5, 6)},
          cause_pattern=r"\brounding_mode\b[^.]*\bfloor\b|\bfloor_?div(ide)?\b|//"),
    entry("h21a_ciou_loss_aspect_alpha_no_grad_without_stop_gradient", F21, "probe:torch.no_grad vs ops.stop_gradient",
          ciou_torch, _ciou_ms(False), _ciou_ms(True), ("<root>",), ("stop_gradient|no_grad|alpha",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"),
          cause_pattern=r"\bstop_gradient\b|\bno_grad\b|\bdetach\b"),
    entry("h21a_crnn_ctc_loss_ctclossv2_default_reduction_none", F21, "CTCLoss",
          ctc_torch, _ctc_ms(None), _ctc_ms("mean"), ("ctc",), ("reduction|mean",),
          inputs={"x": uniform(8, 3, 6), "targets": given(np.array(CTC_TARGETS, np.int64)),
                  "in_len": given(np.array(CTC_IN_LEN, np.int64)), "tgt_len": given(np.array(CTC_TGT_LEN, np.int64))},
          fails_with="shape",
          cause_pattern=r"\breduction\b[^.]*\bmean\b"),
]
