"""Held-out set 21, half a: small detection model blocks, one API mistake each (blind)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from evaluation.corpus.heldout21_a import P21, _ms, _torch, _torch_roi_align
from migcheck.specs import uniform

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


ENTRIES = [
    entry("h21a_port_mask_rcnn_mask_head_roialign_sampling_ratio_1_left_at_sample_num_default", P21, "ROIAlign",
          mask_head_torch, _mask_head_ms(None), _mask_head_ms(1), ("pool",), ("sample_num|sampling_ratio",),
          inputs={"x": uniform(2, 3, 8, 8)},
          cause_pattern=r"\bsample_num\b[^.]*\b1\b|\bsampling_ratio\b[^.]*\b1\b"),
    entry("h21a_port_centernet_head_topk_decode_ops_div_rounding_mode_dropped", P21, "probe:ops.div rounding_mode",
          centernet_head_torch, _centernet_head_ms(False), _centernet_head_ms(True), ("after:hm",),
          ("rounding_mode|floor",), inputs={"x": uniform(2, 3, 6, 7)},
          cause_pattern=r"\brounding_mode\b[^.]*\bfloor\b|\bfloor_?div(ide)?\b|//"),
]
