"""Held-out set 5, half c: real-port vision blocks (ResNeSt, PoolFormer, ConvNeXt V2, SegFormer, Swin, ShuffleNetV2).

Each block is written small, in the style of its public MindSpore port (mindcv, mindnlp) and of the torch
original it follows; the naive port carries one realistic porting mistake, the correct port none.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck import uniform

FAMILY = "h5-port"


# --- ResNeSt split attention: the radix softmax ------------------------------------------------------------

def resnest_torch():
    import torch
    import torch.nn.functional as F
    from torch import nn

    class RadixSoftmax(nn.Module):
        def __init__(self, radix, cardinality):
            super().__init__()
            self.radix, self.cardinality = radix, cardinality

        def forward(self, x):
            batch = x.size(0)
            x = x.view(batch, self.cardinality, self.radix, -1).transpose(1, 2)
            x = F.softmax(x, dim=1)
            return x.reshape(batch, -1)

    class SplitAttn(nn.Module):
        def __init__(self, in_ch=4, out_ch=4, radix=2, groups=2, rd=4):
            super().__init__()
            mid = out_ch * radix
            self.radix = radix
            self.conv = nn.Conv2d(in_ch, mid, 3, padding=1, groups=groups * radix, bias=False)
            self.bn0 = nn.BatchNorm2d(mid)
            self.act0 = nn.ReLU()
            self.fc1 = nn.Conv2d(out_ch, rd, 1, groups=groups)
            self.bn1 = nn.BatchNorm2d(rd)
            self.act1 = nn.ReLU()
            self.fc2 = nn.Conv2d(rd, mid, 1, groups=groups)
            self.rsoftmax = RadixSoftmax(radix, groups)

        def forward(self, x):
            x = self.act0(self.bn0(self.conv(x)))
            b, rc, h, w = x.shape
            x = x.reshape(b, self.radix, rc // self.radix, h, w)
            gap = x.sum(dim=1).mean((2, 3), keepdim=True)
            gap = self.act1(self.bn1(self.fc1(gap)))
            attn = self.rsoftmax(self.fc2(gap)).view(b, -1, 1, 1)
            return (x * attn.reshape(b, self.radix, rc // self.radix, 1, 1)).sum(dim=1)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = SplitAttn()
            self.head = nn.Conv2d(4, 4, 1)

        def forward(self, x):
            return self.head(self.attn(x))

    return Net()


def _resnest_ms(softmax_axis):
    from mindspore import nn, ops

    class RadixSoftmax(nn.Cell):
        def __init__(self, radix, cardinality):
            super().__init__()
            self.radix, self.cardinality = radix, cardinality
            self.softmax = ops.Softmax() if softmax_axis is None else ops.Softmax(axis=softmax_axis)

        def construct(self, x):
            batch = x.shape[0]
            x = ops.reshape(x, (batch, self.cardinality, self.radix, -1))
            x = ops.transpose(x, (0, 2, 1, 3))
            x = self.softmax(x)
            return ops.reshape(x, (batch, -1))

    class SplitAttn(nn.Cell):
        def __init__(self, in_ch=4, out_ch=4, radix=2, groups=2, rd=4):
            super().__init__()
            mid = out_ch * radix
            self.radix = radix
            self.conv = nn.Conv2d(in_ch, mid, 3, pad_mode="pad", padding=1, group=groups * radix, has_bias=False)
            self.bn0 = nn.BatchNorm2d(mid)
            self.act0 = nn.ReLU()
            self.fc1 = nn.Conv2d(out_ch, rd, 1, group=groups, has_bias=True)
            self.bn1 = nn.BatchNorm2d(rd)
            self.act1 = nn.ReLU()
            self.fc2 = nn.Conv2d(rd, mid, 1, group=groups, has_bias=True)
            self.rsoftmax = RadixSoftmax(radix, groups)

        def construct(self, x):
            x = self.act0(self.bn0(self.conv(x)))
            b, rc, h, w = x.shape
            x = ops.reshape(x, (b, self.radix, rc // self.radix, h, w))
            gap = ops.mean(x.sum(axis=1), (2, 3), keep_dims=True)
            gap = self.act1(self.bn1(self.fc1(gap)))
            attn = ops.reshape(self.rsoftmax(self.fc2(gap)), (b, self.radix, rc // self.radix, 1, 1))
            return (x * attn).sum(axis=1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.attn = SplitAttn()
            self.head = nn.Conv2d(4, 4, 1, has_bias=True)

        def construct(self, x):
            return self.head(self.attn(x))

    return Net()


# --- PoolFormer block: the pooling token mixer ---------------------------------------------------------------

def poolformer_torch():
    import torch
    from torch import nn

    class Pooling(nn.Module):
        def __init__(self, pool_size=3):
            super().__init__()
            self.pool = nn.AvgPool2d(pool_size, stride=1, padding=pool_size // 2, count_include_pad=False)

        def forward(self, x):
            return self.pool(x) - x

    class Mlp(nn.Module):
        def __init__(self, dim, hidden):
            super().__init__()
            self.fc1 = nn.Conv2d(dim, hidden, 1)
            self.act = nn.GELU()
            self.fc2 = nn.Conv2d(hidden, dim, 1)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class PoolFormerBlock(nn.Module):
        def __init__(self, dim=4, mlp_ratio=2):
            super().__init__()
            self.norm1 = nn.GroupNorm(1, dim)
            self.token_mixer = Pooling(3)
            self.norm2 = nn.GroupNorm(1, dim)
            self.mlp = Mlp(dim, dim * mlp_ratio)
            self.layer_scale_1 = nn.Parameter(torch.ones(dim))
            self.layer_scale_2 = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            x = x + self.layer_scale_1.unsqueeze(-1).unsqueeze(-1) * self.token_mixer(self.norm1(x))
            return x + self.layer_scale_2.unsqueeze(-1).unsqueeze(-1) * self.mlp(self.norm2(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 1)
            self.block = PoolFormerBlock()

        def forward(self, x):
            return self.block(self.stem(x))

    return Net()


def _poolformer_ms(exclude_pad):
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn

    class Pooling(nn.Cell):
        def __init__(self, pool_size=3):
            super().__init__()
            if exclude_pad:  # mindcv's port: 'same' padding is left out of the average
                self.pool = nn.AvgPool2d(pool_size, stride=1, pad_mode="same")
            else:
                self.pool = nn.AvgPool2d(pool_size, stride=1, pad_mode="pad", padding=pool_size // 2)

        def construct(self, x):
            return self.pool(x) - x

    class Mlp(nn.Cell):
        def __init__(self, dim, hidden):
            super().__init__()
            self.fc1 = nn.Conv2d(dim, hidden, 1, has_bias=True)
            self.act = nn.GELU(approximate=False)
            self.fc2 = nn.Conv2d(hidden, dim, 1, has_bias=True)

        def construct(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class PoolFormerBlock(nn.Cell):
        def __init__(self, dim=4, mlp_ratio=2):
            super().__init__()
            self.norm1 = nn.GroupNorm(1, dim)
            self.token_mixer = Pooling(3)
            self.norm2 = nn.GroupNorm(1, dim)
            self.mlp = Mlp(dim, dim * mlp_ratio)
            self.layer_scale_1 = Parameter(Tensor(np.ones(dim), ms.float32), name="layer_scale_1")
            self.layer_scale_2 = Parameter(Tensor(np.ones(dim), ms.float32), name="layer_scale_2")

        def construct(self, x):
            x = x + self.layer_scale_1.reshape(-1, 1, 1) * self.token_mixer(self.norm1(x))
            return x + self.layer_scale_2.reshape(-1, 1, 1) * self.mlp(self.norm2(x))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 4, 1, has_bias=True)
            self.block = PoolFormerBlock()

        def construct(self, x):
            return self.block(self.stem(x))

    return Net()


# --- ConvNeXt V2 block: global response normalization ---------------------------------------------------------

def convnextv2_torch():
    import torch
    from torch import nn

    class GRN(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.gamma = nn.Parameter(torch.zeros(1, 1, 1, dim))
            self.beta = nn.Parameter(torch.zeros(1, 1, 1, dim))

        def forward(self, x):
            gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
            nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
            return self.gamma * (x * nx) + self.beta + x

    class Block(nn.Module):
        def __init__(self, dim=4):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.pwconv1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.grn = GRN(4 * dim)
            self.pwconv2 = nn.Linear(4 * dim, dim)

        def forward(self, x):
            inp = x
            x = self.dwconv(x).permute(0, 2, 3, 1)
            x = self.pwconv2(self.grn(self.act(self.pwconv1(self.norm(x)))))
            return inp + x.permute(0, 3, 1, 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            return self.block(x)

    return Net()


def _convnextv2_ms(lp_norm):
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn, ops

    class GRN(nn.Cell):
        def __init__(self, dim):
            super().__init__()
            self.gamma = Parameter(Tensor(np.zeros([1, 1, 1, dim]), ms.float32), name="gamma")
            self.beta = Parameter(Tensor(np.zeros([1, 1, 1, dim]), ms.float32), name="beta")
            self.norm = ops.LpNorm(axis=[1, 2], p=2, keep_dims=True) if lp_norm else None

        def construct(self, x):
            gx = self.norm(x) if lp_norm else ops.norm(x, ord=2, dim=(1, 2), keepdim=True)
            nx = gx / (ops.mean(gx, axis=-1, keep_dims=True) + 1e-6)
            return self.gamma * (x * nx) + self.beta + x

    class Block(nn.Cell):
        def __init__(self, dim=4):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 7, pad_mode="pad", padding=3, group=dim, has_bias=True)
            self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
            self.pwconv1 = nn.Dense(dim, 4 * dim)
            self.act = nn.GELU(approximate=False)
            self.grn = GRN(4 * dim)
            self.pwconv2 = nn.Dense(4 * dim, dim)

        def construct(self, x):
            inp = x
            x = ops.transpose(self.dwconv(x), (0, 2, 3, 1))
            x = self.pwconv2(self.grn(self.act(self.pwconv1(self.norm(x)))))
            return inp + ops.transpose(x, (0, 3, 1, 2))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def construct(self, x):
            return self.block(x)

    return Net()


# --- SegFormer Mix-FFN: tokens back to a feature map for the depthwise conv ------------------------------------

def segformer_torch():
    from torch import nn

    class DWConv(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 3, 1, 1, bias=True, groups=dim)

        def forward(self, x, height, width):
            b, n, c = x.shape
            x = x.transpose(1, 2).view(b, c, height, width)
            return self.dwconv(x).flatten(2).transpose(1, 2)

    class MixFFN(nn.Module):
        def __init__(self, dim=4, hidden=8, height=2, width=3):
            super().__init__()
            self.height, self.width = height, width
            self.dense1 = nn.Linear(dim, hidden)
            self.dwconv = DWConv(hidden)
            self.intermediate_act_fn = nn.GELU()
            self.dense2 = nn.Linear(hidden, dim)

        def forward(self, x):
            x = self.dwconv(self.dense1(x), self.height, self.width)
            return self.dense2(self.intermediate_act_fn(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_norm_2 = nn.LayerNorm(4)
            self.ffn = MixFFN()

        def forward(self, x):
            return x + self.ffn(self.layer_norm_2(x))

    return Net()


def _segformer_ms(swap_first):
    from mindspore import nn

    class DWConv(nn.Cell):
        def __init__(self, dim):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 3, 1, pad_mode="pad", padding=1, has_bias=True, group=dim)

        def construct(self, x, height, width):
            b, n, c = x.shape
            x = x.swapaxes(1, 2).reshape(b, c, height, width) if swap_first else x.reshape(b, c, height, width)
            x = self.dwconv(x)
            return x.reshape(b, c, -1).swapaxes(1, 2)

    class MixFFN(nn.Cell):
        def __init__(self, dim=4, hidden=8, height=2, width=3):
            super().__init__()
            self.height, self.width = height, width
            self.dense1 = nn.Dense(dim, hidden)
            self.dwconv = DWConv(hidden)
            self.intermediate_act_fn = nn.GELU(approximate=False)
            self.dense2 = nn.Dense(hidden, dim)

        def construct(self, x):
            x = self.dwconv(self.dense1(x), self.height, self.width)
            return self.dense2(self.intermediate_act_fn(x))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer_norm_2 = nn.LayerNorm((4,), epsilon=1e-5)
            self.ffn = MixFFN()

        def construct(self, x):
            return x + self.ffn(self.layer_norm_2(x))

    return Net()


# --- Swin patch merging: the 2x2 neighbourhood gathered into channels ------------------------------------------

def swin_torch():
    import torch
    from torch import nn

    class PatchMerging(nn.Module):
        def __init__(self, resolution=(4, 4), dim=4):
            super().__init__()
            self.resolution = resolution
            self.norm = nn.LayerNorm(4 * dim)
            self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

        def forward(self, x):
            h, w = self.resolution
            b, _, c = x.shape
            x = x.view(b, h, w, c)
            x0 = x[:, 0::2, 0::2, :]
            x1 = x[:, 1::2, 0::2, :]
            x2 = x[:, 0::2, 1::2, :]
            x3 = x[:, 1::2, 1::2, :]
            x = torch.cat([x0, x1, x2, x3], -1).view(b, -1, 4 * c)
            return self.reduction(self.norm(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)
            self.merge = PatchMerging()

        def forward(self, x):
            return self.merge(self.proj(x))

    return Net()


def _swin_ms(perm):
    from mindspore import nn, ops

    class PatchMerging(nn.Cell):
        def __init__(self, resolution=(4, 4), dim=4):
            super().__init__()
            self.resolution = resolution
            self.norm = nn.LayerNorm([4 * dim], epsilon=1e-5)
            self.reduction = nn.Dense(4 * dim, 2 * dim, has_bias=False)

        def construct(self, x):
            h, w = self.resolution
            b, _, c = x.shape
            x = ops.reshape(x, (b, h // 2, 2, w // 2, 2, c))
            x = ops.transpose(x, perm)
            x = ops.reshape(x, (b, (h // 2) * (w // 2), 4 * c))
            return self.reduction(self.norm(x))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = nn.Dense(4, 4)
            self.merge = PatchMerging()

        def construct(self, x):
            return self.merge(self.proj(x))

    return Net()


# --- ShuffleNetV2 unit: channel shuffle after the concat --------------------------------------------------------

def shufflenet_torch():
    import torch
    from torch import nn

    def channel_shuffle(x, groups):
        b, c, h, w = x.size()
        x = x.view(b, groups, c // groups, h, w)
        x = torch.transpose(x, 1, 2).contiguous()
        return x.view(b, -1, h, w)

    class InvertedResidual(nn.Module):
        def __init__(self, oup=8):
            super().__init__()
            f = oup // 2
            self.branch2 = nn.Sequential(
                nn.Conv2d(f, f, 1, bias=False), nn.BatchNorm2d(f), nn.ReLU(),
                nn.Conv2d(f, f, 3, 1, 1, groups=f, bias=False), nn.BatchNorm2d(f),
                nn.Conv2d(f, f, 1, bias=False), nn.BatchNorm2d(f), nn.ReLU())

        def forward(self, x):
            x1, x2 = x.chunk(2, dim=1)
            return channel_shuffle(torch.cat((x1, self.branch2(x2)), 1), 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = InvertedResidual()
            self.head = nn.Conv2d(8, 8, 1)

        def forward(self, x):
            return self.head(self.block(x))

    return Net()


def _shufflenet_ms(groups_first):
    from mindspore import nn, ops

    def channel_shuffle(x, groups):
        b, c, h, w = x.shape
        if groups_first:
            x = ops.reshape(x, (b, groups, c // groups, h, w))
        else:
            x = ops.reshape(x, (b, c // groups, groups, h, w))
        x = ops.transpose(x, (0, 2, 1, 3, 4))
        return ops.reshape(x, (b, -1, h, w))

    class InvertedResidual(nn.Cell):
        def __init__(self, oup=8):
            super().__init__()
            f = oup // 2
            self.branch2 = nn.SequentialCell([
                nn.Conv2d(f, f, 1, has_bias=False), nn.BatchNorm2d(f), nn.ReLU(),
                nn.Conv2d(f, f, 3, 1, pad_mode="pad", padding=1, group=f, has_bias=False), nn.BatchNorm2d(f),
                nn.Conv2d(f, f, 1, has_bias=False), nn.BatchNorm2d(f), nn.ReLU()])

        def construct(self, x):
            x1, x2 = ops.chunk(x, 2, axis=1)
            return channel_shuffle(ops.concat((x1, self.branch2(x2)), axis=1), 2)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = InvertedResidual()
            self.head = nn.Conv2d(8, 8, 1, has_bias=True)

        def construct(self, x):
            return self.head(self.block(x))

    return Net()


ENTRIES = [
    entry("h5c_port_resnest_radix_softmax_default_axis", FAMILY,
          "mindspore-lab/mindcv/mindcv/models/resnest.py (RadixSoftmax, SplitAttn); "
          "torch: huggingface/pytorch-image-models/timm/layers/split_attn.py",
          resnest_torch, lambda: _resnest_ms(None), lambda: _resnest_ms(1),
          layers=("attn.rsoftmax",), causes=("softmax|axis|radix",),
          inputs={"x": uniform(2, 4, 4, 4)},
          cause_pattern=r"\bsoftmax\b[^.\n]*\b(axis|dim)\s*=?\s*1\b|\b(axis|dim)\s*=?\s*1\b[^.\n]*\bsoftmax\b"
                        r"|\bsoftmax\b[^.\n]*\bradix\b[^.\n]*\b(axis|dim(ension)?)\b"),
    entry("h5c_port_poolformer_pool_counts_padding", FAMILY,
          "mindspore-lab/mindcv/mindcv/models/poolformer.py (Pooling); "
          "torch: sail-sg/poolformer/models/poolformer.py (Pooling, count_include_pad=False)",
          poolformer_torch, lambda: _poolformer_ms(False), lambda: _poolformer_ms(True),
          layers=("block.token_mixer.pool",), causes=("count_include_pad|padding",),
          inputs={"x": uniform(2, 3, 5, 5)},
          cause_pattern=r"\bcount_include_pad\b[^.\n]*\bfalse\b|\bfalse\b[^.\n]*\bcount_include_pad\b"
                        r"|\bpad_mode\b[^.\n]*\bsame\b"),
    entry("h5c_port_convnextv2_grn_ops_norm_matrix_2norm", FAMILY,
          "mindspore-lab/mindcv/mindcv/models/convnext.py (GRN, ops.LpNorm); "
          "torch: facebookresearch/ConvNeXt-V2/models/utils.py (GRN, torch.norm(p=2, dim=(1, 2)))",
          convnextv2_torch, lambda: _convnextv2_ms(False), lambda: _convnextv2_ms(True),
          layers=("block.grn",), causes=("norm|LpNorm|matrix",),
          inputs={"x": uniform(2, 4, 6, 6)},
          cause_pattern=r"\bLpNorm\b|\bvector_norm\b|\bnn\.Norm\b|\bfrobenius\b|\bord\s*=\s*['\"]fro['\"]"
                        r"|\b(matrix|spectral|singular)\b[^.\n]*\bnorm\b|\bnorm\b[^.\n]*\b(matrix|spectral|singular)\b"),
    entry("h5c_port_segformer_mixffn_tokens_reshaped_untransposed", FAMILY,
          "mindspore-lab/mindnlp/mindnlp/transformers/models/segformer/modeling_segformer.py (SegformerDWConv); "
          "torch: huggingface/transformers/src/transformers/models/segformer/modeling_segformer.py",
          segformer_torch, lambda: _segformer_ms(False), lambda: _segformer_ms(True),
          layers=("ffn.dwconv",), causes=("transpose|swapaxes|reshape",),
          inputs={"x": uniform(2, 6, 4)},
          cause_pattern=r"\b(transpose|swapaxes|permute)\w*\b[^.\n]*\b(1, ?2|0, ?2, ?1|-1, ?-2)\b"
                        r"|\b(1, ?2|0, ?2, ?1)\b[^.\n]*\b(transpose|swapaxes|permute)\w*\b"
                        r"|\b(reshape|view)\w*\b[^.\n]*\bwithout\b[^.\n]*\b(transpos|swap|permut)\w*"),
    entry("h5c_port_swin_patch_merging_neighbour_order", FAMILY,
          "mindspore-lab/mindcv/mindcv/models/swin_transformer.py (PatchMerging); "
          "torch: microsoft/Swin-Transformer/models/swin_transformer.py (PatchMerging x0..x3); the port's "
          "reshape+permute layout as in huggingface/pytorch-image-models/timm/models/swin_transformer.py",
          swin_torch, lambda: _swin_ms((0, 1, 3, 2, 4, 5)), lambda: _swin_ms((0, 1, 3, 4, 2, 5)),
          layers=("merge",), causes=("transpose|order|x1|x2",),
          inputs={"x": uniform(2, 16, 4)},
          cause_pattern=r"\(\s*0,\s*1,\s*3,\s*4,\s*2,\s*5\s*\)|\bx1\b[^.\n]*\bx2\b|\bx2\b[^.\n]*\bx1\b"
                        r"|\b(row|height)\b[^.\n]*\b(column|width)\b[^.\n]*\b(order|swap\w*)\b"),
    entry("h5c_port_shufflenetv2_channel_shuffle_groups_last", FAMILY,
          "mindspore-lab/mindcv/mindcv/models/shufflenetv2.py (channel shuffle); "
          "torch: pytorch/vision/torchvision/models/shufflenetv2.py (channel_shuffle, InvertedResidual)",
          shufflenet_torch, lambda: _shufflenet_ms(False), lambda: _shufflenet_ms(True),
          layers=("block",), causes=("channel_shuffle|shuffle|groups",),
          inputs={"x": uniform(2, 8, 4, 4)},
          cause_pattern=r"\bchannel[_ ]shuffle\b[^.\n]*\b(groups?|reshape|view|transpose)\b"
                        r"|\b(reshape|view)\b[^.\n]*\(\s*b\w*,\s*(2|groups)\s*,\s*c\w*\s*//"),
]
