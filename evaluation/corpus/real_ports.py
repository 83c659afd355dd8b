"""Model-zoo blocks ported as porters write them: renamed and re-registered children, fused BN+activation,
functional ops in construct, pad_mode='same', transposed Conv1D weights. Written from the public
architectures (ResNet, MobileNetV3, ViT, BERT, UNet, GPT-2); none is taken from timm/mindcv/mindnlp/mindformers.
"""
import math

import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry, renamer
from migcheck import uniform
from migcheck.transforms import transpose


# --- ResNet BasicBlock with a projection shortcut; the port renames everything and pads with 'same'. ---

class BasicBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
        self.bn1 = tnn.BatchNorm2d(4)
        self.relu = tnn.ReLU(inplace=True)
        self.conv2 = tnn.Conv2d(4, 4, 3, padding=1, bias=False)
        self.bn2 = tnn.BatchNorm2d(4, eps=1e-3)
        self.downsample = tnn.Sequential(tnn.Conv2d(2, 4, 1, stride=2, bias=False), tnn.BatchNorm2d(4))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + self.downsample(x))


class BasicBlockMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.shortcut = mnn.SequentialCell([mnn.Conv2d(2, 4, 1, stride=2, pad_mode="same"), mnn.BatchNorm2d(4)])
        self.conv_a = mnn.Conv2d(2, 4, 3, stride=2, pad_mode="same" if bad else "pad", padding=0 if bad else 1)
        self.bn_a = mnn.BatchNorm2d(4)
        self.conv_b = mnn.Conv2d(4, 4, 3, pad_mode="same")  # stride 1, odd kernel: same pads like padding=1
        self.bn_b = mnn.BatchNorm2d(4, eps=1e-5 if bad else 1e-3)
        self.act = mnn.ReLU()

    def construct(self, x):
        out = self.act(self.bn_a(self.conv_a(x)))
        return self.act(self.bn_b(self.conv_b(out)) + self.shortcut(x))


RESNET_MAP = renamer([("conv1", "conv_a"), ("bn1", "bn_a"), ("conv2", "conv_b"), ("bn2", "bn_b"),
                      ("downsample.0", "shortcut.0"), ("downsample.1", "shortcut.1")], norms=("bn1", "bn2", "downsample.1"))


# --- MobileNetV3 inverted residual with squeeze-excite; torch fuses BN+Hardswish, SE uses functional ops. ---

class ConvBnActPt(tnn.Module):
    def __init__(self, cin, cout, k, stride=1, groups=1):
        super().__init__()
        self.conv = tnn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False)
        self.bn = tnn.BatchNorm2d(cout)

    def forward(self, x):
        return F.hardswish(self.bn(self.conv(x)))


class InvertedResidualPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.expand = ConvBnActPt(2, 8, 1)
        self.dw = ConvBnActPt(8, 8, 3, stride=2, groups=8)
        self.se_reduce = tnn.Conv2d(8, 4, 1)
        self.se_expand = tnn.Conv2d(4, 8, 1)
        self.project = tnn.Conv2d(8, 4, 1, bias=False)

    def forward(self, x):
        y = self.dw(self.expand(x))
        s = F.hardsigmoid(self.se_expand(F.relu(self.se_reduce(y.mean((2, 3), keepdim=True)))))
        return self.project(y * s)


class InvertedResidualMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.expand_conv = mnn.Conv2d(2, 8, 1)
        self.expand_bn = mnn.BatchNorm2d(8)
        self.dw_conv = mnn.Conv2d(8, 8, 3, stride=2, pad_mode="same" if bad else "pad", padding=0 if bad else 1, group=8)
        self.dw_bn = mnn.BatchNorm2d(8)
        self.hswish = mnn.HSwish()
        self.se = mnn.SequentialCell([mnn.Conv2d(8, 4, 1, has_bias=True), mnn.ReLU(), mnn.Conv2d(4, 8, 1, has_bias=True),
                                      mnn.HSigmoid()])
        self.project = mnn.Conv2d(8, 4, 1)

    def construct(self, x):
        y = self.hswish(self.dw_bn(self.dw_conv(self.hswish(self.expand_bn(self.expand_conv(x))))))
        return self.project(y * self.se(y.mean((2, 3), keep_dims=True)))


