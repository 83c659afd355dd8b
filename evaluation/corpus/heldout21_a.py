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
                inds = inds.astype(ms.int64)
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
            self.gt = torch.tensor(TARGET_BOXES)

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

# ---------------------------------------------------------------- area downsampling of segmentation logits
def area_torch():
    torch, tnn, F = _torch()

    class AuxSeg(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(3, 4, 1)
            self.cls = tnn.Conv2d(4, 2, 1)

        def forward(self, x):
            y = F.interpolate(self.conv(x), size=(4, 4), mode="area")
            return self.cls(y)

    return AuxSeg()


def _area_ms(resize_area):
    def make():
        ms, mnn, ops = _ms()

        class AuxSeg(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = mnn.Conv2d(3, 4, 1, has_bias=True)
                self.cls = mnn.Conv2d(4, 2, 1, has_bias=True)
                self.resize = ops.ResizeArea()
                self.size = ms.Tensor(np.array([4, 4], np.int32))

            def construct(self, x):
                y = self.conv(x)
                if resize_area:
                    y = self.resize(y.transpose(0, 2, 3, 1), self.size).transpose(0, 3, 1, 2)
                else:
                    y = ops.interpolate(y, size=(4, 4), mode="area")
                return self.cls(y)

        return AuxSeg()
    return make


# ---------------------------------------------------------------- IoU-aware objectness target (YOLOv5 style tobj)
def obj_torch():
    torch, tnn, F = _torch()

    class IoUObj(tnn.Module):
        def __init__(self):
            super().__init__()
            self.reg = tnn.Linear(6, 4)
            self.obj = tnn.Linear(6, 1)
            self.gt = torch.tensor(TARGET_BOXES)

        def forward(self, x):
            r = self.reg(x)
            c, wh = r[:, :2], torch.exp(r[:, 2:])
            p1, p2 = c - wh / 2, c + wh / 2
            g1, g2 = self.gt[:, :2], self.gt[:, 2:]
            iwh = (torch.min(p2, g2) - torch.max(p1, g1)).clamp(min=0)
            inter = iwh[:, 0] * iwh[:, 1]
            gwh = g2 - g1
            iou = inter / (wh[:, 0] * wh[:, 1] + gwh[:, 0] * gwh[:, 1] - inter + 1e-7)
            tobj = iou.detach().clamp(0)
            p = self.obj(x)[:, 0]
            bce = F.softplus(p) - tobj * p
            return (1 - iou).mean() + bce.mean()

    return IoUObj()


def _obj_ms(stop):
    def make():
        ms, mnn, ops = _ms()

        class IoUObj(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.reg = mnn.Dense(6, 4)
                self.obj = mnn.Dense(6, 1)
                self.gt = ms.Tensor(np.array(TARGET_BOXES, np.float32))

            def construct(self, x):
                r = self.reg(x)
                c, wh = r[:, :2], ops.exp(r[:, 2:])
                p1, p2 = c - wh / 2, c + wh / 2
                g1, g2 = self.gt[:, :2], self.gt[:, 2:]
                iwh = ops.clamp(ops.minimum(p2, g2) - ops.maximum(p1, g1), min=0.0)
                inter = iwh[:, 0] * iwh[:, 1]
                gwh = g2 - g1
                iou = inter / (wh[:, 0] * wh[:, 1] + gwh[:, 0] * gwh[:, 1] - inter + 1e-7)
                tobj = ops.clamp(ops.stop_gradient(iou) if stop else iou, min=0.0)
                p = self.obj(x)[:, 0]
                bce = ops.softplus(p) - tobj * p
                return (1 - iou).mean() + bce.mean()

        return IoUObj()
    return make


# ---------------------------------------------------------------- blocks
MASK_ROIS = [[0.0, 1.0, 1.0, 13.0, 11.0], [1.0, 3.0, 2.5, 9.5, 14.0], [0.0, 6.0, 0.0, 15.0, 7.5]]


def mask_head_torch():
    torch, tnn, F = _torch()

    class RoIAlign(tnn.Module):
        def forward(self, feat):
            return _torch_roi_align(torch, feat, MASK_ROIS, 3, 0.5, 1)

    class MaskHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.stem = tnn.Conv2d(3, 4, 1)
            self.pool = RoIAlign()
            self.fcn = tnn.Conv2d(4, 4, 1)
            self.deconv = tnn.ConvTranspose2d(4, 4, 2, stride=2)
            self.logits = tnn.Conv2d(4, 2, 1)

        def forward(self, x):
            r = self.pool(F.relu(self.stem(x)))
            r = F.relu(self.fcn(r))
            r = F.relu(self.deconv(r))
            return self.logits(r)

    return MaskHead()


def _mask_head_ms(sample_num):
    def make():
        ms, mnn, ops = _ms()

        class MaskHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.stem = mnn.Conv2d(3, 4, 1, has_bias=True)
                self.pool = (ops.ROIAlign(3, 3, 0.5, roi_end_mode=0) if sample_num is None
                             else ops.ROIAlign(3, 3, 0.5, sample_num=sample_num, roi_end_mode=0))
                self.rois = ms.Tensor(np.array(MASK_ROIS, np.float32))
                self.fcn = mnn.Conv2d(4, 4, 1, has_bias=True)
                self.deconv = mnn.Conv2dTranspose(4, 4, 2, stride=2, pad_mode="valid", has_bias=True)
                self.logits = mnn.Conv2d(4, 2, 1, has_bias=True)

            def construct(self, x):
                r = self.pool(ops.relu(self.stem(x)), self.rois)
                r = ops.relu(self.fcn(r))
                r = ops.relu(self.deconv(r))
                return self.logits(r)

        return MaskHead()
    return make


def centernet_head_torch():
    torch, tnn, F = _torch()

    class CenterHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.hm = tnn.Sequential(tnn.Conv2d(3, 4, 1), tnn.ReLU(), tnn.Conv2d(4, 1, 1))
            self.wh = tnn.Sequential(tnn.Conv2d(3, 4, 1), tnn.ReLU(), tnn.Conv2d(4, 2, 1))

        def forward(self, x):
            heat = torch.sigmoid(self.hm(x))
            wh = self.wh(x)
            keep = (F.max_pool2d(heat, 3, stride=1, padding=1) == heat).float()
            n, _, h, w = heat.shape
            scores, inds = torch.topk((heat * keep).reshape(n, -1), 3)
            ys = torch.div(inds, w, rounding_mode="floor").float()
            xs = (inds % w).float()
            size = torch.gather(wh.reshape(n, 2, -1), 2, inds[:, None, :].expand(n, 2, 3))
            boxes = torch.stack([xs - size[:, 0] / 2, ys - size[:, 1] / 2,
                                 xs + size[:, 0] / 2, ys + size[:, 1] / 2], dim=-1) * 4.0
            return boxes, scores

    return CenterHead()


def _centernet_head_ms(floor):
    def make():
        ms, mnn, ops = _ms()

        class CenterHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.hm = mnn.SequentialCell([mnn.Conv2d(3, 4, 1, has_bias=True), mnn.ReLU(),
                                              mnn.Conv2d(4, 1, 1, has_bias=True)])
                self.wh = mnn.SequentialCell([mnn.Conv2d(3, 4, 1, has_bias=True), mnn.ReLU(),
                                              mnn.Conv2d(4, 2, 1, has_bias=True)])
                self.pool = mnn.MaxPool2d(3, 1, pad_mode="pad", padding=1)

            def construct(self, x):
                heat = ops.sigmoid(self.hm(x))
                wh = self.wh(x)
                keep = (self.pool(heat) == heat).astype(ms.float32)
                n, _, h, w = heat.shape
                scores, inds = ops.topk((heat * keep).reshape(n, -1), 3)
                inds = inds.astype(ms.int64)
                if floor:
                    ys = ops.div(inds, w, rounding_mode="floor").astype(ms.float32)
                else:
                    ys = ops.div(inds, w).astype(ms.float32)
                xs = (inds % w).astype(ms.float32)
                size = ops.gather_elements(wh.reshape(n, 2, -1), 2, ops.broadcast_to(inds[:, None, :], (n, 2, 3)))
                boxes = ops.stack([xs - size[:, 0] / 2, ys - size[:, 1] / 2,
                                   xs + size[:, 0] / 2, ys + size[:, 1] / 2], axis=-1) * 4.0
                return boxes, scores

        return CenterHead()
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


# ---------------------------------------------------------------- fixed bilinear-kernel transposed-conv upsampling
def _bilinear_kernel(channels, k):
    f = math.ceil(k / 2)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    og = np.ogrid[:k, :k]
    filt = (1 - np.abs(og[0] / f - c)) * (1 - np.abs(og[1] / f - c))
    return np.tile(filt[None, None].astype(np.float32), (channels, 1, 1, 1))


def deconv_up_torch():
    torch, tnn, F = _torch()

    class BilinearUp(tnn.Module):
        def __init__(self):
            super().__init__()
            self.score = tnn.Conv2d(3, 2, 1)
            self.kernel = torch.tensor(_bilinear_kernel(2, 4))

        def forward(self, x):
            return F.conv_transpose2d(self.score(x), self.kernel, stride=2, padding=1, groups=2)

    return BilinearUp()


def _deconv_up_ms(functional):
    def make():
        ms, mnn, ops = _ms()

        class BilinearUp(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.score = mnn.Conv2d(3, 2, 1, has_bias=True)
                self.kernel = ms.Tensor(_bilinear_kernel(2, 4))
                self.functional = functional
                self.up = ops.Conv2DTranspose(out_channel=2, kernel_size=4, pad_mode="pad", pad=(1, 1, 1, 1), stride=2,
                                              group=2)

            def construct(self, x):
                y = self.score(x)
                if self.functional:
                    return ops.conv_transpose2d(y, self.kernel, stride=2, padding=1, groups=2)
                n, c, h, w = y.shape
                return self.up(y, self.kernel, (n, c, 2 * h, 2 * w))

        return BilinearUp()
    return make

# ---------------------------------------------------------------- modulated deformable conv (torchvision deform_conv2d semantics)
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

# ---------------------------------------------------------------- V-Net style multi-class soft Dice on segmentation logits
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

# ---------------------------------------------------------------- torchvision roi_align(aligned=True) in forward
ALIGNED_ROIS = [[0.0, 2.0, 1.0, 13.0, 12.5], [1.0, 0.5, 4.0, 9.0, 15.0], [1.0, 7.0, 3.0, 15.5, 8.0]]


def aligned_roi_torch():
    torch, tnn, F = _torch()

    class RoIFeatures(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(2, 3, 1)
            self.fc = tnn.Linear(12, 3)

        def forward(self, x):
            pooled = _torch_roi_align(torch, self.conv(x), ALIGNED_ROIS, 2, 0.5, 2, aligned=True)
            return self.fc(pooled.flatten(1))

    return RoIFeatures()


def _aligned_roi_ms(half_pixel):
    def make():
        ms, mnn, ops = _ms()

        class RoIFeatures(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)
                self.fc = mnn.Dense(12, 3)
                rois = np.array(ALIGNED_ROIS, np.float32)
                if half_pixel:
                    rois[:, 1:] -= 0.5 / 0.5
                self.rois = ms.Tensor(rois)
                self.roi_align = ops.ROIAlign(2, 2, 0.5, sample_num=2, roi_end_mode=0 if half_pixel else 1)

            def construct(self, x):
                pooled = self.roi_align(self.conv(x), self.rois)
                return self.fc(pooled.reshape(pooled.shape[0], -1))

        return RoIFeatures()
    return make

# ---------------------------------------------------------------- NMS keep mask (torchvision.ops.nms semantics)
NMS_BOXES = [[10, 10, 60, 60], [12, 8, 62, 58], [100, 100, 150, 160], [105, 110, 148, 165], [10, 70, 50, 120],
             [200, 10, 260, 70], [205, 15, 262, 72], [14, 75, 52, 118]]


def _torch_nms_keep(torch, boxes, scores, thr):
    order = torch.argsort(scores, descending=True)
    keep = torch.zeros_like(scores)
    suppressed = torch.zeros(scores.shape[0], dtype=torch.bool)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep[i] = 1.0
        wh = (torch.min(boxes[i, 2:], boxes[:, 2:]) - torch.max(boxes[i, :2], boxes[:, :2])).clamp(min=0)
        inter = wh[:, 0] * wh[:, 1]
        suppressed |= inter / (area[i] + area - inter) > thr
    return keep


def nms_torch():
    torch, tnn, F = _torch()

    class ScoredNMS(tnn.Module):
        def __init__(self):
            super().__init__()
            self.score = tnn.Linear(4, 1)
            self.boxes = torch.tensor(NMS_BOXES, dtype=torch.float32)

        def forward(self, x):
            s = torch.sigmoid(self.score(x))[:, 0]
            keep = _torch_nms_keep(torch, self.boxes, s.detach(), 0.5)
            return s * keep

    return ScoredNMS()


def _nms_ms(reorder):
    def make():
        ms, mnn, ops = _ms()

        class ScoredNMS(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.score = mnn.Dense(4, 1)
                self.boxes = ms.Tensor(np.array(NMS_BOXES, np.float32))
                self.nms = ops.NMSWithMask(0.5)

            def construct(self, x):
                s = ops.sigmoid(self.score(x))[:, 0]
                _, _, mask = self.nms(ops.concat((self.boxes, s[:, None]), axis=1))
                keep = mask.astype(ms.float32)
                if reorder:
                    order = ops.sort(s, descending=True)[1].astype(ms.int32)
                    keep = ops.tensor_scatter_update(ops.zeros_like(s), order[:, None], keep)
                return s * keep

        return ScoredNMS()
    return make


ENTRIES = [
    entry("h21a_box_head_roialign_sampling_ratio_4_left_at_sample_num_default", F21, "ROIAlign",
          roi_torch, _roi_ms(None), _roi_ms(4), ("pool",), ("sample_num|sampling_ratio|adaptive",),
          inputs={"x": uniform(2, 2, 9, 9)},
          cause_pattern=r"\bsample_num\b[^.]*\b4\b|\bsampling_ratio\b[^.]*\b4\b"),
    entry("h21a_functional_centernet_peak_rows_ops_div_rounding_mode_dropped", F21, "probe:ops.div rounding_mode",
          centernet_torch, _centernet_ms(False), _centernet_ms(True), ("after:hm",), ("rounding_mode|floor",),
          inputs={"x": uniform(2, 3, 5, 6)},
          cause_pattern=r"\brounding_mode\b[^.]*\bfloor\b|\bfloor_?div(ide)?\b|//"),
    entry("h21a_ciou_loss_aspect_alpha_no_grad_without_stop_gradient", F21, "probe:torch.no_grad vs ops.stop_gradient",
          ciou_torch, _ciou_ms(False), _ciou_ms(True), ("<root>",), ("stop_gradient|no_grad|alpha",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bno_grad\b|\bdetach\b"),
    entry("h21a_functional_aux_seg_logits_area_downsample_as_ops_resizearea", F21, "probe:ops.ResizeArea vs interpolate area",
          area_torch, _area_ms(True), _area_ms(False), ("after:conv",), ("ResizeArea|area|adaptive_avg_pool2d",),
          inputs={"x": uniform(2, 3, 10, 10)},
          cause_pattern=r"\binterpolate\b[^.]*\barea\b|\badaptive_?avg_?pool(2d)?\b|\bResizeArea\b[^.]*\b(adaptive|average[ -]pool)"),
    entry("h21a_yolo_objectness_iou_target_detach_without_stop_gradient", F21, "probe:Tensor.detach vs ops.stop_gradient",
          obj_torch, _obj_ms(False), _obj_ms(True), ("<root>",), ("stop_gradient|detach",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bdetach\b"),
    entry("h21a_port_mask_rcnn_mask_head_roialign_sampling_ratio_1_left_at_sample_num_default", P21, "ROIAlign",
          mask_head_torch, _mask_head_ms(None), _mask_head_ms(1), ("pool",), ("sample_num|sampling_ratio",),
          inputs={"x": uniform(2, 3, 8, 8)},
          cause_pattern=r"\bsample_num\b[^.]*\b1\b|\bsampling_ratio\b[^.]*\b1\b"),
    entry("h21a_port_centernet_head_topk_decode_ops_div_rounding_mode_dropped", P21, "probe:ops.div rounding_mode",
          centernet_head_torch, _centernet_head_ms(False), _centernet_head_ms(True), ("after:hm",),
          ("rounding_mode|floor",), inputs={"x": uniform(2, 3, 6, 7)},
          cause_pattern=r"\brounding_mode\b[^.]*\bfloor\b|\bfloor_?div(ide)?\b|//"),
    entry("h21a_crnn_ctc_loss_as_ops_ctclossv2_reduction_mean_raises", F21, "CTCLoss",
          ctc_torch, _ctc_ms(True), _ctc_ms(False), ("ctc",), ("CTCLossV2|reduction|nn.CTCLoss",),
          inputs={"x": uniform(8, 3, 6), "targets": given(np.array(CTC_TARGETS, np.int64)),
                  "in_len": given(np.array(CTC_IN_LEN, np.int64)), "tgt_len": given(np.array(CTC_TGT_LEN, np.int64))},
          fails_with="error",
          cause_pattern=r"\bCTCLossV2\b[^.]*\b(reduction|none)\b|\bnn\.CTCLoss\b|\bops\.ctc_loss\b"),
    entry("h21a_functional_fcn_bilinear_deconv_upsample_ops_conv_transpose2d_raises", F21,
          "probe:ops.conv_transpose2d on CPU", deconv_up_torch, _deconv_up_ms(True), _deconv_up_ms(False),
          ("after:score",), ("conv_transpose2d|Conv2DTranspose|Conv2dTranspose",),
          inputs={"x": uniform(2, 3, 5, 5)}, fails_with="error",
          cause_pattern=r"\bConv2DTranspose\b|\bConv2dTranspose\b|\bConv2DBackpropInput\b"),
    entry("h21a_dcnv2_torchvision_interleaved_offsets_passed_to_ops_deformable_conv2d", F21, "deformable_conv2d",
          dcn_torch, _dcn_ms(False), _dcn_ms(True), ("dcn",), ("offsets|layout|interleaved",),
          inputs={"x": uniform(2, 2, 5, 5)},
          cause_pattern=r"\boffsets?\b[^.]*\b(layout|order|interleav\w*|x[- ]offsets?|dx|dy)\b"),
    entry("h21a_vnet_multiclass_dice_loss_builtin_softmax_activation_on_nchw_logits", F21, "probe:nn.MultiClassDiceLoss",
          dice_torch, _dice_ms(True), _dice_ms(False), ("loss",), ("activation|softmax|axis",),
          inputs={"x": uniform(2, 3, 4, 4), "onehot": given(DICE_ONEHOT)},
          cause_pattern=r"\bactivation\b[^.]*\b(None|axis|dim|channel|class(es)?)\b|\bsoftmax\b[^.]*\b(axis|dim)\b[^.]*\b1\b"),
    entry("h21a_functional_roi_align_aligned_true_as_roialign_roi_end_mode_1", F21, "roi_align",
          aligned_roi_torch, _aligned_roi_ms(False), _aligned_roi_ms(True), ("after:conv",),
          ("aligned|roi_end_mode|half pixel",), inputs={"x": uniform(2, 2, 8, 8)},
          cause_pattern=r"\b0\.5\b[^.]*\b(rois?|box(es)?|coordinates?|offset|shift\w*|pixels?)\b"
                        r"|\b(shift\w*|offset|subtract\w*)\b[^.]*\b0\.5\b|\bhalf[- ]pixel\b"),
    entry("h21a_functional_nms_with_mask_selected_mask_in_score_order_read_as_box_order", F21, "nms",
          nms_torch, _nms_ms(False), _nms_ms(True), ("after:score",), ("selected_mask|sorted|order",),
          inputs={"x": uniform(8, 4)},
          cause_pattern=r"\bselected_mask\b[^.]*\b(sort\w*|order\w*)\b|\b(sort\w*|order\w*)\b[^.]*\bselected_mask\b"
                        r"|\bNMSWithMask\b[^.]*\b(sort\w*|order\w*)\b"),
]
