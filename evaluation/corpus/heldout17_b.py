"""Held-out set 17, half b: detection / segmentation / OCR model blocks and a few single APIs (blind)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, integers, uniform

PORT = "h17-port"
ONE = "h17"


# ---------------------------------------------------------------- shared helpers (torch side / MindSpore side)

def _roi_align_torch(feat, rois, out_hw, scale, ratio):
    """torchvision.ops.roi_align(aligned=False, sampling_ratio=ratio), written out with gathers."""
    import torch

    _, C, H, W = feat.shape
    PH, PW = out_hw
    K = rois.shape[0]
    b = rois[:, 0].long()
    x1 = rois[:, 1] * scale
    y1 = rois[:, 2] * scale
    rw = (rois[:, 3] * scale - x1).clamp(min=1.0)
    rh = (rois[:, 4] * scale - y1).clamp(min=1.0)
    g = (torch.arange(ratio, dtype=feat.dtype) + 0.5) / ratio
    ys = (y1[:, None, None] + (torch.arange(PH, dtype=feat.dtype)[None, :, None] + g[None, None, :])
          * (rh / PH)[:, None, None]).reshape(K, PH * ratio)
    xs = (x1[:, None, None] + (torch.arange(PW, dtype=feat.dtype)[None, :, None] + g[None, None, :])
          * (rw / PW)[:, None, None]).reshape(K, PW * ratio)
    yy = ys[:, :, None].expand(K, PH * ratio, PW * ratio)
    xx = xs[:, None, :].expand(K, PH * ratio, PW * ratio)
    valid = ((yy >= -1.0) & (yy <= H) & (xx >= -1.0) & (xx <= W)).to(feat.dtype)
    yy = yy.clamp(min=0.0)
    xx = xx.clamp(min=0.0)
    y0 = yy.floor().clamp(max=H - 1)
    x0 = xx.floor().clamp(max=W - 1)
    yy = torch.where(y0 >= H - 1, y0, yy)
    xx = torch.where(x0 >= W - 1, x0, xx)
    y1i = (y0 + 1).clamp(max=H - 1)
    x1i = (x0 + 1).clamp(max=W - 1)
    ly, lx = yy - y0, xx - x0
    hy, hx = 1 - ly, 1 - lx
    flat = feat[b].reshape(K, C, H * W)

    def at(yi, xi):
        idx = (yi.long() * W + xi.long()).reshape(K, 1, -1).expand(K, C, -1)
        return flat.gather(2, idx).reshape(K, C, PH * ratio, PW * ratio)

    v = ((hy * hx)[:, None] * at(y0, x0) + (hy * lx)[:, None] * at(y0, x1i)
         + (ly * hx)[:, None] * at(y1i, x0) + (ly * lx)[:, None] * at(y1i, x1i))
    v = v * valid[:, None]
    return v.reshape(K, C, PH, ratio, PW, ratio).mean(dim=(3, 5))


def _roi_align_ms(feat, rois, out_hw, scale, ratio):
    """The same RoIAlign in mindspore.ops (differentiable through gathers)."""
    import mindspore as ms
    from mindspore import ops

    _, C, H, W = feat.shape
    PH, PW = out_hw
    K = rois.shape[0]
    b = rois[:, 0].astype(ms.int32)
    x1 = rois[:, 1] * scale
    y1 = rois[:, 2] * scale
    rw = ops.clamp(rois[:, 3] * scale - x1, min=1.0)
    rh = ops.clamp(rois[:, 4] * scale - y1, min=1.0)
    g = (ops.arange(ratio).astype(feat.dtype) + 0.5) / ratio
    ys = (y1[:, None, None] + (ops.arange(PH).astype(feat.dtype)[None, :, None] + g[None, None, :])
          * (rh / PH)[:, None, None]).reshape(K, PH * ratio)
    xs = (x1[:, None, None] + (ops.arange(PW).astype(feat.dtype)[None, :, None] + g[None, None, :])
          * (rw / PW)[:, None, None]).reshape(K, PW * ratio)
    yy = ops.broadcast_to(ys[:, :, None], (K, PH * ratio, PW * ratio))
    xx = ops.broadcast_to(xs[:, None, :], (K, PH * ratio, PW * ratio))
    valid = ((yy >= -1.0) & (yy <= H) & (xx >= -1.0) & (xx <= W)).astype(feat.dtype)
    yy = ops.clamp(yy, min=0.0)
    xx = ops.clamp(xx, min=0.0)
    y0 = ops.clamp(ops.floor(yy), max=H - 1)
    x0 = ops.clamp(ops.floor(xx), max=W - 1)
    yy = ops.where(y0 >= H - 1, y0, yy)
    xx = ops.where(x0 >= W - 1, x0, xx)
    y1i = ops.clamp(y0 + 1, max=H - 1)
    x1i = ops.clamp(x0 + 1, max=W - 1)
    ly, lx = yy - y0, xx - x0
    hy, hx = 1 - ly, 1 - lx
    flat = ops.gather(feat, b, 0).reshape(K, C, H * W)

    def at(yi, xi):
        idx = (yi.astype(ms.int32) * W + xi.astype(ms.int32)).reshape(K, 1, -1)
        idx = ops.broadcast_to(idx, (K, C, idx.shape[2]))
        return ops.gather_elements(flat, 2, idx).reshape(K, C, PH * ratio, PW * ratio)

    v = ((hy * hx)[:, None] * at(y0, x0) + (hy * lx)[:, None] * at(y0, x1i)
         + (ly * hx)[:, None] * at(y1i, x0) + (ly * lx)[:, None] * at(y1i, x1i))
    v = v * valid[:, None]
    return v.reshape(K, C, PH, ratio, PW, ratio).mean(axis=(3, 5))


_ROIS = [[0, 1.0, 1.0, 12.0, 9.0], [1, 2.0, 0.5, 14.0, 15.0], [0, 6.0, 4.0, 9.5, 13.0]]


# ---------------------------------------------------------------- 1. Faster R-CNN box head on RoIAlign

def t_box_head():
    import torch

    class BoxHead(torch.nn.Module):
        # torchvision MultiScaleRoIAlign(sampling_ratio=2, aligned=False) on one level, then TwoMLPHead fc6
        def __init__(self):
            super().__init__()
            self.fc6 = torch.nn.Linear(3 * 2 * 2, 8)

        def forward(self, feat, rois):
            x = _roi_align_torch(feat, rois, (2, 2), 0.5, 2)
            return torch.relu(self.fc6(x.flatten(1)))
    return BoxHead()


def m_box_head(roi_end_mode):
    import mindspore.nn as nn
    from mindspore import ops

    class BoxHead(nn.Cell):
        def __init__(self):
            super().__init__()
            if roi_end_mode is None:
                self.roi_align = ops.ROIAlign(2, 2, 0.5, 2)
            else:
                self.roi_align = ops.ROIAlign(2, 2, 0.5, 2, roi_end_mode)
            self.fc6 = nn.Dense(3 * 2 * 2, 8)

        def construct(self, feat, rois):
            x = self.roi_align(feat, rois)
            return ops.relu(self.fc6(x.reshape(x.shape[0], -1)))
    return BoxHead()


# ---------------------------------------------------------------- 2. CRNN CTC head

def t_crnn_ctc():
    import torch

    class CTCHead(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 5)

        def forward(self, feats, targets, input_lengths, target_lengths):
            log_probs = torch.log_softmax(self.fc(feats), dim=2)  # (T, N, C)
            return torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
                                                reduction="mean")
    return CTCHead()


def m_crnn_ctc(take_loss):
    import mindspore.nn as nn
    from mindspore import ops

    class CTCHead(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 5)

        def construct(self, feats, targets, input_lengths, target_lengths):
            log_probs = ops.log_softmax(self.fc(feats), axis=2)
            out = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean")
            return out[0] if take_loss else out
    return CTCHead()


# ---------------------------------------------------------------- 3. ViTDet block MLP

def t_vitdet_mlp():
    import torch

    class Mlp(torch.nn.Module):
        # detectron2 ViTDet Block: x + mlp(norm2(x)), timm Mlp with act_layer=nn.GELU (exact erf)
        def __init__(self):
            super().__init__()
            self.norm2 = torch.nn.LayerNorm(8, eps=1e-6)
            self.fc1 = torch.nn.Linear(8, 16)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(16, 8)

        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm2(x))))
    return Mlp()


def m_vitdet_mlp(exact):
    import mindspore.nn as nn

    class Mlp(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm2 = nn.LayerNorm((8,), epsilon=1e-6)
            self.fc1 = nn.Dense(8, 16)
            self.act = nn.GELU(approximate=False) if exact else nn.GELU()
            self.fc2 = nn.Dense(16, 8)

        def construct(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm2(x))))
    return Mlp()


# ---------------------------------------------------------------- 4. RetinaNet FPN extra levels P6/P7

def t_retina_p6p7():
    import torch

    class LastLevelP6P7(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.p6 = torch.nn.Conv2d(4, 4, 3, stride=2, padding=1)
            self.p7 = torch.nn.Conv2d(4, 4, 3, stride=2, padding=1)

        def forward(self, c5):
            p6 = self.p6(c5)
            p7 = self.p7(torch.relu(p6))
            return p6, p7
    return LastLevelP6P7()


def m_retina_p6p7(explicit_pad):
    import mindspore.nn as nn
    from mindspore import ops

    def conv():
        if explicit_pad:
            return nn.Conv2d(4, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        return nn.Conv2d(4, 4, 3, stride=2, has_bias=True)

    class LastLevelP6P7(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p6 = conv()
            self.p7 = conv()

        def construct(self, c5):
            p6 = self.p6(c5)
            return p6, self.p7(ops.relu(p6))
    return LastLevelP6P7()


# ---------------------------------------------------------------- 5. SegFormer efficient self-attention: spatial reduction

def t_segformer_sr():
    import torch

    class SpatialReduction(torch.nn.Module):
        # mmseg/HF SegFormer: sr conv (kernel=stride=sr_ratio) then LayerNorm(eps=1e-6) on the reduced tokens
        def __init__(self):
            super().__init__()
            self.sr = torch.nn.Conv2d(8, 8, 2, stride=2)
            self.norm = torch.nn.LayerNorm(8, eps=1e-6)
            self.kv = torch.nn.Linear(8, 16)

        def forward(self, x):
            b, n, c = x.shape
            y = x.transpose(1, 2).reshape(b, c, 4, 4)
            y = self.sr(y).reshape(b, c, -1).transpose(1, 2)
            return self.kv(self.norm(y))
    return SpatialReduction()


def m_segformer_sr(eps):
    import mindspore.nn as nn
    from mindspore import ops

    class SpatialReduction(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sr = nn.Conv2d(8, 8, 2, stride=2, has_bias=True)
            self.norm = nn.LayerNorm((8,)) if eps is None else nn.LayerNorm((8,), epsilon=eps)
            self.kv = nn.Dense(8, 16)

        def construct(self, x):
            b, n, c = x.shape
            y = ops.transpose(x, (0, 2, 1)).reshape(b, c, 4, 4)
            y = ops.transpose(self.sr(y).reshape(b, c, -1), (0, 2, 1))
            return self.kv(self.norm(y))
    return SpatialReduction()


# ---------------------------------------------------------------- 6. SegFormer Mix-FFN depthwise conv

def t_mixffn():
    import torch

    class MixFFN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.dwconv = torch.nn.Conv2d(8, 8, 3, 1, 1, bias=True, groups=8)
            self.fc2 = torch.nn.Linear(8, 4)

        def forward(self, x):
            b, n, _ = x.shape
            y = self.fc1(x).transpose(1, 2).reshape(b, 8, 4, 4)
            y = self.dwconv(y).flatten(2).transpose(1, 2)
            return self.fc2(torch.nn.functional.gelu(y))
    return MixFFN()


def m_mixffn(has_bias):
    import mindspore.nn as nn
    from mindspore import ops

    class MixFFN(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            if has_bias:
                self.dwconv = nn.Conv2d(8, 8, 3, 1, pad_mode="pad", padding=1, group=8, has_bias=True)
            else:
                self.dwconv = nn.Conv2d(8, 8, 3, 1, pad_mode="pad", padding=1, group=8)
            self.fc2 = nn.Dense(8, 4)

        def construct(self, x):
            b, n, _ = x.shape
            y = ops.transpose(self.fc1(x), (0, 2, 1)).reshape(b, 8, 4, 4)
            y = ops.transpose(self.dwconv(y).reshape(b, 8, -1), (0, 2, 1))
            return self.fc2(ops.gelu(y, approximate="none"))
    return MixFFN()


# ---------------------------------------------------------------- 7. DeepLabv3 ASPP image-pooling branch

def t_aspp_pool():
    import torch

    class ASPPPooling(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 1, bias=False)
            self.bn = torch.nn.BatchNorm2d(4)
            self.b0 = torch.nn.Conv2d(4, 4, 1, bias=False)
            self.project = torch.nn.Conv2d(8, 4, 1, bias=False)

        def forward(self, x):
            size = x.shape[-2:]
            p = torch.relu(self.bn(self.conv(x.mean((2, 3), keepdim=True))))
            p = torch.nn.functional.interpolate(p, size=size, mode="bilinear", align_corners=False)
            return self.project(torch.cat([self.b0(x), p], dim=1))
    return ASPPPooling()


def m_aspp_pool(keep_dims):
    import mindspore.nn as nn
    from mindspore import ops

    class ASPPPooling(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 1)
            self.bn = nn.BatchNorm2d(4, momentum=0.9)
            self.b0 = nn.Conv2d(4, 4, 1)
            self.project = nn.Conv2d(8, 4, 1)

        def construct(self, x):
            size = x.shape[-2:]
            if keep_dims:
                m = ops.mean(x, (2, 3), keep_dims=True)
            else:
                m = ops.mean(x, (2, 3))
            p = ops.relu(self.bn(self.conv(m)))
            p = ops.interpolate(p, size=size, mode="bilinear", align_corners=False)
            return self.project(ops.cat([self.b0(x), p], axis=1))
    return ASPPPooling()


# ---------------------------------------------------------------- 8. SVTR (OCR) mixing block pre-norm

def t_svtr_block():
    import torch

    class MixingBlock(torch.nn.Module):
        # mmocr/PaddleOCR SVTR: norm_layer=partial(nn.LayerNorm, eps=1e-6), then a local mixer and an MLP
        def __init__(self):
            super().__init__()
            self.norm1 = torch.nn.LayerNorm(6, eps=1e-6)
            self.mixer = torch.nn.Linear(6, 6)
            self.norm2 = torch.nn.LayerNorm(6, eps=1e-6)
            self.mlp = torch.nn.Linear(6, 6)

        def forward(self, x):
            x = x + self.mixer(self.norm1(x))
            return x + self.mlp(self.norm2(x))
    return MixingBlock()


def m_svtr_block(eps):
    import mindspore.nn as nn

    def ln():
        return nn.LayerNorm((6,)) if eps is None else nn.LayerNorm((6,), epsilon=eps)

    class MixingBlock(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm1 = ln()
            self.mixer = nn.Dense(6, 6)
            self.norm2 = ln()
            self.mlp = nn.Dense(6, 6)

        def construct(self, x):
            x = x + self.mixer(self.norm1(x))
            return x + self.mlp(self.norm2(x))
    return MixingBlock()


# ---------------------------------------------------------------- 9. (gradient) Hardswish at +3

def t_hswish():
    import torch

    class Act(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.Hardswish()
            self.fc = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc(self.act(x))
    return Act()


def m_hswish(cell):
    import mindspore.nn as nn
    from mindspore import ops

    class HardswishExact(nn.Cell):
        def construct(self, x):
            mid = x * (x + 3.0) / 6.0
            return ops.where(x >= 3.0, x, ops.where(x <= -3.0, ops.zeros_like(x), mid))

    class Act(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.HSwish() if cell else HardswishExact()
            self.fc = nn.Dense(6, 3)

        def construct(self, x):
            return self.fc(self.act(x))
    return Act()


# ---------------------------------------------------------------- 10. (gradient) RoIAlign backward to the features

def t_roi_grad():
    import torch

    class RoIFeat(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3 * 2 * 2, 4)

        def forward(self, feat, rois):
            return self.fc(_roi_align_torch(feat, rois, (2, 2), 0.5, 2).flatten(1))
    return RoIFeat()


def m_roi_grad(primitive):
    import mindspore.nn as nn
    from mindspore import ops

    class RoIFeat(nn.Cell):
        def __init__(self):
            super().__init__()
            self.roi = ops.ROIAlign(2, 2, 0.5, 2, 0) if primitive else None
            self.fc = nn.Dense(3 * 2 * 2, 4)

        def construct(self, feat, rois):
            x = self.roi(feat, rois) if primitive else _roi_align_ms(feat, rois, (2, 2), 0.5, 2)
            return self.fc(x.reshape(x.shape[0], -1))
    return RoIFeat()


# ---------------------------------------------------------------- 11. (functional) grid_sample nearest

def _half_grid():
    # affine_grid(identity) for an 8x8 -> 4x4 resample: every sample falls on a pixel boundary (k + 0.5)
    v = [(2 * j + 1) / 4 - 1 for j in range(4)]
    return [[[[v[j], v[i]] for j in range(4)] for i in range(4)]]


def t_grid_nearest():
    import torch

    class Resample(torch.nn.Module):
        def forward(self, x, grid):
            return torch.nn.functional.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=False)
    return Resample()


def m_grid_nearest(builtin):
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops

    class Resample(nn.Cell):
        def construct(self, x, grid):
            if builtin:
                return ops.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=False)
            n, c, h, w = x.shape
            _, oh, ow, _ = grid.shape
            ix = ops.round(((grid[..., 0] + 1) * w - 1) / 2)  # round half to even, as torch's nearbyint
            iy = ops.round(((grid[..., 1] + 1) * h - 1) / 2)
            valid = ((ix >= 0) & (ix <= w - 1) & (iy >= 0) & (iy <= h - 1)).astype(x.dtype)
            idx = (ops.clamp(iy, 0, h - 1) * w + ops.clamp(ix, 0, w - 1)).astype(ms.int32).reshape(n, 1, -1)
            idx = ops.broadcast_to(idx, (n, c, oh * ow))
            out = ops.gather_elements(x.reshape(n, c, h * w), 2, idx).reshape(n, c, oh, ow)
            return out * valid[:, None]
    return Resample()


# ---------------------------------------------------------------- 12. (functional) bincount dtype

def t_bincount():
    import torch

    class ClassHistogram(torch.nn.Module):
        def forward(self, labels):
            return torch.bincount(labels, minlength=6)
    return ClassHistogram()


def m_bincount(cast):
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops

    class ClassHistogram(nn.Cell):
        def construct(self, labels):
            counts = ops.bincount(labels, minlength=6)
            return counts.astype(ms.int64) if cast else counts
    return ClassHistogram()


# ---------------------------------------------------------------- 13. (error) soft margin loss

def t_soft_margin():
    import torch

    class Head(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 3)

        def forward(self, x, y):
            return torch.nn.functional.soft_margin_loss(self.fc(x), y)
    return Head()


def m_soft_margin(builtin):
    import mindspore.nn as nn
    from mindspore import ops

    class Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(5, 3)

        def construct(self, x, y):
            z = self.fc(x)
            if builtin:
                return ops.soft_margin_loss(z, y)
            return ops.softplus(-y * z).mean()
    return Head()


_SIGNS = (np.where(np.arange(12).reshape(4, 3) % 3 == 1, -1.0, 1.0)).astype(np.float32)

ENTRIES = [
    entry("h17b_port_faster_rcnn_box_head_roialign_default_roi_end_mode", PORT,
          "model:torchvision faster_rcnn MultiScaleRoIAlign + TwoMLPHead vs mindspore-ai/models faster_rcnn "
          "(ops.ROIAlign)", t_box_head, lambda: m_box_head(None), lambda: m_box_head(0),
          ("<root>",), ("roialign|roi_end_mode|aligned",),
          inputs={"feat": uniform(2, 3, 8, 8), "rois": given(_ROIS, dtype="float32")},
          cause_pattern=r"\broi_end_mode\b[^.]*\b0\b|\broi_end_mode\s*=\s*0\b|\bROIAlign\b[^.]*\broi_end_mode\b"),
    entry("h17b_port_crnn_ctc_head_ops_ctc_loss_returns_tuple", PORT,
          "model:mmocr CRNN CTCModuleLoss vs mindocr CTCLoss (mindspore.ops.ctc_loss)", t_crnn_ctc,
          lambda: m_crnn_ctc(False), lambda: m_crnn_ctc(True), ("<root>",), ("ctc_loss|tuple|log_alpha",),
          inputs={"feats": uniform(8, 2, 6), "targets": given([[1, 2, 3], [2, 2, 0]], dtype="int64"),
                  "input_lengths": given([8, 7], dtype="int64"), "target_lengths": given([3, 2], dtype="int64")},
          fails_with="tree",
          cause_pattern=r"\bctc_loss\b[^.]*(\btuple\b|\blog_alpha\b|\btwo outputs\b|\bfirst (element|output|item)\b|\[0\])|\blog_alpha\b"),
    entry("h17b_port_vitdet_block_mlp_gelu_cell_default_approximate", PORT,
          "model:detectron2 ViTDet Block (timm Mlp, nn.GELU) vs a mindspore ViTDet port (nn.GELU approximate)",
          t_vitdet_mlp, lambda: m_vitdet_mlp(False), lambda: m_vitdet_mlp(True), ("act",),
          ("gelu|approximate|tanh",), inputs={"x": uniform(2, 6, 8, low=-2.0, high=2.0)},
          cause_pattern=r"\bapproximate\b[^.]*\b(false|none)\b|\bgelu\b[^.]*\b(tanh|erf|exact)\b|\bapproximate\s*=\s*(false|['\"]none['\"])"),
    entry("h17b_port_retinanet_fpn_p6p7_stride2_conv_default_same_pad_mode", PORT,
          "model:torchvision LastLevelP6P7 vs mindspore-ai/models retinanet (nn.Conv2d pad_mode)", t_retina_p6p7,
          lambda: m_retina_p6p7(False), lambda: m_retina_p6p7(True), ("p6",), ("pad_mode|same|padding",),
          inputs={"c5": uniform(1, 4, 8, 8)},
          cause_pattern=r"\bpad_mode\b[^.]*\bpad\b[^.]*\bpadding\b|\bpad_mode\s*=\s*['\"]pad['\"]|\bpad_mode\b[^.]*\bsame\b"),
    entry("h17b_port_segformer_spatial_reduction_layernorm_default_epsilon", PORT,
          "model:mmseg/HF SegFormer EfficientSelfAttention sr+norm vs mindcv/mindseg segformer (nn.LayerNorm)",
          t_segformer_sr, lambda: m_segformer_sr(None), lambda: m_segformer_sr(1e-6), ("norm",),
          ("epsilon|eps|1e-6",), inputs={"x": uniform(2, 16, 8, low=-0.003, high=0.003)},
          cause_pattern=r"\bepsilon\b[^.]*\b1e-0?6\b|\beps\b[^.]*\b1e-0?6\b|\b1e-0?6\b[^.]*\b(epsilon|eps)\b"),
    entry("h17b_port_segformer_mixffn_dwconv_has_bias_default", PORT,
          "model:mmseg MixFFN vs a mindspore SegFormer port (nn.Conv2d has_bias default False)", t_mixffn,
          lambda: m_mixffn(False), lambda: m_mixffn(True), ("dwconv",), ("has_bias|bias",),
          inputs={"x": uniform(2, 16, 4)}, fails_with="structure",
          cause_pattern=r"\bhas_bias\b[^.]*\btrue\b|\bhas_bias\s*=\s*true\b|\bbias\b[^.]*\b(missing|dropped|false|default)\b"),
    entry("h17b_port_deeplabv3_aspp_pooling_ops_mean_keep_dims_default", PORT,
          "model:torchvision deeplabv3 ASPPPooling vs mindspore-ai/models deeplabv3 (ops.mean keep_dims)",
          t_aspp_pool, lambda: m_aspp_pool(False), lambda: m_aspp_pool(True), ("<root>",),
          ("keep_dims|keepdim|mean",), inputs={"x": uniform(1, 4, 5, 5)}, fails_with="error",
          cause_pattern=r"\bkeep_?dims?\b[^.]*\btrue\b|\bkeep_?dims?\s*=\s*true\b"),
    entry("h17b_port_svtr_mixing_block_layernorm_default_epsilon", PORT,
          "model:mmocr SVTR MixingBlock vs mindocr svtr (nn.LayerNorm epsilon default)", t_svtr_block,
          lambda: m_svtr_block(None), lambda: m_svtr_block(1e-6), ("norm1",), ("epsilon|eps|1e-6",),
          inputs={"x": uniform(2, 5, 6, low=-0.002, high=0.002)},
          cause_pattern=r"\bepsilon\b[^.]*\b1e-0?6\b|\beps\b[^.]*\b1e-0?6\b|\b1e-0?6\b[^.]*\b(epsilon|eps)\b"),
    entry("h17b_hswish_gradient_at_plus_three", ONE, "probe:nn.HSwish gradient at x=3 (1.5) vs torch Hardswish (1.0)",
          t_hswish, lambda: m_hswish(True), lambda: m_hswish(False), ("act",), ("hswish|hardswish|gradient",),
          inputs={"x": given([[3.0, 0.5, -1.0, 3.0, 2.0, -0.5], [1.0, 3.0, -2.0, 0.25, 3.0, 4.0]], dtype="float32")},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bh(ard)?_?swish\b[^.]*\b(gradient|grad|backward|derivative)\b|\b(gradient|grad|backward|derivative)\b[^.]*\bh(ard)?_?swish\b"),
    entry("h17b_roialign_backward_to_features", ONE,
          "probe:ops.ROIAlign(roi_end_mode=0) gradient to the feature map vs torchvision roi_align backward",
          t_roi_grad, lambda: m_roi_grad(True), lambda: m_roi_grad(False), ("<root>",),
          ("roialign|gradient|backward",),
          inputs={"feat": uniform(2, 3, 8, 8), "rois": given(_ROIS, dtype="float32")},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\broi_?align\b[^.]*\b(gradient|grad|backward|bprop)\b|\b(gradient|grad|backward|bprop)\b[^.]*\broi_?align\b"),
    entry("h17b_functional_grid_sample_nearest_half_pixel_rounding", ONE,
          "probe:ops.grid_sample(mode='nearest') rounds k+0.5 sample positions up; torch rounds half to even",
          t_grid_nearest, lambda: m_grid_nearest(True), lambda: m_grid_nearest(False), ("<root>",),
          ("grid_sample|nearest|round",),
          inputs={"x": uniform(1, 2, 8, 8), "grid": given(_half_grid(), dtype="float32")},
          cause_pattern=r"\bgrid_sample\b[^.]*\b(round|rounding|half|nearbyint|ties?)\b|\b(round|rounding|nearbyint)\b[^.]*\bgrid_sample\b"),
    entry("h17b_functional_bincount_float32_counts", ONE, "probe:ops.bincount returns float32 counts (torch int64)",
          t_bincount, lambda: m_bincount(False), lambda: m_bincount(True), ("<root>",), ("bincount|float32|int64",),
          inputs={"labels": integers(20, low=0, high=6)}, fails_with="dtype",
          cause_pattern=r"\bbincount\b[^.]*\b(float32|int64)\b|\bfloat32\b[^.]*\bbincount\b"),
    entry("h17b_soft_margin_loss_no_cpu_kernel_raises", ONE,
          "probe:ops.soft_margin_loss has no CPU kernel (SoftMarginLoss unregistered)", t_soft_margin,
          lambda: m_soft_margin(True), lambda: m_soft_margin(False), ("after:fc",),
          ("soft_margin_loss|softmarginloss|kernel|cpu",),
          inputs={"x": uniform(4, 5), "y": given(_SIGNS.tolist(), dtype="float32")}, fails_with="error",
          cause_pattern=r"\bsoft_?margin_?loss\b[^.]*\b(cpu|kernel|unregistered|softplus|log1p|exp)\b"),
]
