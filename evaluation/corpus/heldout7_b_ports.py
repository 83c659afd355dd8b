"""Held-out set 7, half b: small model blocks (family h7-port, names h7b_port_*).

Each block is written small, in my own words, after a public torch original and the style of its public MindSpore
port (mindspore-ai/models, mindyolo, mindnlp, mindcv), with ONE porting mistake that is a nameable API difference.
Written blind (no reading of migcheck's localization, mapping, judging or running code, the bundled cases or the
other corpus entries' causes). MindSpore behaviours were probed on MindSpore 2.10 / torch 2.13 CPU.
"""
from __future__ import annotations

import math

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform
from migcheck.tolerance import Tolerance

ENTRIES = []


# ---------------------------------------------------------------------------------------------------------------
# 1. SqueezeNet Fire module (torchvision squeezenet; mindspore-ai/models squeezenet writes P.Concat(axis=1)).
#    Naive: ops.Concat() -- the primitive's axis defaults to 0, so the two expand branches stack on the batch axis.
# ---------------------------------------------------------------------------------------------------------------
def _fire_torch():
    import torch
    import torch.nn as nn

    class Fire(nn.Module):
        def __init__(self, inplanes=6, squeeze=3, e1=4, e3=4):
            super().__init__()
            self.squeeze = nn.Conv2d(inplanes, squeeze, kernel_size=1)
            self.squeeze_activation = nn.ReLU(inplace=True)
            self.expand1x1 = nn.Conv2d(squeeze, e1, kernel_size=1)
            self.expand1x1_activation = nn.ReLU(inplace=True)
            self.expand3x3 = nn.Conv2d(squeeze, e3, kernel_size=3, padding=1)
            self.expand3x3_activation = nn.ReLU(inplace=True)

        def forward(self, x):
            x = self.squeeze_activation(self.squeeze(x))
            return torch.cat([self.expand1x1_activation(self.expand1x1(x)),
                              self.expand3x3_activation(self.expand3x3(x))], 1)

    return Fire()


def _fire_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class Fire(nn.Cell):
            def __init__(self, inplanes=6, squeeze=3, e1=4, e3=4):
                super().__init__()
                self.squeeze = nn.Conv2d(inplanes, squeeze, kernel_size=1, has_bias=True)
                self.squeeze_activation = nn.ReLU()
                self.expand1x1 = nn.Conv2d(squeeze, e1, kernel_size=1, has_bias=True)
                self.expand1x1_activation = nn.ReLU()
                self.expand3x3 = nn.Conv2d(squeeze, e3, kernel_size=3, pad_mode="pad", padding=1, has_bias=True)
                self.expand3x3_activation = nn.ReLU()
                self.concat = ops.Concat(axis=1) if correct else ops.Concat()

            def construct(self, x):
                x = self.squeeze_activation(self.squeeze(x))
                return self.concat((self.expand1x1_activation(self.expand1x1(x)),
                                    self.expand3x3_activation(self.expand3x3(x))))

        return Fire()
    return make


