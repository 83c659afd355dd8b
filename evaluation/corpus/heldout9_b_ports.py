"""Held-out set 9, half b: eight small model blocks, each ported the way a model-zoo port writes it, with one
API difference in the naive port (written blind to migcheck's localization code)."""
from __future__ import annotations

import mindspore as ms
import torch
from mindspore import nn as msnn
from mindspore import ops
from torch import nn
from torch.nn import functional as F

from evaluation.corpus.build import entry
from migcheck import uniform

H9P = "h9-port"


# --- SqueezeNet stem + Fire (mindcv squeezenet) -------------------------------------------------------------
class SqueezeStemPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.squeeze = nn.Conv2d(8, 4, 1)
        self.expand1x1 = nn.Conv2d(4, 8, 1)
        self.expand3x3 = nn.Conv2d(4, 8, 3, padding=1)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        s = F.relu(self.squeeze(x))
        return torch.cat([F.relu(self.expand1x1(s)), F.relu(self.expand3x3(s))], 1)


class SqueezeStemMs(ms.nn.Cell):
    def __init__(self, pool):
        super().__init__()
        self.conv = msnn.Conv2d(3, 8, 3, stride=2, pad_mode="valid", has_bias=True)
        self.pool = pool
        self.squeeze = msnn.Conv2d(8, 4, 1, has_bias=True)
        self.expand1x1 = msnn.Conv2d(4, 8, 1, has_bias=True)
        self.expand3x3 = msnn.Conv2d(4, 8, 3, pad_mode="same", has_bias=True)
        self.relu = msnn.ReLU()

    def construct(self, x):
        x = self.pool(self.relu(self.conv(x)))
        s = self.relu(self.squeeze(x))
        return ops.concat((self.relu(self.expand1x1(s)), self.relu(self.expand3x3(s))), axis=1)


# --- YOLOX head decode (mindyolo yolox head) ----------------------------------------------------------------
class YoloxDecodePt(nn.Module):
    def __init__(self, stride=8):
        super().__init__()
        self.pred = nn.Conv2d(8, 5, 1)
        self.stride = stride

    def forward(self, x):
        p = self.pred(x)
        b, c, h, w = p.shape
        p = p.flatten(2).permute(0, 2, 1)
        yv, xv = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = torch.stack((xv, yv), 2).reshape(1, -1, 2).float()
        xy = (p[..., :2] + grid) * self.stride
        wh = torch.exp(p[..., 2:4]) * self.stride
        return torch.cat([xy, wh, torch.sigmoid(p[..., 4:])], -1)


class YoloxDecodeMs(ms.nn.Cell):
    def __init__(self, indexing, stride=8):
        super().__init__()
        self.pred = msnn.Conv2d(8, 5, 1, has_bias=True)
        self.stride = stride
        self.indexing = indexing

    def construct(self, x):
        p = self.pred(x)
        b, c, h, w = p.shape
        p = p.reshape(b, c, h * w).transpose(0, 2, 1)
        if self.indexing is None:
            yv, xv = ops.meshgrid(ops.arange(h), ops.arange(w))
        else:
            yv, xv = ops.meshgrid(ops.arange(h), ops.arange(w), indexing=self.indexing)
        grid = ops.stack((xv, yv), 2).reshape(1, -1, 2).astype(ms.float32)
        xy = (p[..., :2] + grid) * self.stride
        wh = ops.exp(p[..., 2:4]) * self.stride
        return ops.concat((xy, wh, ops.sigmoid(p[..., 4:])), axis=-1)


# --- PointNet feature extractor, global max pooling ---------------------------------------------------------
class PointFeatPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 16, 1)
        self.bn1 = nn.BatchNorm1d(16)
        self.conv2 = nn.Conv1d(16, 32, 1)
        self.bn2 = nn.BatchNorm1d(32)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        return x.view(-1, 32)


class PointFeatMs(ms.nn.Cell):
    def __init__(self, method_max):
        super().__init__()
        self.conv1 = msnn.Conv1d(3, 16, 1, has_bias=True)
        self.bn1 = msnn.BatchNorm1d(16)
        self.conv2 = msnn.Conv1d(16, 32, 1, has_bias=True)
        self.bn2 = msnn.BatchNorm1d(32)
        self.relu = msnn.ReLU()
        self.method_max = method_max

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.bn2(self.conv2(x)))
        if self.method_max:
            x = x.max(axis=2, keepdims=True)[0]
        else:
            x = ops.max(x, 2, keepdims=True)[0]
        return x.view(-1, 32)


# --- FPN/PAN neck top-down merge with bilinear upsampling (mindocr necks) ------------------------------------
class TopDownPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.lat0 = nn.Conv2d(6, 4, 1)
        self.lat1 = nn.Conv2d(8, 4, 1)
        self.smooth = nn.Conv2d(4, 4, 1)

    def forward(self, c3, c4):
        p4 = self.lat1(c4)
        p3 = self.lat0(c3) + F.interpolate(p4, size=c3.shape[-2:], mode="bilinear", align_corners=False)
        return self.smooth(p3)


