"""Held-out set 21, half a: functional ops in forward/construct and gradient-only entries (blind)."""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from evaluation.corpus.heldout21_a import F21, _ms, _torch, _torch_roi_align
from migcheck.specs import uniform

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
    entry("h21a_functional_centernet_peak_rows_ops_div_rounding_mode_dropped", F21, "probe:ops.div rounding_mode",
          centernet_torch, _centernet_ms(False), _centernet_ms(True), ("after:hm",), ("rounding_mode|floor",),
          inputs={"x": uniform(2, 3, 5, 6)},
          cause_pattern=r"\brounding_mode\b[^.]*\bfloor\b|\bfloor_?div(ide)?\b|//"),
    entry("h21a_ciou_loss_aspect_alpha_no_grad_without_stop_gradient", F21, "probe:torch.no_grad vs ops.stop_gradient",
          ciou_torch, _ciou_ms(False), _ciou_ms(True), ("<root>",), ("stop_gradient|no_grad|alpha",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bno_grad\b|\bdetach\b"),
    entry("h21a_functional_aux_seg_logits_area_downsample_as_ops_resizearea", F21,
          "probe:ops.ResizeArea vs interpolate area",
          area_torch, _area_ms(True), _area_ms(False), ("after:conv",), ("ResizeArea|area|adaptive_avg_pool2d",),
          inputs={"x": uniform(2, 3, 10, 10)},
          cause_pattern=r"\binterpolate\b[^.]*\barea\b|\badaptive_?avg_?pool(2d)?\b"
                        r"|\bResizeArea\b[^.]*\b(adaptive|average[ -]pool)"),
    entry("h21a_yolo_objectness_iou_target_detach_without_stop_gradient", F21,
          "probe:Tensor.detach vs ops.stop_gradient",
          obj_torch, _obj_ms(False), _obj_ms(True), ("<root>",), ("stop_gradient|detach",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bdetach\b"),
    entry("h21a_functional_fcn_bilinear_deconv_upsample_ops_conv_transpose2d_raises", F21,
          "probe:ops.conv_transpose2d on CPU", deconv_up_torch, _deconv_up_ms(True), _deconv_up_ms(False),
          ("after:score",), ("conv_transpose2d|Conv2DTranspose|Conv2dTranspose",),
          inputs={"x": uniform(2, 3, 5, 5)}, fails_with="error",
          cause_pattern=r"\bConv2DTranspose\b|\bConv2dTranspose\b|\bConv2DBackpropInput\b"),
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