ENTRIES.append(entry(
    "h7b_port_squeezenet_fire_concat_default_axis0", "h7-port",
    "model:SqueezeNet Fire (torchvision) vs mindspore-ai/models squeezenet (P.Concat(axis=1))",
    _fire_torch, _fire_ms(False), _fire_ms(True), ("after:expand3x3_activation",), ("Concat|axis",),
    inputs={"x": uniform(2, 6, 5, 5)}, fails_with="shape",
    cause_pattern=r"\bConcat\b[^.\n]*\baxis\b[^.\n]*\b[01]\b|\baxis\s*=\s*1\b|\bcat\b[^.\n]*\b(dim|axis)\b[^.\n]*\b1\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 2. Faster R-CNN RPN head + box decoding (torchvision RPNHead + BoxCoder(weights=(1, 1, 1, 1)), boxes clipped to
#    the image). mindspore-ai/models faster_rcnn decodes with ops.BoundingBoxDecode, whose legacy convention
#    measures widths as x2 - x1 + 1 and shifts the corners by 0.5 (and clips to max_shape - 1). Naive: that op for
#    torchvision's decoder; correct: the torchvision arithmetic written with ops.
# ---------------------------------------------------------------------------------------------------------------
_IMG = 32
_FEAT = 4
_SIZES = (12.0, 20.0)


def _anchors() -> np.ndarray:
    stride = _IMG / _FEAT
    out = []
    for i in range(_FEAT):
        for j in range(_FEAT):
            cy, cx = (i + 0.5) * stride, (j + 0.5) * stride
            for s in _SIZES:
                out.append([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2])
    return np.asarray(out, dtype=np.float32)  # (H*W*A, 4), ordered (y, x, anchor) like torchvision


def _rpn_torch():
    import torch
    import torch.nn as nn

    class RPN(nn.Module):
        def __init__(self, c=6, a=len(_SIZES)):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3, padding=1)
            self.cls_logits = nn.Conv2d(c, a, 1)
            self.bbox_pred = nn.Conv2d(c, a * 4, 1)
            self.num_anchors = a
            self.anchors = torch.from_numpy(_anchors())
            self.clamp = math.log(1000.0 / 16)

        def decode(self, rel, anchors):
            widths = anchors[:, 2] - anchors[:, 0]
            heights = anchors[:, 3] - anchors[:, 1]
            ctr_x = anchors[:, 0] + 0.5 * widths
            ctr_y = anchors[:, 1] + 0.5 * heights
            dx, dy, dw, dh = rel.unbind(-1)
            dw = torch.clamp(dw, max=self.clamp)
            dh = torch.clamp(dh, max=self.clamp)
            px = dx * widths + ctr_x
            py = dy * heights + ctr_y
            pw = torch.exp(dw) * widths
            ph = torch.exp(dh) * heights
            boxes = torch.stack([px - 0.5 * pw, py - 0.5 * ph, px + 0.5 * pw, py + 0.5 * ph], -1)
            return boxes.clamp(min=0.0, max=float(_IMG))

        def forward(self, features):
            n = features.shape[0]
            t = torch.relu(self.conv(features))
            objectness = self.cls_logits(t).permute(0, 2, 3, 1).reshape(n, -1)
            deltas = self.bbox_pred(t)
            h, w = deltas.shape[-2:]
            deltas = deltas.view(n, self.num_anchors, 4, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, 4)
            boxes = self.decode(deltas.reshape(-1, 4), self.anchors.repeat(n, 1)).view(n, -1, 4)
            return objectness, boxes

    return RPN()


def _rpn_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import Tensor, ops

        class RPN(nn.Cell):
            def __init__(self, c=6, a=len(_SIZES)):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, pad_mode="pad", padding=1, has_bias=True)
                self.cls_logits = nn.Conv2d(c, a, 1, has_bias=True)
                self.bbox_pred = nn.Conv2d(c, a * 4, 1, has_bias=True)
                self.num_anchors = a
                self.anchors = Tensor(_anchors())
                self.clamp = math.log(1000.0 / 16)
                self.decoder = ops.BoundingBoxDecode(max_shape=(_IMG, _IMG), means=(0.0, 0.0, 0.0, 0.0),
                                                     stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=16 / 1000)

            def decode(self, rel, anchors):
                widths = anchors[:, 2] - anchors[:, 0]
                heights = anchors[:, 3] - anchors[:, 1]
                ctr_x = anchors[:, 0] + 0.5 * widths
                ctr_y = anchors[:, 1] + 0.5 * heights
                dw = ops.clamp(rel[:, 2], max=self.clamp)
                dh = ops.clamp(rel[:, 3], max=self.clamp)
                px = rel[:, 0] * widths + ctr_x
                py = rel[:, 1] * heights + ctr_y
                pw = ops.exp(dw) * widths
                ph = ops.exp(dh) * heights
                boxes = ops.stack([px - 0.5 * pw, py - 0.5 * ph, px + 0.5 * pw, py + 0.5 * ph], -1)
                return ops.clamp(boxes, 0.0, float(_IMG))

            def construct(self, features):
                n = features.shape[0]
                t = ops.relu(self.conv(features))
                objectness = self.cls_logits(t).permute(0, 2, 3, 1).reshape(n, -1)
                deltas = self.bbox_pred(t)
                h, w = deltas.shape[-2:]
                deltas = deltas.view(n, self.num_anchors, 4, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, 4)
                anchors = ops.tile(self.anchors, (n, 1))
                if correct:
                    boxes = self.decode(deltas.reshape(-1, 4), anchors)
                else:
                    boxes = self.decoder(anchors, deltas.reshape(-1, 4))
                return objectness, boxes.view(n, -1, 4)

        return RPN()
    return make


