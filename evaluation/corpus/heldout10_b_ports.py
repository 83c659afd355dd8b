"""Held-out set 10, half b, model blocks (family h10-port): small blocks in the style of public MindSpore ports
(mindcv, mindnlp, mindyolo, mindaudio, ...) against their torch originals, each with one porting mistake."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform

P = "h10-port"


def _torch():
    import torch
    return torch


def _ms():
    import mindspore
    from mindspore import nn, ops
    return mindspore, nn, ops


# --- 1. ConvNeXt block (channels-last LayerNorm through the ops.LayerNorm primitive) -----------------------------

def t_convnext():
    torch = _torch()
    F = torch.nn.functional

    class Block(torch.nn.Module):
        def __init__(self, dim=4):
            super().__init__()
            self.dwconv = torch.nn.Conv2d(dim, dim, 3, padding=1, groups=dim)
            self.norm = torch.nn.LayerNorm(dim, eps=1e-6)
            self.pwconv1 = torch.nn.Linear(dim, 4 * dim)
            self.pwconv2 = torch.nn.Linear(4 * dim, dim)
            self.gamma = torch.nn.Parameter(torch.full((dim,), 0.5))

        def forward(self, x):
            shortcut = x
            x = self.dwconv(x).permute(0, 2, 3, 1)
            x = self.norm(x)
            x = self.pwconv2(F.gelu(self.pwconv1(x)))
            x = (self.gamma * x).permute(0, 3, 1, 2)
            return shortcut + x
    return Block()


def _ms_convnext(naive):
    ms, nn, ops = _ms()
    from mindspore import Parameter, Tensor
    import numpy as np

    class ConvNextLayerNorm(nn.Cell):
        def __init__(self, dim):
            super().__init__()
            self.gamma = Parameter(Tensor(np.ones(dim, np.float32)), name="gamma")
            self.beta = Parameter(Tensor(np.zeros(dim, np.float32)), name="beta")
            if naive:
                self.layer_norm = ops.LayerNorm(begin_params_axis=-1, epsilon=1e-6)
            else:
                self.layer_norm = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-6)

        def construct(self, x):
            return self.layer_norm(x, self.gamma, self.beta)[0]

    class Block(nn.Cell):
        def __init__(self, dim=4):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 3, pad_mode="pad", padding=1, group=dim, has_bias=True)
            self.norm = ConvNextLayerNorm(dim)
            self.pwconv1 = nn.Dense(dim, 4 * dim)
            self.pwconv2 = nn.Dense(4 * dim, dim)
            self.gamma = Parameter(Tensor(np.full((dim,), 0.5, np.float32)), name="gamma")

        def construct(self, x):
            shortcut = x
            x = self.dwconv(x).transpose(0, 2, 3, 1)
            x = self.norm(x)
            x = self.pwconv2(ops.gelu(self.pwconv1(x), approximate="none"))
            x = (self.gamma * x).transpose(0, 3, 1, 2)
            return shortcut + x
    return Block()


# --- 2. Gemma MLP (GeGLU with gelu_pytorch_tanh) -----------------------------------------------------------------

def t_gemma_mlp():
    torch = _torch()
    F = torch.nn.functional

    class GemmaMLP(torch.nn.Module):
        def __init__(self, hidden=8, inter=16):
            super().__init__()
            self.gate_proj = torch.nn.Linear(hidden, inter, bias=False)
            self.up_proj = torch.nn.Linear(hidden, inter, bias=False)
            self.down_proj = torch.nn.Linear(inter, hidden, bias=False)

        def forward(self, x):
            return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))
    return GemmaMLP()


def _ms_gemma_mlp(naive):
    ms, nn, ops = _ms()

    class GemmaMLP(nn.Cell):
        def __init__(self, hidden=8, inter=16):
            super().__init__()
            self.gate_proj = nn.Dense(hidden, inter, has_bias=False)
            self.up_proj = nn.Dense(hidden, inter, has_bias=False)
            self.down_proj = nn.Dense(inter, hidden, has_bias=False)

        def construct(self, x):
            g = self.gate_proj(x)
            act = ops.gelu(g) if naive else ops.gelu(g, approximate="tanh")
            return self.down_proj(act * self.up_proj(x))
    return GemmaMLP()


# --- 3. Monodepth2 edge-aware smoothness loss ------------------------------------------------------------------

def t_smooth():
    torch = _torch()

    class SmoothLoss(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.disp_head = torch.nn.Conv2d(3, 1, 1)

        def forward(self, img):
            disp = torch.sigmoid(self.disp_head(img))
            mean_disp = disp.mean(2, True).mean(3, True)
            disp = disp / (mean_disp + 1e-7)
            grad_disp_x = torch.abs(disp[:, :, :, :-1] - disp[:, :, :, 1:])
            grad_disp_y = torch.abs(disp[:, :, :-1, :] - disp[:, :, 1:, :])
            grad_img_x = torch.mean(torch.abs(img[:, :, :, :-1] - img[:, :, :, 1:]), 1, keepdim=True)
            grad_img_y = torch.mean(torch.abs(img[:, :, :-1, :] - img[:, :, 1:, :]), 1, keepdim=True)
            grad_disp_x = grad_disp_x * torch.exp(-grad_img_x)
            grad_disp_y = grad_disp_y * torch.exp(-grad_img_y)
            return grad_disp_x.mean() + grad_disp_y.mean()
    return SmoothLoss()


def _ms_smooth(naive):
    ms, nn, ops = _ms()

    class SmoothLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.disp_head = nn.Conv2d(3, 1, 1, has_bias=True)
            self.grad = nn.ImageGradients()

        def construct(self, img):
            disp = ops.sigmoid(self.disp_head(img))
            mean_disp = disp.mean(2, True).mean(3, True)
            disp = disp / (mean_disp + 1e-7)
            if naive:
                dy_d, dx_d = self.grad(disp)
                dy_i, dx_i = self.grad(img)
                grad_disp_x, grad_disp_y = ops.abs(dx_d), ops.abs(dy_d)
                grad_img_x = ops.abs(dx_i).mean(1, True)
                grad_img_y = ops.abs(dy_i).mean(1, True)
            else:
                grad_disp_x = ops.abs(disp[:, :, :, :-1] - disp[:, :, :, 1:])
                grad_disp_y = ops.abs(disp[:, :, :-1, :] - disp[:, :, 1:, :])
                grad_img_x = ops.abs(img[:, :, :, :-1] - img[:, :, :, 1:]).mean(1, True)
                grad_img_y = ops.abs(img[:, :, :-1, :] - img[:, :, 1:, :]).mean(1, True)
            grad_disp_x = grad_disp_x * ops.exp(-grad_img_x)
            grad_disp_y = grad_disp_y * ops.exp(-grad_img_y)
            return grad_disp_x.mean() + grad_disp_y.mean()
    return SmoothLoss()


# --- 4. YOLOv5 PAN neck top-down step (nearest upsample x2, concat, 1x1 conv) ------------------------------------

def t_yolo_neck():
    torch = _torch()

    class TopDown(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.reduce = torch.nn.Conv2d(8, 4, 1)
            self.up = torch.nn.Upsample(None, 2, "nearest")
            self.fuse = torch.nn.Conv2d(8, 4, 1)

        def forward(self, p4, p3):
            x = self.up(self.reduce(p4))
            return self.fuse(torch.cat([x, p3], 1))
    return TopDown()


def _ms_yolo_neck(naive):
    ms, nn, ops = _ms()

    class TopDown(nn.Cell):
        def __init__(self):
            super().__init__()
            self.reduce = nn.Conv2d(8, 4, 1, has_bias=True)
            if naive:
                self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
            else:
                self.up = nn.Upsample(scale_factor=2.0, mode="nearest", recompute_scale_factor=True)
            self.fuse = nn.Conv2d(8, 4, 1, has_bias=True)

        def construct(self, p4, p3):
            x = self.up(self.reduce(p4))
            return self.fuse(ops.cat((x, p3), 1))
    return TopDown()


# --- 5. VGG-BN stage (conv-bn-relu x2, then 2x2 max pool) ----------------------------------------------------------

def t_vgg():
    torch = _torch()

    class Stage(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = torch.nn.Sequential(
                torch.nn.Conv2d(2, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                torch.nn.Conv2d(4, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                torch.nn.MaxPool2d(kernel_size=2))

        def forward(self, x):
            return self.features(x)
    return Stage()


def _ms_vgg(naive):
    ms, nn, ops = _ms()

    class Stage(nn.Cell):
        def __init__(self):
            super().__init__()
            pool = nn.MaxPool2d(kernel_size=2) if naive else nn.MaxPool2d(kernel_size=2, stride=2)
            self.features = nn.SequentialCell([
                nn.Conv2d(2, 4, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(),
                nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(),
                pool])

        def construct(self, x):
            return self.features(x)
    return Stage()


# --- 6. YOLOv5 Conv unit (conv + BatchNorm(eps=1e-3, momentum=0.03) + SiLU) --------------------------------

def t_yolo_bottleneck():
    torch = _torch()

    class Conv(torch.nn.Module):
        def __init__(self, c1, c2, k):
            super().__init__()
            self.conv = torch.nn.Conv2d(c1, c2, k, 1, k // 2, bias=False)
            self.bn = torch.nn.BatchNorm2d(c2, eps=0.001, momentum=0.03)
            self.act = torch.nn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Stem(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = Conv(3, 4, 3)

        def forward(self, x):
            return self.conv(x)
    return Stem()


def _ms_yolo_bottleneck(naive):
    ms, nn, ops = _ms()

    class ConvNormAct(nn.Cell):
        def __init__(self, c1, c2, k):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, k, 1, pad_mode="pad", padding=k // 2, has_bias=False)
            if naive:
                self.bn = nn.BatchNorm2d(c2, momentum=0.97)
            else:
                self.bn = nn.BatchNorm2d(c2, momentum=0.97, eps=1e-3)
            self.act = nn.SiLU()

        def construct(self, x):
            return self.act(self.bn(self.conv(x)))

    class Stem(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ConvNormAct(3, 4, 3)

        def construct(self, x):
            return self.conv(x)
    return Stem()


# --- 7. wav2vec2 positional conv embedding (even kernel, SamePad trims the last frame) -----------------------------

def t_w2v_pos():
    torch = _torch()
    F = torch.nn.functional

    class PosConv(torch.nn.Module):
        def __init__(self, dim=4, k=4, groups=2):
            super().__init__()
            self.conv = torch.nn.Conv1d(dim, dim, k, padding=k // 2, groups=groups)
            self.num_pad_remove = 1 if k % 2 == 0 else 0

        def forward(self, hidden):  # (B, T, C)
            x = self.conv(hidden.transpose(1, 2))
            if self.num_pad_remove > 0:
                x = x[:, :, :-self.num_pad_remove]
            return hidden + F.gelu(x).transpose(1, 2)
    return PosConv()


def _ms_w2v_pos(naive):
    ms, nn, ops = _ms()

    class PosConv(nn.Cell):
        def __init__(self, dim=4, k=4, groups=2):
            super().__init__()
            if naive:
                self.conv = nn.Conv1d(dim, dim, k, pad_mode="same", group=groups, has_bias=True)
                self.num_pad_remove = 0
            else:
                self.conv = nn.Conv1d(dim, dim, k, pad_mode="pad", padding=k // 2, group=groups, has_bias=True)
                self.num_pad_remove = 1 if k % 2 == 0 else 0

        def construct(self, hidden):
            x = self.conv(hidden.swapaxes(1, 2))
            if self.num_pad_remove > 0:
                x = x[:, :, :-self.num_pad_remove]
            return hidden + ops.gelu(x, approximate="none").swapaxes(1, 2)
    return PosConv()


# --- 8. Conformer feed-forward module (macaron half-step residual) ------------------------------------------------

def t_conformer_ffn():
    torch = _torch()

    class FeedForward(torch.nn.Module):
        def __init__(self, d=8):
            super().__init__()
            self.layer_norm = torch.nn.LayerNorm(d)
            self.w_1 = torch.nn.Linear(d, 4 * d)
            self.w_2 = torch.nn.Linear(4 * d, d)

        def forward(self, x):
            y = self.w_2(torch.nn.functional.silu(self.w_1(self.layer_norm(x))))
            return x + 0.5 * y
    return FeedForward()


def _ms_conformer_ffn(naive):
    ms, nn, ops = _ms()

    class FeedForward(nn.Cell):
        def __init__(self, d=8):
            super().__init__()
            self.layer_norm = nn.LayerNorm((d,)) if naive else nn.LayerNorm((d,), epsilon=1e-5)
            self.w_1 = nn.Dense(d, 4 * d)
            self.w_2 = nn.Dense(4 * d, d)

        def construct(self, x):
            y = self.w_2(ops.silu(self.w_1(self.layer_norm(x))))
            return x + 0.5 * y
    return FeedForward()


ENTRIES = [
    entry("h10b_port_convnext_block_layernorm_primitive_begin_norm_axis", P, "LayerNorm",
          t_convnext, lambda: _ms_convnext(True), lambda: _ms_convnext(False),
          ("norm",), ("begin_norm_axis|ops.LayerNorm default 1",), inputs={"x": uniform(2, 4, 5, 5)},
          cause_pattern=r"\bbegin_norm_axis\b[^.]*(-1|\blast\b)|\bbegin_norm_axis\b[^.]*\b(default|1)\b"
                        r"|\b(normali[sz]\w*|statistics|mean|variance)\b[^.]*\b(H|W|height|width|spatial|all)\b[^.]*\b(axes|axis|dims?|dimensions)\b"),
    entry("h10b_port_gemma_mlp_gelu_tanh_as_default_gelu", P, "model:google/gemma (mindnlp GemmaMLP) probe:ops.gelu approximate default",
          t_gemma_mlp, lambda: _ms_gemma_mlp(True), lambda: _ms_gemma_mlp(False),
          ("after:gate_proj",), ("gelu|approximate|tanh",), inputs={"x": uniform(2, 3, 8, low=-3.0, high=3.0)},
          cause_pattern=r"\bapproximate\s*=\s*['\"]tanh['\"]|\bapproximate\b[^.]*\btanh\b|\btanh\b[^.]*\bapproximat\w*\b"
                        r"|\bgelu_pytorch_tanh\b|\bgelu\b[^.]*\btanh\b"),
    entry("h10b_port_monodepth2_smoothness_image_gradients_zero_pad", P,
          "model:monodepth2 get_smooth_loss; probe:nn.ImageGradients pads the last row/column with zeros",
          t_smooth, lambda: _ms_smooth(True), lambda: _ms_smooth(False),
          ("<root>",), ("ImageGradients|zero pad|mean over H-1",), inputs={"img": uniform(2, 3, 5, 6, low=0.0, high=1.0)},
          cause_pattern=r"\bImageGradients\b[^.]*\b(pad\w*|zeros?|last (row|column)|border|edge|shape|size|H ?- ?1|W ?- ?1)\b"
                        r"|\b(pad\w*|zeros?)\b[^.]*\bImageGradients\b"),
    entry("h10b_port_yolov5_neck_upsample_nearest_scale_factor_raises", P,
          "model:ultralytics yolov5 (mindyolo) probe:nn.Upsample nearest scale_factor needs recompute_scale_factor",
          t_yolo_neck, lambda: _ms_yolo_neck(True), lambda: _ms_yolo_neck(False),
          ("up",), ("recompute_scale_factor|scale_factor|nearest",),
          inputs={"p4": uniform(2, 8, 3, 3), "p3": uniform(2, 4, 6, 6)}, fails_with="error",
          cause_pattern=r"\brecompute_scale_factor\b|\bsize\s*=|\bscale_factor\b[^.]*\b(size|recompute)\b"),
    entry("h10b_port_vgg_bn_stage_maxpool_default_stride", P, "MaxPool2d",
          t_vgg, lambda: _ms_vgg(True), lambda: _ms_vgg(False),
          ("features.6",), ("stride|MaxPool2d default stride 1",), inputs={"x": uniform(2, 2, 6, 6)}, fails_with="shape",
          cause_pattern=r"\bstride\s*=\s*2\b|\bstride\b[^.]*\b(kernel_size|default\w*)\b|\bdefault\w*\b[^.]*\bstride\b"),
    entry("h10b_port_yolov5_conv_unit_bn_eps_dropped", P, "model:ultralytics yolov5 Conv (mindyolo ConvNormAct) BatchNorm2d eps=1e-3",
          t_yolo_bottleneck, lambda: _ms_yolo_bottleneck(True), lambda: _ms_yolo_bottleneck(False),
          ("conv.bn",), ("eps|epsilon 1e-3",), inputs={"x": uniform(2, 3, 5, 5)},
          checks=("forward",),
          cause_pattern=r"\beps(ilon)?\b[^.]*(\b1e-0?3\b|\b0\.001\b)|(\b1e-0?3\b|\b0\.001\b)[^.]*\beps(ilon)?\b"),
    entry("h10b_port_wav2vec2_pos_conv_even_kernel_same_padding", P,
          "model:facebook/wav2vec2 Wav2Vec2PositionalConvEmbedding + SamePadLayer (mindnlp)",
          t_w2v_pos, lambda: _ms_w2v_pos(True), lambda: _ms_w2v_pos(False),
          ("conv",), ("pad_mode same|even kernel|SamePad",), inputs={"hidden": uniform(2, 7, 4)},
          cause_pattern=r"\bpad_mode\b[^.]*\b(pad|same)\b|\bpadding\s*=\s*2\b|\bSamePad\w*\b|\b(even|asymmetric)\b[^.]*\bpad\w*\b"
                        r"|\bpad\w*\b[^.]*\b(left|right|asymmetric|even)\b"),
    entry("h10b_port_conformer_ffn_layernorm_default_epsilon", P,
          "model:torchaudio/ESPnet Conformer FeedForwardModule (mindaudio) LayerNorm",
          t_conformer_ffn, lambda: _ms_conformer_ffn(True), lambda: _ms_conformer_ffn(False),
          ("layer_norm",), ("epsilon|1e-5",), inputs={"x": uniform(2, 5, 8, low=-0.05, high=0.05)},
          cause_pattern=r"\beps(ilon)?\b[^.]*(\b1e-0?5\b|\b0\.00001\b)|(\b1e-0?5\b|\b0\.00001\b)[^.]*\beps(ilon)?\b"),
]