class TopDownMs(ms.nn.Cell):
    def __init__(self, resize):
        super().__init__()
        self.lat0 = msnn.Conv2d(6, 4, 1, has_bias=True)
        self.lat1 = msnn.Conv2d(8, 4, 1, has_bias=True)
        self.smooth = msnn.Conv2d(4, 4, 1, has_bias=True)
        self.resize = resize

    def construct(self, c3, c4):
        p4 = self.lat1(c4)
        p3 = self.lat0(c3) + self.resize(p4, c3.shape[-2:])
        return self.smooth(p3)


# --- LLaMA attention with grouped-query heads (mindnlp llama) -----------------------------------------------
class GqaPt(nn.Module):
    def __init__(self, hidden=16, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.o_proj = nn.Linear(heads * self.dim, hidden, bias=False)

    def repeat_kv(self, t):
        b, n, s, d = t.shape
        rep = self.heads // self.kv_heads
        return t[:, :, None, :, :].expand(b, n, rep, s, d).reshape(b, n * rep, s, d)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.dim).transpose(1, 2)
        k = self.repeat_kv(self.k_proj(x).view(b, s, self.kv_heads, self.dim).transpose(1, 2))
        v = self.repeat_kv(self.v_proj(x).view(b, s, self.kv_heads, self.dim).transpose(1, 2))
        attn = torch.softmax(q @ k.transpose(2, 3) / self.dim ** 0.5, dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out)


class GqaMs(ms.nn.Cell):
    def __init__(self, tile, hidden=16, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.q_proj = msnn.Dense(hidden, heads * self.dim, has_bias=False)
        self.k_proj = msnn.Dense(hidden, kv_heads * self.dim, has_bias=False)
        self.v_proj = msnn.Dense(hidden, kv_heads * self.dim, has_bias=False)
        self.o_proj = msnn.Dense(heads * self.dim, hidden, has_bias=False)
        self.tile = tile

    def repeat_kv(self, t):
        rep = self.heads // self.kv_heads
        if self.tile:
            return ops.tile(t, (1, rep, 1, 1))
        return ops.repeat_interleave(t, rep, 1)

    def construct(self, x):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.dim).transpose(0, 2, 1, 3)
        k = self.repeat_kv(self.k_proj(x).view(b, s, self.kv_heads, self.dim).transpose(0, 2, 1, 3))
        v = self.repeat_kv(self.v_proj(x).view(b, s, self.kv_heads, self.dim).transpose(0, 2, 1, 3))
        attn = ops.softmax(ops.matmul(q, k.swapaxes(2, 3)) / self.dim ** 0.5, axis=-1)
        out = ops.matmul(attn, v).transpose(0, 2, 1, 3).reshape(b, s, -1)
        return self.o_proj(out)


# --- ViT patch embedding (mindcv vit) -----------------------------------------------------------------------
class PatchEmbedPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, 4, stride=4)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


class PatchEmbedMs(ms.nn.Cell):
    def __init__(self, positional):
        super().__init__()
        self.proj = msnn.Conv2d(3, 8, 4, stride=4, pad_mode="valid", has_bias=True)
        self.norm = msnn.LayerNorm((8,), epsilon=1e-5)
        self.positional = positional

    def construct(self, x):
        x = self.proj(x)
        x = ops.flatten(x, 2) if self.positional else ops.flatten(x, start_dim=2)
        return self.norm(x.transpose(0, 2, 1))


# --- ResNet stem: conv-bn-relu + 3x3/2 max pool (mindcv resnet) ---------------------------------------------
class ResStemPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(4)
        self.maxpool = nn.MaxPool2d(3, 2, padding=1)

    def forward(self, x):
        return self.maxpool(F.relu(self.bn1(self.conv1(x))))


class ResStemMs(ms.nn.Cell):
    def __init__(self, pool):
        super().__init__()
        self.conv1 = msnn.Conv2d(3, 4, 3, stride=2, pad_mode="pad", padding=1)
        self.bn1 = msnn.BatchNorm2d(4)
        self.relu = msnn.ReLU()
        self.maxpool = pool

    def construct(self, x):
        return self.maxpool(self.relu(self.bn1(self.conv1(x))))