ENTRIES.append(entry(
    "h7b_port_fasterrcnn_rpn_bounding_box_decode_legacy_plus_one", "h7-port",
    "model:torchvision RPNHead+BoxCoder vs mindspore-ai/models faster_rcnn (ops.BoundingBoxDecode)",
    _rpn_torch, _rpn_ms(False), _rpn_ms(True), ("after:bbox_pred",), ("BoundingBoxDecode",),
    inputs={"features": uniform(2, 6, _FEAT, _FEAT)},
    # MindSpore 2.10's CPU exp is up to ~3.6e-6 relative off (torch: 6e-8), which the default error budget flags on
    # the correct decode (pixel boxes up to 32); the legacy decode is off by about a pixel.
    tolerance=Tolerance(rtol=1e-4, atol=1e-4),
    cause_pattern=r"\bBoundingBoxDecode\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 3. YOLOX decoupled head (stem BaseConv: Conv2d(bias=False) + BatchNorm2d(eps=1e-3, momentum=0.03) + SiLU, then
#    the 1x1 cls/reg/obj predictions). mindyolo writes BatchNorm2d(momentum=0.97, eps=1e-3): MindSpore's momentum
#    weights the running statistic, torch's the new batch. Naive: torch's momentum=0.03 copied. Train check.
# ---------------------------------------------------------------------------------------------------------------
def _yolox_torch():
    import torch
    import torch.nn as nn

    class BaseConv(nn.Module):
        def __init__(self, cin, cout, k=1, s=1):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, s, padding=(k - 1) // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout, eps=1e-3, momentum=0.03)
            self.act = nn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Head(nn.Module):
        def __init__(self, cin=6, hidden=8, num_classes=3):
            super().__init__()
            self.stem = BaseConv(cin, hidden, 1)
            self.cls_pred = nn.Conv2d(hidden, num_classes, 1)
            self.reg_pred = nn.Conv2d(hidden, 4, 1)
            self.obj_pred = nn.Conv2d(hidden, 1, 1)

        def forward(self, x):
            x = self.stem(x)
            return torch.cat([self.reg_pred(x), self.obj_pred(x), self.cls_pred(x)], 1)

    return Head()


def _yolox_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class ConvNormAct(nn.Cell):
            def __init__(self, cin, cout, k=1, s=1):
                super().__init__()
                self.conv = nn.Conv2d(cin, cout, k, s, pad_mode="pad", padding=(k - 1) // 2, has_bias=False)
                self.bn = nn.BatchNorm2d(cout, eps=1e-3, momentum=0.97 if correct else 0.03)
                self.act = nn.SiLU()

            def construct(self, x):
                return self.act(self.bn(self.conv(x)))

        class Head(nn.Cell):
            def __init__(self, cin=6, hidden=8, num_classes=3):
                super().__init__()
                self.stem = ConvNormAct(cin, hidden, 1)
                self.cls_pred = nn.Conv2d(hidden, num_classes, 1, has_bias=True)
                self.reg_pred = nn.Conv2d(hidden, 4, 1, has_bias=True)
                self.obj_pred = nn.Conv2d(hidden, 1, 1, has_bias=True)

            def construct(self, x):
                x = self.stem(x)
                return ops.concat((self.reg_pred(x), self.obj_pred(x), self.cls_pred(x)), 1)

        return Head()
    return make


ENTRIES.append(entry(
    "h7b_port_yolox_head_stem_bn_momentum_torch_value", "h7-port",
    "model:YOLOX head BaseConv (Megvii YOLOX) vs mindyolo ConvNormAct (BatchNorm2d momentum=0.97)",
    _yolox_torch, _yolox_ms(False), _yolox_ms(True), ("stem.bn",), ("momentum",),
    inputs={"x": uniform(4, 6, 3, 3)}, checks=("train",),
    cause_pattern=r"\bmomentum\b[^.\n]*\b0\.97\b|\b0\.97\b[^.\n]*\bmomentum\b|\bmomentum\b[^.\n]*\b1\s*-\s*0\.03\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 4. PatchTST patching (yuqinie98/PatchTST: ReplicationPad1d((0, stride)) -> z.unfold(dimension=-1, size=patch_len,
#    step=stride) -> W_P Linear(patch_len, d_model) + learnable W_pos). torch's Tensor.unfold cuts sliding windows
#    along one dimension; MindSpore's Tensor.unfold is im2col (nn.Unfold: kernel_size, dilation, padding, stride)
#    and refuses the call. Correct: the windows sliced and stacked.
# ---------------------------------------------------------------------------------------------------------------
_PATCH, _STRIDE, _SEQ = 4, 2, 10


def _patchtst_torch():
    import torch
    import torch.nn as nn

    class PatchEmbed(nn.Module):
        def __init__(self, d_model=6):
            super().__init__()
            self.padding_patch_layer = nn.ReplicationPad1d((0, _STRIDE))
            n = (_SEQ - _PATCH) // _STRIDE + 2
            self.W_P = nn.Linear(_PATCH, d_model)
            self.W_pos = nn.Parameter(torch.zeros(n, d_model))

        def forward(self, z):  # z: (batch, n_vars, seq_len)
            z = self.padding_patch_layer(z)
            z = z.unfold(dimension=-1, size=_PATCH, step=_STRIDE)  # (batch, n_vars, n_patches, patch_len)
            return self.W_P(z) + self.W_pos

    return PatchEmbed()


def _patchtst_ms(correct: bool):
    def make():
        import mindspore
        import mindspore.nn as nn
        from mindspore import Parameter, ops

        class PatchEmbed(nn.Cell):
            def __init__(self, d_model=6):
                super().__init__()
                self.padding_patch_layer = nn.ReplicationPad1d((0, _STRIDE))
                self.n = (_SEQ - _PATCH) // _STRIDE + 2
                self.W_P = nn.Dense(_PATCH, d_model)
                self.W_pos = Parameter(ops.zeros((self.n, d_model), mindspore.float32), name="W_pos")

            def construct(self, z):
                z = self.padding_patch_layer(z)
                if correct:
                    z = ops.stack([z[..., i * _STRIDE:i * _STRIDE + _PATCH] for i in range(self.n)], axis=2)
                else:
                    z = z.unfold(-1, _PATCH, _STRIDE)
                return self.W_P(z) + self.W_pos

        return PatchEmbed()
    return make


ENTRIES.append(entry(
    "h7b_port_patchtst_patching_tensor_unfold_is_im2col", "h7-port",
    "model:PatchTST patching (yuqinie98/PatchTST); probe: MindSpore Tensor.unfold is im2col, not sliding windows",
    _patchtst_torch, _patchtst_ms(False), _patchtst_ms(True), ("after:padding_patch_layer",), ("unfold",),
    inputs={"z": uniform(2, 3, _SEQ)}, fails_with="error",
    cause_pattern=r"\bunfold\b",
))


# ---------------------------------------------------------------------------------------------------------------
# 5. DistilBERT feed-forward + output LayerNorm (huggingface DistilBERT FFN: lin1 -> GELU (exact erf) -> lin2,
#    residual, LayerNorm eps=1e-12). The MindSpore model-zoo BERT style folds the activation into the Dense:
#    nn.Dense(..., activation='gelu') builds nn.GELU() whose approximate defaults to True (the tanh formula).
#    Correct: activation=nn.GELU(approximate=False).
# ---------------------------------------------------------------------------------------------------------------
def _distil_torch():
    import torch.nn as nn

    class FFN(nn.Module):
        def __init__(self, dim=8, hidden=16):
            super().__init__()
            self.lin1 = nn.Linear(dim, hidden)
            self.lin2 = nn.Linear(hidden, dim)
            self.activation = nn.GELU()

        def forward(self, x):
            return self.lin2(self.activation(self.lin1(x)))

    class Block(nn.Module):
        def __init__(self, dim=8):
            super().__init__()
            self.ffn = FFN(dim)
            self.output_layer_norm = nn.LayerNorm(normalized_shape=dim, eps=1e-12)

        def forward(self, sa_output):
            return self.output_layer_norm(self.ffn(sa_output) + sa_output)

    return Block()


def _distil_ms(correct: bool):
    def make():
        import mindspore.nn as nn

        class FFN(nn.Cell):
            def __init__(self, dim=8, hidden=16):
                super().__init__()
                act = nn.GELU(approximate=False) if correct else "gelu"
                self.lin1 = nn.Dense(dim, hidden, activation=act)
                self.lin2 = nn.Dense(hidden, dim)

            def construct(self, x):
                return self.lin2(self.lin1(x))

        class Block(nn.Cell):
            def __init__(self, dim=8):
                super().__init__()
                self.ffn = FFN(dim)
                self.output_layer_norm = nn.LayerNorm((dim,), epsilon=1e-12)

            def construct(self, sa_output):
                return self.output_layer_norm(self.ffn(sa_output) + sa_output)

        return Block()
    return make


ENTRIES.append(entry(
    "h7b_port_distilbert_ffn_dense_activation_gelu_string", "h7-port",
    "model:DistilBERT FFN (huggingface transformers) vs MindSpore model-zoo BERT style nn.Dense(activation='gelu')",
    _distil_torch, _distil_ms(False), _distil_ms(True), ("ffn.activation",), ("GELU|approximate",),
    inputs={"sa_output": uniform(2, 3, 8, low=-3.0, high=3.0)},
    cause_pattern=(r"\bapproximate\b[^.\n]*\b(False|none|erf|exact)\b|\b(exact|erf)\b[^.\n]*\bGELU\b|"
                   r"\bGELU\b[^.\n]*\b(exact|erf|tanh|approximate)\b|\btanh\b[^.\n]*\bGELU\b"),
))


# ---------------------------------------------------------------------------------------------------------------
# 6. DETR box head + matcher IoU cost (facebookresearch/detr: bbox_embed MLP -> sigmoid -> cxcywh to xyxy ->
#    box_iou against the targets). Boxes are normalized to [0, 1]. Naive: mindspore.ops.IOU (called with the
#    arguments swapped so the (queries, targets) layout comes out right), whose legacy convention adds 1 to every
#    width and height; correct: the IoU written out with ops.
# ---------------------------------------------------------------------------------------------------------------
_TARGETS = np.array([[0.10, 0.15, 0.55, 0.60], [0.40, 0.30, 0.90, 0.85], [0.05, 0.50, 0.35, 0.95]], np.float32)


def _detr_torch():
    import torch
    import torch.nn as nn

    class MLP(nn.Module):
        def __init__(self, d=8, hidden=8, out=4):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(d, hidden), nn.Linear(hidden, out)])

        def forward(self, x):
            return self.layers[1](torch.relu(self.layers[0](x)))

    class BoxCost(nn.Module):
        def __init__(self):
            super().__init__()
            self.bbox_embed = MLP()

        def forward(self, hs, tgt_boxes):
            cx, cy, w, h = self.bbox_embed(hs).sigmoid().unbind(-1)
            boxes = torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], -1)
            area1 = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
            area2 = (tgt_boxes[:, 2] - tgt_boxes[:, 0]) * (tgt_boxes[:, 3] - tgt_boxes[:, 1])
            lt = torch.max(boxes[:, None, :2], tgt_boxes[None, :, :2])
            rb = torch.min(boxes[:, None, 2:], tgt_boxes[None, :, 2:])
            wh = (rb - lt).clamp(min=0)
            inter = wh[..., 0] * wh[..., 1]
            iou = inter / (area1[:, None] + area2[None, :] - inter)
            return boxes, -iou

    return BoxCost()


def _detr_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        class MLP(nn.Cell):
            def __init__(self, d=8, hidden=8, out=4):
                super().__init__()
                self.layers = nn.CellList([nn.Dense(d, hidden), nn.Dense(hidden, out)])

            def construct(self, x):
                return self.layers[1](ops.relu(self.layers[0](x)))

        class BoxCost(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bbox_embed = MLP()
                self.iou = ops.IOU(mode="iou")

            def construct(self, hs, tgt_boxes):
                b = ops.sigmoid(self.bbox_embed(hs))
                cx, cy, w, h = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
                boxes = ops.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], -1)
                if correct:
                    area1 = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
                    area2 = (tgt_boxes[:, 2] - tgt_boxes[:, 0]) * (tgt_boxes[:, 3] - tgt_boxes[:, 1])
                    lt = ops.maximum(boxes[:, None, :2], tgt_boxes[None, :, :2])
                    rb = ops.minimum(boxes[:, None, 2:], tgt_boxes[None, :, 2:])
                    wh = ops.clamp(rb - lt, min=0.0)
                    inter = wh[..., 0] * wh[..., 1]
                    iou = inter / (area1[:, None] + area2[None, :] - inter)
                else:
                    iou = self.iou(tgt_boxes, boxes)  # (queries, targets)
                return boxes, -iou

        return BoxCost()
    return make