MOBILE_MAP = renamer([("expand.conv", "expand_conv"), ("expand.bn", "expand_bn"), ("dw.conv", "dw_conv"),
                      ("dw.bn", "dw_bn"), ("se_reduce", "se.0"), ("se_expand", "se.2")], norms=("expand.bn", "dw.bn"))


# --- ViT encoder block (pre-norm, fused qkv); the port has two defects in the defective variant. ---

DIM, HEADS = 8, 2


class AttentionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = tnn.Linear(DIM, 3 * DIM)
        self.proj = tnn.Linear(DIM, DIM)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, HEADS, c // HEADS).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) * (c // HEADS) ** -0.5
        return self.proj((attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, c))


class AttentionMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.qkv = mnn.Dense(DIM, 3 * DIM)
        self.out = mnn.Dense(DIM, DIM)
        self.scale = (DIM // HEADS) ** -0.5

    def construct(self, x):
        b, n, c = x.shape
        q, k, v = ops.unstack(self.qkv(x).reshape(b, n, 3, HEADS, c // HEADS).transpose(2, 0, 3, 1, 4), axis=0)
        attn = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) * self.scale, axis=-1)
        return self.out(ops.matmul(attn, v).swapaxes(1, 2).reshape(b, n, c))


class VitBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = tnn.LayerNorm(DIM, eps=1e-6)
        self.attn = AttentionPt()
        self.norm2 = tnn.LayerNorm(DIM, eps=1e-6)
        self.mlp = tnn.Sequential(tnn.Linear(DIM, 16), tnn.GELU(), tnn.Linear(16, DIM))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VitBlockMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.ln_1 = mnn.LayerNorm((DIM,), epsilon=1e-6)
        self.attention = AttentionMs()
        self.ln_2 = mnn.LayerNorm((DIM,), epsilon=1e-2 if bad else 1e-6)
        self.fc1 = mnn.Dense(DIM, 16)
        self.act = mnn.GELU(approximate=bad)
        self.fc2 = mnn.Dense(16, DIM)

    def construct(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.fc2(self.act(self.fc1(self.ln_2(x))))


VIT_MAP = renamer([("norm1", "ln_1"), ("norm2", "ln_2"), ("attn.proj", "attention.out"), ("attn.qkv", "attention.qkv"),
                   ("mlp.0", "fc1"), ("mlp.2", "fc2")], norms=("norm1", "norm2"))


# --- BERT layer: separate q/k/v, attention mask, post-norm with eps=1e-12, intermediate GELU. ---

class BertLayerPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = tnn.Linear(DIM, DIM), tnn.Linear(DIM, DIM), tnn.Linear(DIM, DIM)
        self.attn_out = tnn.Linear(DIM, DIM)
        self.attn_norm = tnn.LayerNorm(DIM, eps=1e-12)
        self.intermediate = tnn.Linear(DIM, 16)
        self.output = tnn.Linear(16, DIM)
        self.out_norm = tnn.LayerNorm(DIM, eps=1e-12)

    def forward(self, x):
        b, n, _ = x.shape

        def heads(t):
            return t.view(b, n, HEADS, DIM // HEADS).transpose(1, 2)

        scores = heads(self.query(x)) @ heads(self.key(x)).transpose(-1, -2) / math.sqrt(DIM // HEADS)
        ctx = (scores.softmax(-1) @ heads(self.value(x))).transpose(1, 2).reshape(b, n, DIM)
        h = self.attn_norm(self.attn_out(ctx) + x)
        return self.out_norm(self.output(F.gelu(self.intermediate(h))) + h)


class BertLayerMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.q, self.k, self.v = mnn.Dense(DIM, DIM), mnn.Dense(DIM, DIM), mnn.Dense(DIM, DIM)
        self.dense = mnn.Dense(DIM, DIM)
        self.layernorm1 = mnn.LayerNorm((DIM,), epsilon=1e-12)
        self.ffn_in = mnn.Dense(DIM, 16)
        self.ffn_out = mnn.Dense(16, DIM)
        self.layernorm2 = mnn.LayerNorm((DIM,), epsilon=1e-12)
        self.bad = bad

    def construct(self, x):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        k = self.k(x).view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        v = self.v(x).view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        scores = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(DIM // HEADS)
        probs = ops.softmax(scores, axis=2 if self.bad else -1)
        ctx = ops.matmul(probs, v).swapaxes(1, 2).reshape(b, n, DIM)
        h = self.layernorm1(self.dense(ctx) + x)
        return self.layernorm2(self.ffn_out(ops.gelu(self.ffn_in(h))) + h)


BERT_MAP = renamer([("query", "q"), ("key", "k"), ("value", "v"), ("attn_out", "dense"), ("attn_norm", "layernorm1"),
                    ("intermediate", "ffn_in"), ("output", "ffn_out"), ("out_norm", "layernorm2")],
                   norms=("attn_norm", "out_norm"))


# --- UNet up block: bilinear upsampling (align_corners=True) as a functional op, skip concat, conv. ---

class UpBlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.reduce = tnn.Conv2d(4, 2, 1)
        self.conv = tnn.Conv2d(4, 2, 1)
        self.norm = tnn.BatchNorm2d(2)

    def forward(self, x, skip):
        up = F.interpolate(self.reduce(x), scale_factor=2, mode="bilinear", align_corners=True)
        return F.relu(self.norm(self.conv(torch.cat([up, skip], dim=1))))


class UpBlockMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.reduce = mnn.Conv2d(4, 2, 1, has_bias=True)
        self.fuse = mnn.Conv2d(4, 2, 1, has_bias=True)
        self.bn = mnn.BatchNorm2d(2)
        self.relu = mnn.ReLU()
        self.align = not bad

    def construct(self, x, skip):
        h, w = x.shape[2], x.shape[3]
        up = ops.interpolate(self.reduce(x), size=(2 * h, 2 * w), mode="bilinear", align_corners=self.align)
        return self.relu(self.bn(self.fuse(ops.concat((up, skip), axis=1))))


UNET_MAP = renamer([("conv", "fuse"), ("norm", "bn")], norms=("norm",))


# --- GPT-2 block: Conv1D (transposed Linear weights), causal attention, gelu_new (tanh GELU). ---

class Conv1DPt(tnn.Module):
    """GPT-2's Conv1D: y = x @ W + b with W of shape (in, out)."""

    def __init__(self, nin, nout):
        super().__init__()
        self.weight = tnn.Parameter(torch.empty(nin, nout))
        self.bias = tnn.Parameter(torch.zeros(nout))

    def forward(self, x):
        return x @ self.weight + self.bias


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2BlockPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = tnn.LayerNorm(DIM)
        self.c_attn = Conv1DPt(DIM, 3 * DIM)
        self.c_proj = Conv1DPt(DIM, DIM)
        self.ln_2 = tnn.LayerNorm(DIM)
        self.c_fc = Conv1DPt(DIM, 16)
        self.mlp_proj = Conv1DPt(16, DIM)
        self.register_buffer("mask", torch.tril(torch.ones(4, 4)).bool(), persistent=False)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(DIM, dim=2)
        q, k, v = (t.view(b, n, HEADS, DIM // HEADS).transpose(1, 2) for t in (q, k, v))
        w = (q @ k.transpose(-1, -2)) / math.sqrt(DIM // HEADS)
        w = torch.where(self.mask[:n, :n], w, torch.finfo(w.dtype).min)
        x = x + self.c_proj((w.softmax(-1) @ v).transpose(1, 2).reshape(b, n, DIM))
        return x + self.mlp_proj(gelu_new(self.c_fc(self.ln_2(x))))


class Gpt2BlockMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.ln_1 = mnn.LayerNorm((DIM,), epsilon=1e-5)
        self.attn_in = mnn.Dense(DIM, 3 * DIM)
        self.attn_out = mnn.Dense(DIM, DIM)
        self.ln_2 = mnn.LayerNorm((DIM,), epsilon=1e-5)
        self.fc = mnn.Dense(DIM, 16)
        self.act = mnn.GELU(approximate=not bad)
        self.proj = mnn.Dense(16, DIM)

    def construct(self, x):
        b, n, _ = x.shape
        q, k, v = ops.split(self.attn_in(self.ln_1(x)), DIM, axis=2)
        q = q.view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        k = k.view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        v = v.view(b, n, HEADS, DIM // HEADS).swapaxes(1, 2)
        w = ops.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(DIM // HEADS)
        mask = ops.tril(ops.ones((n, n), w.dtype)) > 0
        w = ops.where(mask, w, ops.full_like(w, -3.4028234663852886e38))
        x = x + self.attn_out(ops.matmul(ops.softmax(w, axis=-1), v).swapaxes(1, 2).reshape(b, n, DIM))
        return x + self.proj(self.act(self.fc(self.ln_2(x))))


GPT2_MAP = renamer([("c_attn", "attn_in"), ("c_proj", "attn_out"), ("c_fc", "fc"), ("mlp_proj", "proj"),
                    ("ln_1", "ln_1"), ("ln_2", "ln_2")], norms=("ln_1", "ln_2"))
GPT2_T = {name: transpose(1, 0) for name in ("c_attn.weight", "c_proj.weight", "c_fc.weight", "mlp_proj.weight")}

IMG = {"x": uniform(2, 2, 8, 8)}
TOKENS = {"x": uniform(2, 4, DIM)}

ENTRIES = [
    entry("resnet_basic_block", "real-port", "model:ResNet BasicBlock (He et al. 2015; torchvision layout)",
          BasicBlockPt, lambda: BasicBlockMs(True), BasicBlockMs, ["conv1", "bn2"], ["pad-mode", "batchnorm-eps|eps"],
          inputs=IMG, weight_map=RESNET_MAP),
    entry("mobilenetv3_inverted_residual", "real-port", "model:MobileNetV3 inverted residual with SE",
          InvertedResidualPt, lambda: InvertedResidualMs(True), InvertedResidualMs, ["dw.conv"], ["pad-mode"],
          inputs=IMG, weight_map=MOBILE_MAP),
    entry("vit_encoder_block", "real-port", "model:ViT encoder block (pre-norm, fused qkv)",
          VitBlockPt, lambda: VitBlockMs(True), VitBlockMs, ["norm2", "mlp.1"], ["layernorm-eps|eps", "gelu-approximate"],
          inputs=TOKENS, weight_map=VIT_MAP),
    entry("bert_layer", "real-port", "model:BERT encoder layer (post-norm, separate q/k/v)",
          BertLayerPt, lambda: BertLayerMs(True), BertLayerMs, ["after:value"], ["axis|dim"],
          inputs=TOKENS, weight_map=BERT_MAP),
    entry("unet_up_block", "real-port", "model:UNet up block (bilinear upsampling, skip concat)",
          UpBlockPt, lambda: UpBlockMs(True), UpBlockMs, ["after:reduce"], ["align_corners|align-corners"],
          inputs={"x": uniform(2, 4, 3, 3), "skip": uniform(2, 2, 6, 6)}, weight_map=UNET_MAP),
    entry("gpt2_block", "real-port", "model:GPT-2 block (Conv1D weights, causal mask, gelu_new)",
          Gpt2BlockPt, lambda: Gpt2BlockMs(True), Gpt2BlockMs, ["after:c_fc"], ["gelu|tanh|approximat"],
          inputs=TOKENS, weight_map=GPT2_MAP, weight_transforms=GPT2_T),
]