# --- YOLOX BaseConv: conv-bn-silu with YOLOX's BatchNorm settings (mindyolo) ---------------------------------
class BaseConvPt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 1, bias=False)
        self.bn = nn.BatchNorm2d(8, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class BaseConvMs(ms.nn.Cell):
    def __init__(self, momentum):
        super().__init__()
        self.conv = msnn.Conv2d(4, 8, 1, has_bias=False)
        self.bn = msnn.BatchNorm2d(8, eps=1e-3, momentum=momentum)
        self.act = msnn.SiLU()

    def construct(self, x):
        return self.act(self.bn(self.conv(x)))


ENTRIES = [
    entry("h9b_port_squeezenet_stem_maxpool_ceil_mode", H9P, "model:mindcv squeezenet (torchvision squeezenet1_1)",
          SqueezeStemPt, lambda: SqueezeStemMs(msnn.MaxPool2d(kernel_size=3, stride=2)),
          lambda: SqueezeStemMs(msnn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", ceil_mode=True)),
          ("pool",), ("ceil_mode|maxpool",), inputs={"x": uniform(2, 3, 17, 17)}, fails_with="shape",
          cause_pattern=r"\bceil_mode\b[^.]*\bTrue\b|\bceil_mode\s*=\s*True\b"),
    entry("h9b_port_yolox_decode_grid_meshgrid_indexing", H9P, "model:mindyolo yolox head decode (YOLOX get_output_and_grid)",
          YoloxDecodePt, lambda: YoloxDecodeMs(None), lambda: YoloxDecodeMs("ij"),
          ("after:pred",), ("meshgrid|indexing|ij|xy",), inputs={"x": uniform(2, 8, 3, 4)},
          cause_pattern=r"\bmeshgrid\b[^.]*\bindexing\b[^.]*\bij\b|\bindexing\s*=\s*['\"]?ij\b|\bmeshgrid\b[^.]*\b(xy|ij)\b"),
    entry("h9b_port_pointnet_global_max_tensor_method_values", H9P, "model:PointNet PointNetfeat (fxia22/pointnet.pytorch)",
          PointFeatPt, lambda: PointFeatMs(True), lambda: PointFeatMs(False),
          ("after:bn2",), ("max|values|indices",), inputs={"x": uniform(2, 3, 10)}, fails_with="shape",
          cause_pattern=r"\bops\.max\b|\breturn_indices\b|\bmax\b[^.]*\b(only|just)\b[^.]*\bvalues?\b"
                        r"|\bmax\b[^.]*\bvalues?\b[^.]*\b(only|not|without)\b[^.]*\bindices\b"),
    entry("h9b_port_fpn_topdown_resize_bilinear_v2_pixel_centers", H9P, "model:mindocr FPN/PAN neck (ResizeBilinearV2)",
          TopDownPt, lambda: TopDownMs(ops.ResizeBilinearV2()),
          lambda: TopDownMs(ops.ResizeBilinearV2(half_pixel_centers=True)),
          ("after:lat1",), ("half_pixel_centers|bilinear",), inputs={"c3": uniform(2, 6, 8, 8), "c4": uniform(2, 8, 4, 4)},
          cause_pattern=r"\bhalf_pixel_centers\b[^.]*\bTrue\b|\binterpolate\b[^.]*\balign_corners\s*=\s*False\b"),
    entry("h9b_port_llama_gqa_repeat_kv_head_order", H9P, "model:mindnlp llama attention repeat_kv (transformers LlamaAttention)",
          GqaPt, lambda: GqaMs(True), lambda: GqaMs(False),
          ("after:k_proj",), ("repeat_kv|repeat_interleave|tile",), inputs={"x": uniform(2, 5, 16)},
          cause_pattern=r"\brepeat_interleave\b|\brepeat_elements\b|\btile\b[^.]*\binterleav\w*"),
    entry("h9b_port_vit_patch_embed_flatten_start_dim_keyword_raises", H9P,
          "model:mindcv vit PatchEmbedding (timm PatchEmbed); ops.flatten start_dim is keyword-only",
          PatchEmbedPt, lambda: PatchEmbedMs(True), lambda: PatchEmbedMs(False),
          ("after:proj",), ("flatten|start_dim|order",), inputs={"x": uniform(2, 3, 8, 8)}, fails_with="error",
          cause_pattern=r"\bstart_dim\s*=\s*2\b|\bstart_dim\b[^.]*\bkeyword\b|\bflatten\b[^.]*\border\b"),
    entry("h9b_port_resnet_stem_maxpool_same_pad_mode", H9P, "model:mindcv resnet stem (torchvision resnet maxpool padding=1)",
          ResStemPt, lambda: ResStemMs(msnn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")),
          lambda: ResStemMs(msnn.MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1)),
          ("maxpool",), ("pad_mode|padding|same",), inputs={"x": uniform(2, 3, 16, 16)},
          cause_pattern=r"\bpad_mode\s*=\s*['\"]?pad\b|\bpadding\s*=\s*1\b|\bpad_mode\b[^.]*\bsame\b[^.]*\basymmetric"),
    entry("h9b_port_yolox_baseconv_bn_momentum_copied", H9P, "model:mindyolo yolox BaseConv (BatchNorm2d eps=1e-3, momentum=0.03)",
          BaseConvPt, lambda: BaseConvMs(0.03), lambda: BaseConvMs(0.97),
          ("bn",), ("momentum",), inputs={"x": uniform(4, 4, 3, 3)}, checks=("train",),
          cause_pattern=r"\bmomentum\b[^.]*\b0\.97\b|\b1\s*-\s*momentum\b"),
]