ENTRIES.append(entry(
    "h7b_port_detr_matcher_iou_ops_iou_plus_one", "h7-port",
    "model:DETR bbox_embed + HungarianMatcher IoU (facebookresearch/detr); probe: ops.IOU legacy +1 convention",
    _detr_torch, _detr_ms(False), _detr_ms(True), ("after:bbox_embed",), ("IOU|iou",),
    inputs={"hs": uniform(5, 8), "tgt_boxes": given(_TARGETS)},
    cause_pattern=(r"\bops\.IOU\b|\bP\.IOU\b|\bIOU\(|"
                   r"\bIOU\b[^.\n]*(\+ ?1\b|\bplus one\b|\blegacy\b)|(\+ ?1\b|\bplus one\b|\blegacy\b)[^.\n]*\bIOU\b"),
))


# ---------------------------------------------------------------------------------------------------------------
# 7. T5 feed-forward layer (huggingface T5LayerFF: T5LayerNorm -> wi -> ReLU -> wo, residual). T5LayerNorm is an
#    RMS norm: no mean subtraction, no bias, eps 1e-6. mindnlp writes it out (pow(2).mean, rsqrt). Naive: the
#    primitive ops.LayerNorm (which subtracts the mean) with a zero bias.
# ---------------------------------------------------------------------------------------------------------------
def _t5_torch():
    import torch
    import torch.nn as nn

    class T5LayerNorm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
            self.variance_epsilon = eps

        def forward(self, x):
            variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(variance + self.variance_epsilon))

    class DenseReluDense(nn.Module):
        def __init__(self, d, ff):
            super().__init__()
            self.wi = nn.Linear(d, ff, bias=False)
            self.wo = nn.Linear(ff, d, bias=False)

        def forward(self, x):
            return self.wo(torch.relu(self.wi(x)))

    class T5LayerFF(nn.Module):
        def __init__(self, d=8, ff=16):
            super().__init__()
            self.DenseReluDense = DenseReluDense(d, ff)
            self.layer_norm = T5LayerNorm(d)

        def forward(self, hidden_states):
            return hidden_states + self.DenseReluDense(self.layer_norm(hidden_states))

    return T5LayerFF()


