"""Held-out set 8, half b, model blocks (family h8-port): blind single-difference ports.

Eight small blocks written in the style of public MindSpore ports (mindcv, mindnlp, mindocr, ...) next to their torch
originals. Each naive port differs from its correct port in one place only.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import uniform

MODELS = "model:"


# --------------------------------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------------------------------

def _mbv3_torch():
    import torch
    import torch.nn as tnn

    class SqueezeExcitation(tnn.Module):  # torchvision.ops.SqueezeExcitation as MobileNetV3 builds it
        def __init__(self, ch, sq):
            super().__init__()
            self.avgpool = tnn.AdaptiveAvgPool2d(1)
            self.fc1 = tnn.Conv2d(ch, sq, 1)
            self.fc2 = tnn.Conv2d(sq, ch, 1)
            self.activation = tnn.ReLU()
            self.scale_activation = tnn.Hardsigmoid()

        def forward(self, x):
            s = self.fc2(self.activation(self.fc1(self.avgpool(x))))
            return x * self.scale_activation(s)

    class InvertedResidual(tnn.Module):
        def __init__(self):
            super().__init__()
            self.expand_conv = tnn.Conv2d(4, 8, 1, bias=False)
            self.expand_bn = tnn.BatchNorm2d(8)
            self.dw_conv = tnn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
            self.dw_bn = tnn.BatchNorm2d(8)
            self.act = tnn.Hardswish()
            self.se = SqueezeExcitation(8, 4)
            self.project_conv = tnn.Conv2d(8, 4, 1, bias=False)
            self.project_bn = tnn.BatchNorm2d(4)

        def forward(self, x):
            h = self.act(self.expand_bn(self.expand_conv(x)))
            h = self.act(self.dw_bn(self.dw_conv(h)))
            h = self.se(h)
            return x + self.project_bn(self.project_conv(h))

    return InvertedResidual()


def _mbv3_ms(gate):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class SqueezeExcite(mnn.Cell):  # mindcv's SqueezeExcite: conv_reduce / conv_expand and a gate layer
            def __init__(self, ch, rd, gate_layer):
                super().__init__()
                self.conv_reduce = mnn.Conv2d(ch, rd, 1, has_bias=True)
                self.act = mnn.ReLU()
                self.conv_expand = mnn.Conv2d(rd, ch, 1, has_bias=True)
                self.gate = gate_layer()

            def construct(self, x):
                s = ops.mean(x, (2, 3), keep_dims=True)
                s = self.conv_expand(self.act(self.conv_reduce(s)))
                return x * self.gate(s)

        class InvertedResidual(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.expand_conv = mnn.Conv2d(4, 8, 1, has_bias=False)
                self.expand_bn = mnn.BatchNorm2d(8)
                self.dw_conv = mnn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, group=8, has_bias=False)
                self.dw_bn = mnn.BatchNorm2d(8)
                self.act = mnn.HSwish()
                self.se = SqueezeExcite(8, 4, gate)
                self.project_conv = mnn.Conv2d(8, 4, 1, has_bias=False)
                self.project_bn = mnn.BatchNorm2d(4)

            def construct(self, x):
                h = self.act(self.expand_bn(self.expand_conv(x)))
                h = self.act(self.dw_bn(self.dw_conv(h)))
                h = self.se(h)
                return x + self.project_bn(self.project_conv(h))

        return InvertedResidual()
    return make


def _mbv3_naive():
    import mindspore.nn as mnn
    return _mbv3_ms(mnn.Sigmoid)()


def _mbv3_correct():
    import mindspore.nn as mnn
    return _mbv3_ms(mnn.HSigmoid)()


_MBV3_MAP = {"se.fc1.weight": "se.conv_reduce.weight", "se.fc1.bias": "se.conv_reduce.bias",
             "se.fc2.weight": "se.conv_expand.weight", "se.fc2.bias": "se.conv_expand.bias"}


def _unet_torch():
    import torch
    import torch.nn as tnn

    class Up(tnn.Module):  # milesial Pytorch-UNet `Up` with bilinear=True (one conv kept)
        def __init__(self):
            super().__init__()
            self.up = tnn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = tnn.Sequential(tnn.Conv2d(8, 4, 3, padding=1, bias=False), tnn.BatchNorm2d(4), tnn.ReLU())

        def forward(self, x1, x2):
            x1 = self.up(x1)
            return self.conv(torch.cat([x2, x1], dim=1))

    return Up()


def _unet_ms(align):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class Up(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = mnn.SequentialCell([mnn.Conv2d(8, 4, 3, pad_mode="pad", padding=1, has_bias=False),
                                                mnn.BatchNorm2d(4), mnn.ReLU()])

            def construct(self, x1, x2):
                h, w = x1.shape[2], x1.shape[3]
                if align:
                    x1 = ops.interpolate(x1, size=(2 * h, 2 * w), mode="bilinear", align_corners=True)
                else:
                    x1 = ops.interpolate(x1, size=(2 * h, 2 * w), mode="bilinear")
                return self.conv(ops.cat([x2, x1], axis=1))

        return Up()
    return make


def _qwen2_attn_torch():
    import math

    import torch
    import torch.nn as tnn

    class Qwen2Attention(tnn.Module):  # transformers Qwen2Attention, small and without rotary: q/k/v biased, o not
        def __init__(self, hidden=8, heads=2):
            super().__init__()
            self.heads, self.head_dim = heads, hidden // heads
            self.q_proj = tnn.Linear(hidden, hidden, bias=True)
            self.k_proj = tnn.Linear(hidden, hidden, bias=True)
            self.v_proj = tnn.Linear(hidden, hidden, bias=True)
            self.o_proj = tnn.Linear(hidden, hidden, bias=False)

        def forward(self, x):  # x: (B, T, hidden)
            b, t, _ = x.shape
            q, k, v = (p(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
                       for p in (self.q_proj, self.k_proj, self.v_proj))
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
            causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(causal, float("-inf"))
            out = torch.softmax(scores, dim=-1) @ v
            return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))

    return Qwen2Attention()


def _qwen2_attn_ms(o_kw):
    def make():
        import math

        import mindspore as ms
        import mindspore.nn as mnn
        from mindspore import Tensor, ops

        class Qwen2Attention(mnn.Cell):  # mindnlp style
            def __init__(self, hidden=8, heads=2):
                super().__init__()
                self.heads, self.head_dim = heads, hidden // heads
                self.q_proj = mnn.Dense(hidden, hidden, has_bias=True)
                self.k_proj = mnn.Dense(hidden, hidden, has_bias=True)
                self.v_proj = mnn.Dense(hidden, hidden, has_bias=True)
                self.o_proj = mnn.Dense(hidden, hidden, **o_kw)

            def construct(self, x):
                b, t, _ = x.shape
                q = self.q_proj(x).reshape(b, t, self.heads, self.head_dim).swapaxes(1, 2)
                k = self.k_proj(x).reshape(b, t, self.heads, self.head_dim).swapaxes(1, 2)
                v = self.v_proj(x).reshape(b, t, self.heads, self.head_dim).swapaxes(1, 2)
                scores = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(self.head_dim)
                causal = Tensor(np.triu(np.ones((t, t), dtype=bool), 1))
                scores = ops.masked_fill(scores, causal, Tensor(float("-inf"), ms.float32))
                out = ops.matmul(ops.softmax(scores, axis=-1), v)
                return self.o_proj(out.swapaxes(1, 2).reshape(b, t, -1))

        return Qwen2Attention()
    return make


def _dbhead_torch():
    import torch.nn as tnn

    class DBHead(tnn.Module):  # DBNet binarize branch (probability map)
        def __init__(self, c=8):
            super().__init__()
            self.binarize = tnn.Sequential(
                tnn.Conv2d(c, c // 4, 3, padding=1, bias=False), tnn.BatchNorm2d(c // 4), tnn.ReLU(),
                tnn.ConvTranspose2d(c // 4, c // 4, 2, 2), tnn.BatchNorm2d(c // 4), tnn.ReLU(),
                tnn.ConvTranspose2d(c // 4, 1, 2, 2), tnn.Sigmoid())

        def forward(self, x):
            return self.binarize(x)

    return DBHead()


def _dbhead_ms(bias):
    def make():
        import mindspore.nn as mnn

        class DBHead(mnn.Cell):  # mindocr DBHead style
            def __init__(self, c=8):
                super().__init__()
                last = {"has_bias": True} if bias else {}
                self.binarize = mnn.SequentialCell([
                    mnn.Conv2d(c, c // 4, 3, pad_mode="pad", padding=1, has_bias=False), mnn.BatchNorm2d(c // 4),
                    mnn.ReLU(),
                    mnn.Conv2dTranspose(c // 4, c // 4, 2, stride=2, has_bias=True), mnn.BatchNorm2d(c // 4),
                    mnn.ReLU(),
                    mnn.Conv2dTranspose(c // 4, 1, 2, stride=2, **last), mnn.Sigmoid()])

            def construct(self, x):
                return self.binarize(x)

        return DBHead()
    return make


def _bifpn_torch():
    import torch
    import torch.nn as tnn

    class SeparableConvBlock(tnn.Module):
        def __init__(self, c):
            super().__init__()
            self.depthwise_conv = tnn.Conv2d(c, c, 3, padding=1, groups=c, bias=False)
            self.pointwise_conv = tnn.Conv2d(c, c, 1)
            self.bn = tnn.BatchNorm2d(c, momentum=0.01, eps=1e-3)

        def forward(self, x):
            return self.bn(self.pointwise_conv(self.depthwise_conv(x)))

    class Swish(tnn.Module):  # EfficientDet's (MemoryEfficient)Swish
        def forward(self, x):
            return x * torch.sigmoid(x)

    class BiFPNNode(tnn.Module):  # zylo117 EfficientDet: P5_td = conv(swish(w0 * P5_in + w1 * up(P6)))
        def __init__(self, c=4):
            super().__init__()
            self.p5_w1 = tnn.Parameter(torch.ones(2))
            self.p5_w1_relu = tnn.ReLU()
            self.p5_upsample = tnn.Upsample(scale_factor=2, mode="nearest")
            self.swish = Swish()
            self.conv5_up = SeparableConvBlock(c)
            self.epsilon = 1e-4

        def forward(self, p5, p6):
            w = self.p5_w1_relu(self.p5_w1)
            w = w / (torch.sum(w, dim=0) + self.epsilon)
            return self.conv5_up(self.swish(w[0] * p5 + w[1] * self.p5_upsample(p6)))

    return BiFPNNode()


def _bifpn_ms(act):
    def make():
        import mindspore.nn as mnn
        from mindspore import Parameter, Tensor, ops
        import mindspore as ms

        class SeparableConvBlock(mnn.Cell):
            def __init__(self, c):
                super().__init__()
                self.depthwise_conv = mnn.Conv2d(c, c, 3, pad_mode="same", group=c, has_bias=False)
                self.pointwise_conv = mnn.Conv2d(c, c, 1, has_bias=True)
                self.bn = mnn.BatchNorm2d(c, momentum=0.99, eps=1e-3)

            def construct(self, x):
                return self.bn(self.pointwise_conv(self.depthwise_conv(x)))

        class BiFPNNode(mnn.Cell):
            def __init__(self, c=4):
                super().__init__()
                self.p5_w1 = Parameter(Tensor(np.ones(2, np.float32)), name="p5_w1")
                self.p5_w1_relu = mnn.ReLU()
                self.swish = act()
                self.conv5_up = SeparableConvBlock(c)
                self.epsilon = 1e-4

            def construct(self, p5, p6):
                w = self.p5_w1_relu(self.p5_w1)
                w = w / (ops.sum(w, dim=0) + self.epsilon)
                up = ops.interpolate(p6, size=(2 * p6.shape[2], 2 * p6.shape[3]), mode="nearest")
                return self.conv5_up(self.swish(w[0] * p5 + w[1] * up))

        return BiFPNNode()
    return make


def _bifpn_naive():
    import mindspore.nn as mnn
    return _bifpn_ms(mnn.HSwish)()


def _bifpn_correct():
    import mindspore.nn as mnn
    return _bifpn_ms(mnn.SiLU)()


def _crn_torch():
    import torch.nn as tnn

    class CausalConvBlock(tnn.Module):  # CRN / GCRN speech-enhancement encoder: (freq, time) maps, causal in time
        def __init__(self):
            super().__init__()
            self.pad = tnn.ZeroPad2d((2, 0, 1, 1))  # (left, right, top, bottom): 2 past frames, 1 bin each side
            self.conv = tnn.Conv2d(2, 4, 3)
            self.bn = tnn.BatchNorm2d(4)
            self.act = tnn.ELU()

        def forward(self, x):  # x: (N, C, F, T)
            return self.act(self.bn(self.conv(self.pad(x))))

    return CausalConvBlock()


def _crn_ms(padding):
    def make():
        import mindspore.nn as mnn

        class CausalConvBlock(mnn.Cell):  # the ZeroPad2d folded into the convolution's padding
            def __init__(self):
                super().__init__()
                self.conv = mnn.Conv2d(2, 4, 3, pad_mode="pad", padding=padding, has_bias=True)
                self.bn = mnn.BatchNorm2d(4)
                self.act = mnn.ELU()

            def construct(self, x):
                return self.act(self.bn(self.conv(x)))

        return CausalConvBlock()
    return make


def _swin_torch():
    import torch
    import torch.nn as tnn

    class ShiftedWindowMLP(tnn.Module):  # Swin block's cyclic shift around a window-local token mixer
        def __init__(self):
            super().__init__()
            self.norm = tnn.LayerNorm(4)
            self.mix = tnn.Linear(4, 4)
            self.shift = 1

        def forward(self, x):  # x: (N, H, W, C)
            h = torch.roll(self.norm(x), shifts=(-self.shift, -self.shift), dims=(1, 2))
            h = self.mix(h)
            h = torch.roll(h, shifts=(self.shift, self.shift), dims=(1, 2))
            return x + h

    return ShiftedWindowMLP()


def _swin_ms(use_roll):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        def cyclic(x, s):  # mindcv-style roll by slicing and concatenation over H and W
            x = ops.cat([x[:, s:], x[:, :s]], axis=1)
            return ops.cat([x[:, :, s:], x[:, :, :s]], axis=2)

        class ShiftedWindowMLP(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.norm = mnn.LayerNorm((4,), epsilon=1e-5)
                self.mix = mnn.Dense(4, 4)
                self.shift = 1

            def construct(self, x):
                if use_roll:
                    h = ops.roll(self.norm(x), shifts=(-self.shift, -self.shift), dims=(1, 2))
                    h = self.mix(h)
                    h = ops.roll(h, shifts=(self.shift, self.shift), dims=(1, 2))
                else:
                    h = cyclic(self.norm(x), self.shift)
                    h = self.mix(h)
                    h = cyclic(h, -self.shift)
                return x + h

        return ShiftedWindowMLP()
    return make


def _tdnn_torch():
    import torch.nn as tnn

    class TDNNBlock(tnn.Module):  # SpeechBrain ECAPA-TDNN TDNNBlock: its Conv1d pads 'same' by reflection
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv1d(4, 6, 3, dilation=2, padding=2, padding_mode="reflect")
            self.activation = tnn.ReLU()
            self.norm = tnn.BatchNorm1d(6)

        def forward(self, x):  # x: (N, C, T)
            return self.norm(self.activation(self.conv(x)))

    return TDNNBlock()


def _tdnn_ms(reflect):
    def make():
        import mindspore.nn as mnn
        from mindspore import ops

        class TDNNBlock(mnn.Cell):
            def __init__(self):
                super().__init__()
                if reflect:
                    self.conv = mnn.Conv1d(4, 6, 3, dilation=2, pad_mode="valid", has_bias=True)
                else:
                    self.conv = mnn.Conv1d(4, 6, 3, dilation=2, pad_mode="pad", padding=2, has_bias=True)
                self.activation = mnn.ReLU()
                self.norm = mnn.BatchNorm1d(6)

            def construct(self, x):
                if reflect:
                    x = ops.pad(x, (2, 2), mode="reflect")
                return self.norm(self.activation(self.conv(x)))

        return TDNNBlock()
    return make


ENTRIES = [
    entry("h8b_port_mobilenetv3_se_gate_sigmoid", "h8-port", MODELS + "mindcv mobilenet_v3 SqueezeExcite vs torchvision",
          _mbv3_torch, _mbv3_naive, _mbv3_correct, ("se.scale_activation",), ("hsigmoid|hardsigmoid|gate",),
          inputs={"x": uniform(2, 4, 5, 5)}, weight_map=_MBV3_MAP,
          cause_pattern=r"\bh(ard)?[-_ ]?sigmoid\b"),
    entry("h8b_port_unet_up_bilinear_align_corners", "h8-port", MODELS + "milesial Pytorch-UNet Up (bilinear)",
          _unet_torch, _unet_ms(False), _unet_ms(True), ("up",), ("align_corners",),
          inputs={"x1": uniform(1, 4, 3, 3), "x2": uniform(1, 4, 6, 6)},
          cause_pattern=r"\balign_corners\b[^\n]*\btrue\b"),
    entry("h8b_port_qwen2_attention_o_proj_dense_bias_default", "h8-port",
          MODELS + "mindnlp Qwen2Attention vs transformers Qwen2Attention", _qwen2_attn_torch, _qwen2_attn_ms({}),
          _qwen2_attn_ms({"has_bias": False}), ("o_proj",), ("has_bias|bias",), inputs={"x": uniform(2, 3, 8)}, fails_with="structure",
          cause_pattern=r"\bhas_bias\s*=\s*false\b|\bhas_bias\b[^\n]*\bfalse\b"),
    entry("h8b_port_dbnet_head_convtranspose_bias_default", "h8-port", MODELS + "mindocr DBHead vs DBNet.pytorch",
          _dbhead_torch, _dbhead_ms(False), _dbhead_ms(True), ("binarize.6",), ("has_bias|bias",),
          inputs={"x": uniform(1, 8, 3, 3)}, fails_with="structure",
          cause_pattern=r"\bhas_bias\s*=\s*true\b|\bhas_bias\b[^\n]*\btrue\b"),
    entry("h8b_port_efficientdet_bifpn_swish_as_hswish", "h8-port", MODELS + "EfficientDet BiFPN (zylo117) port",
          _bifpn_torch, _bifpn_naive, _bifpn_correct, ("swish",), ("silu|swish",),
          inputs={"p5": uniform(1, 4, 4, 4, low=-4.0, high=4.0), "p6": uniform(1, 4, 2, 2, low=-4.0, high=4.0)},
          cause_pattern=r"\b(nn\.|ops\.)?silu\b|\bx\s*\*\s*(ops\.|torch\.)?sigmoid\(\s*x\s*\)"),
    entry("h8b_port_crn_causal_conv_padding_tuple_order", "h8-port", "Conv2d",
          _crn_torch, _crn_ms((2, 0, 1, 1)), _crn_ms((1, 1, 2, 0)), ("conv",), ("padding|order",),
          inputs={"x": uniform(2, 2, 5, 6)},
          cause_pattern=r"\(\s*1\s*,\s*1\s*,\s*2\s*,\s*0\s*\)|\btop\s*,\s*bottom\s*,\s*left\s*,\s*right\b"
                        r"|\bpadding\b[^\n]*\border\b"),
    entry("h8b_port_swin_shift_ops_roll_raises_on_cpu", "h8-port", MODELS + "mindcv swin_transformer (Roll by slicing)",
          _swin_torch, _swin_ms(True), _swin_ms(False), ("<root>",), ("roll",),
          inputs={"x": uniform(2, 4, 4, 4)}, fails_with="error",
          cause_pattern=r"\broll\b[^\n]*\b(cpu|kernel|unregistered|slic\w*|concat\w*|cat)\b"
                        r"|\b(slic\w*|concat\w*)\b[^\n]*\broll\b"),
    entry("h8b_port_ecapa_tdnn_conv_reflect_padding", "h8-port", MODELS + "SpeechBrain ECAPA-TDNN TDNNBlock port",
          _tdnn_torch, _tdnn_ms(False), _tdnn_ms(True), ("conv",), ("reflect",),
          inputs={"x": uniform(2, 4, 8)},
          cause_pattern=r"\breflect(ion)?\b"),
]