def _t5_ms(correct: bool):
    def make():
        import mindspore
        import mindspore.nn as nn
        from mindspore import Parameter, ops

        class T5LayerNorm(nn.Cell):
            def __init__(self, d, eps=1e-6):
                super().__init__()
                self.weight = Parameter(ops.ones(d, mindspore.float32), name="weight")
                self.variance_epsilon = eps
                self.zeros = ops.zeros(d, mindspore.float32)
                self.norm = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=eps)

            def construct(self, x):
                if correct:
                    variance = x.astype(mindspore.float32).pow(2).mean(-1, keep_dims=True)
                    return self.weight * (x * ops.rsqrt(variance + self.variance_epsilon))
                return self.norm(x, self.weight, self.zeros)[0]

        class DenseReluDense(nn.Cell):
            def __init__(self, d, ff):
                super().__init__()
                self.wi = nn.Dense(d, ff, has_bias=False)
                self.wo = nn.Dense(ff, d, has_bias=False)

            def construct(self, x):
                return self.wo(ops.relu(self.wi(x)))

        class T5LayerFF(nn.Cell):
            def __init__(self, d=8, ff=16):
                super().__init__()
                self.DenseReluDense = DenseReluDense(d, ff)
                self.layer_norm = T5LayerNorm(d)

            def construct(self, hidden_states):
                return hidden_states + self.DenseReluDense(self.layer_norm(hidden_states))

        return T5LayerFF()
    return make


ENTRIES.append(entry(
    "h7b_port_t5_layer_ff_rmsnorm_as_ops_layernorm", "h7-port",
    "model:T5LayerFF (huggingface transformers) vs mindnlp t5 (T5LayerNorm written as an RMS norm)",
    _t5_torch, _t5_ms(False), _t5_ms(True), ("layer_norm",), ("RMS|LayerNorm|mean",),
    inputs={"hidden_states": uniform(2, 3, 8, low=-0.5, high=1.5)},
    cause_pattern=(r"\bRMS ?Norm\b|\brms_norm\b|\broot[- ]mean[- ]square\b|\bmean\b[^.\n]*\bsubtract|"
                   r"\bsubtract[^.\n]*\bmean\b|\bwithout\b[^.\n]*\bmean\b|\bno\b[^.\n]*\bmean\b"),
))


# ---------------------------------------------------------------------------------------------------------------
# 8. ERFNet non-bottleneck-1D block (Romera et al.; factorized 3x1 / 1x3 convs, the second pair dilated, BN
#    eps=1e-3, residual). torch pads with padding=(pad_h, pad_w); MindSpore's nn.Conv2d takes a 4-tuple
#    (top, bottom, left, right) and refuses a 2-tuple. Naive: padding=(1, 0) copied (raises at construction).
# ---------------------------------------------------------------------------------------------------------------
def _erf_torch():
    import torch
    import torch.nn as nn

    class NonBottleneck1D(nn.Module):
        def __init__(self, c=4, d=2):
            super().__init__()
            self.conv3x1_1 = nn.Conv2d(c, c, (3, 1), stride=1, padding=(1, 0), bias=True)
            self.conv1x3_1 = nn.Conv2d(c, c, (1, 3), stride=1, padding=(0, 1), bias=True)
            self.bn1 = nn.BatchNorm2d(c, eps=1e-3)
            self.conv3x1_2 = nn.Conv2d(c, c, (3, 1), stride=1, padding=(d, 0), bias=True, dilation=(d, 1))
            self.conv1x3_2 = nn.Conv2d(c, c, (1, 3), stride=1, padding=(0, d), bias=True, dilation=(1, d))
            self.bn2 = nn.BatchNorm2d(c, eps=1e-3)

        def forward(self, x):
            out = torch.relu(self.conv3x1_1(x))
            out = torch.relu(self.bn1(self.conv1x3_1(out)))
            out = torch.relu(self.conv3x1_2(out))
            out = self.bn2(self.conv1x3_2(out))
            return torch.relu(out + x)

    return NonBottleneck1D()


def _erf_ms(correct: bool):
    def make():
        import mindspore.nn as nn
        from mindspore import ops

        def pad(h, w):
            return (h, h, w, w) if correct else (h, w)

        class NonBottleneck1D(nn.Cell):
            def __init__(self, c=4, d=2):
                super().__init__()
                self.conv3x1_1 = nn.Conv2d(c, c, (3, 1), 1, pad_mode="pad", padding=pad(1, 0), has_bias=True)
                self.conv1x3_1 = nn.Conv2d(c, c, (1, 3), 1, pad_mode="pad", padding=pad(0, 1), has_bias=True)
                self.bn1 = nn.BatchNorm2d(c, eps=1e-3)
                self.conv3x1_2 = nn.Conv2d(c, c, (3, 1), 1, pad_mode="pad", padding=pad(d, 0), has_bias=True,
                                           dilation=(d, 1))
                self.conv1x3_2 = nn.Conv2d(c, c, (1, 3), 1, pad_mode="pad", padding=pad(0, d), has_bias=True,
                                           dilation=(1, d))
                self.bn2 = nn.BatchNorm2d(c, eps=1e-3)

            def construct(self, x):
                out = ops.relu(self.conv3x1_1(x))
                out = ops.relu(self.bn1(self.conv1x3_1(out)))
                out = ops.relu(self.conv3x1_2(out))
                out = self.bn2(self.conv1x3_2(out))
                return ops.relu(out + x)

        return NonBottleneck1D()
    return make


ENTRIES.append(entry(
    "h7b_port_erfnet_non_bottleneck_1d_padding_two_tuple_raises", "h7-port",
    "model:ERFNet non_bottleneck_1d (Eromera/erfnet_pytorch); probe: nn.Conv2d padding needs 4 values",
    _erf_torch, _erf_ms(False), _erf_ms(True), ("conv3x1_1",), ("padding|tuple",),
    inputs={"x": uniform(2, 4, 6, 6)}, fails_with="error",
    cause_pattern=(r"\bpadding\b[^.\n]*\b(4|four)\b|\bpadding\s*=\s*\(\s*1\s*,\s*1\s*,\s*0\s*,\s*0\s*\)|"
                   r"\b(top|bottom)\b[^.\n]*\b(left|right)\b"),
))
