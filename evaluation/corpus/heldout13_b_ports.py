"""Held-out set 13, half b: small model blocks (family h13-port), each ported the way MindSpore model-zoo ports are
written (mindspore.nn cells, mindspore.ops primitives and functions), each naive port with one API mistake.
Written blind (see heldout13.py). Shapes are tiny (CPU)."""
from __future__ import annotations

import mindspore.nn as mnn
import mindspore.ops as mops
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry
from migcheck import uniform

FAMILY = "h13-port"


# --- CBAM (channel gate + spatial gate); the spatial gate's BasicConv has BatchNorm2d(momentum=0.01) ------------

class _TorchBasicConv(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(2, 1, 7, padding=3, bias=False)
        self.bn = tnn.BatchNorm2d(1, eps=1e-5, momentum=0.01, affine=True)

    def forward(self, x):
        return self.bn(self.conv(x))


class _TorchChannelGate(tnn.Module):
    def __init__(self, c=8, r=2):
        super().__init__()
        self.mlp = tnn.Sequential(tnn.Flatten(), tnn.Linear(c, c // r), tnn.ReLU(), tnn.Linear(c // r, c))

    def forward(self, x):
        avg = self.mlp(x.mean((2, 3), keepdim=True))
        mx = self.mlp(x.amax((2, 3), keepdim=True))
        return x * torch.sigmoid(avg + mx)[:, :, None, None]


class _TorchSpatialGate(tnn.Module):
    def __init__(self):
        super().__init__()
        self.spatial = _TorchBasicConv()

    def forward(self, x):
        pooled = torch.cat((torch.max(x, 1)[0].unsqueeze(1), torch.mean(x, 1).unsqueeze(1)), dim=1)
        return x * torch.sigmoid(self.spatial(pooled))


class TorchCBAM(tnn.Module):
    def __init__(self):
        super().__init__()
        self.channel_gate = _TorchChannelGate()
        self.spatial_gate = _TorchSpatialGate()

    def forward(self, x):
        return self.spatial_gate(self.channel_gate(x))


class _MsBasicConv(mnn.Cell):
    def __init__(self, momentum):
        super().__init__()
        self.conv = mnn.Conv2d(2, 1, 7, pad_mode="pad", padding=3)
        self.bn = mnn.BatchNorm2d(1, eps=1e-5, momentum=momentum)

    def construct(self, x):
        return self.bn(self.conv(x))


class _MsChannelGate(mnn.Cell):
    def __init__(self, c=8, r=2):
        super().__init__()
        self.mlp = mnn.SequentialCell([mnn.Flatten(), mnn.Dense(c, c // r), mnn.ReLU(), mnn.Dense(c // r, c)])

    def construct(self, x):
        avg = self.mlp(mops.mean(x, (2, 3), True))
        mx = self.mlp(mops.amax(x, (2, 3), True))
        return x * mops.sigmoid(avg + mx)[:, :, None, None]


class _MsSpatialGate(mnn.Cell):
    def __init__(self, momentum):
        super().__init__()
        self.spatial = _MsBasicConv(momentum)

    def construct(self, x):
        pooled = mops.cat((mops.amax(x, 1, True), mops.mean(x, 1, True)), axis=1)
        return x * mops.sigmoid(self.spatial(pooled))


class MsCBAM(mnn.Cell):
    def __init__(self, momentum):
        super().__init__()
        self.channel_gate = _MsChannelGate()
        self.spatial_gate = _MsSpatialGate(momentum)

    def construct(self, x):
        return self.spatial_gate(self.channel_gate(x))


# --- VAE encoder with a Gaussian head: mu, logvar = head(h).chunk(2, dim=-1) ---------------------------------------

class TorchVAEEncoder(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.head = tnn.Linear(8, 2 * 4)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        mu, logvar = self.head(h).chunk(2, dim=-1)
        return mu, torch.exp(0.5 * logvar)


class MsVAEEncoder(mnn.Cell):
    def __init__(self, split):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.head = mnn.Dense(8, 2 * 4)
        self.relu = mnn.ReLU()
        self.split = split

    def construct(self, x):
        h = self.relu(self.fc1(x))
        mu, logvar = self.split(self.head(h))
        return mu, mops.exp(0.5 * logvar)


# --- SKNet selective-kernel convolution (two branches, attention softmax across branches) ------------------------

class TorchSKConv(tnn.Module):
    def __init__(self, c=4, m=2, g=2, d=4):
        super().__init__()
        self.m = m
        self.convs = tnn.ModuleList([
            tnn.Sequential(tnn.Conv2d(c, c, 3, padding=1 + i, dilation=1 + i, groups=g, bias=False),
                           tnn.BatchNorm2d(c), tnn.ReLU())
            for i in range(m)])
        self.gap = tnn.AdaptiveAvgPool2d(1)
        self.fc = tnn.Sequential(tnn.Conv2d(c, d, 1, bias=False), tnn.BatchNorm2d(d), tnn.ReLU())
        self.fcs = tnn.ModuleList([tnn.Conv2d(d, c, 1) for _ in range(m)])
        self.softmax = tnn.Softmax(dim=1)

    def forward(self, x):
        b, c = x.shape[:2]
        feats = torch.stack([conv(x) for conv in self.convs], dim=1)
        z = self.fc(self.gap(feats.sum(1)))
        att = torch.cat([fc(z) for fc in self.fcs], dim=1).view(b, self.m, c, 1, 1)
        att = self.softmax(att)
        return (feats * att).sum(1)


class MsSKConv(mnn.Cell):
    def __init__(self, softmax, c=4, m=2, g=2, d=4):
        super().__init__()
        self.m = m
        self.convs = mnn.CellList([
            mnn.SequentialCell([mnn.Conv2d(c, c, 3, pad_mode="pad", padding=1 + i, dilation=1 + i, group=g),
                                mnn.BatchNorm2d(c), mnn.ReLU()])
            for i in range(m)])
        self.fc = mnn.SequentialCell([mnn.Conv2d(c, d, 1), mnn.BatchNorm2d(d), mnn.ReLU()])
        self.fcs = mnn.CellList([mnn.Conv2d(d, c, 1, has_bias=True) for _ in range(m)])
        self.softmax = softmax

    def construct(self, x):
        b, c = x.shape[:2]
        feats = mops.stack([conv(x) for conv in self.convs], axis=1)
        z = self.fc(mops.mean(feats.sum(1), (2, 3), True))
        att = mops.cat([fc(z) for fc in self.fcs], axis=1).view(b, self.m, c, 1, 1)
        att = self.softmax(att)
        return (feats * att).sum(1)


# --- SSD: conv4_3 L2Norm (learned per-channel scale) followed by a multibox location head ------------------------

class _TorchL2Norm(tnn.Module):
    def __init__(self, channels=8, eps=1e-10):
        super().__init__()
        self.eps = eps
        self.weight = tnn.Parameter(torch.full((channels,), 20.0))

    def forward(self, x):
        norm = x.pow(2).sum(dim=1, keepdim=True).sqrt() + self.eps
        return self.weight[None, :, None, None] * (x / norm)


class TorchSSDHead(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 8, 1)
        self.l2norm = _TorchL2Norm()
        self.loc = tnn.Conv2d(8, 2 * 4, 3, padding=1)

    def forward(self, x):
        h = self.l2norm(torch.relu(self.conv(x)))
        loc = self.loc(h).permute(0, 2, 3, 1).contiguous()
        return loc.view(loc.shape[0], -1, 4)


class _MsL2Norm(mnn.Cell):
    def __init__(self, normalize, channels=8):
        super().__init__()
        import mindspore as ms

        self.weight = ms.Parameter(mops.full((channels,), 20.0, dtype=ms.float32), name="weight")
        self.normalize = normalize

    def construct(self, x):
        return self.weight.reshape(1, -1, 1, 1) * self.normalize(x)


class MsSSDHead(mnn.Cell):
    def __init__(self, normalize):
        super().__init__()
        self.conv = mnn.Conv2d(3, 8, 1, has_bias=True)
        self.l2norm = _MsL2Norm(normalize)
        self.loc = mnn.Conv2d(8, 2 * 4, 3, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        h = self.l2norm(mops.relu(self.conv(x)))
        loc = mops.transpose(self.loc(h), (0, 2, 3, 1))
        return loc.reshape(loc.shape[0], -1, 4)


# --- PSPNet pyramid pooling module (bins 1 and 3), bilinear upsampling with align_corners=True -------------------

class TorchPPM(tnn.Module):
    def __init__(self, c=4, red=2, bins=(1, 3)):
        super().__init__()
        self.stages = tnn.ModuleList([
            tnn.Sequential(tnn.AdaptiveAvgPool2d(b), tnn.Conv2d(c, red, 1, bias=False), tnn.BatchNorm2d(red),
                           tnn.ReLU())
            for b in bins])
        self.bottleneck = tnn.Conv2d(c + red * len(bins), c, 1)

    def forward(self, x):
        h, w = x.shape[2:]
        out = [x] + [F.interpolate(stage(x), (h, w), mode="bilinear", align_corners=True) for stage in self.stages]
        return self.bottleneck(torch.cat(out, 1))


class MsPPM(mnn.Cell):
    def __init__(self, align_corners, c=4, red=2, bins=(1, 3)):
        super().__init__()
        self.stages = mnn.CellList([
            mnn.SequentialCell([mnn.AdaptiveAvgPool2d(b), mnn.Conv2d(c, red, 1), mnn.BatchNorm2d(red), mnn.ReLU()])
            for b in bins])
        self.bottleneck = mnn.Conv2d(c + red * len(bins), c, 1, has_bias=True)
        self.align_corners = align_corners

    def construct(self, x):
        h, w = x.shape[2:]
        out = [x]
        for stage in self.stages:
            if self.align_corners:
                out.append(mops.interpolate(stage(x), size=(h, w), mode="bilinear", align_corners=True))
            else:
                out.append(mops.interpolate(stage(x), size=(h, w), mode="bilinear"))
        return self.bottleneck(mops.cat(out, 1))


# --- QuartzNet / Jasper time-channel separable block (NeMo: BatchNorm1d(eps=1e-3)) --------------------------------

class TorchQuartzBlock(tnn.Module):
    def __init__(self, c=4, k=5):
        super().__init__()
        self.depthwise = tnn.Conv1d(c, c, k, padding=k // 2, groups=c, bias=False)
        self.pointwise = tnn.Conv1d(c, 6, 1, bias=False)
        self.bn = tnn.BatchNorm1d(6, eps=1e-3, momentum=0.1)
        self.res = tnn.Conv1d(c, 6, 1, bias=False)
        self.res_bn = tnn.BatchNorm1d(6, eps=1e-3, momentum=0.1)

    def forward(self, x):
        return torch.relu(self.bn(self.pointwise(self.depthwise(x))) + self.res_bn(self.res(x)))


class MsQuartzBlock(mnn.Cell):
    def __init__(self, eps, c=4, k=5):
        super().__init__()
        self.depthwise = mnn.Conv1d(c, c, k, pad_mode="pad", padding=k // 2, group=c)
        self.pointwise = mnn.Conv1d(c, 6, 1)
        self.bn = mnn.BatchNorm1d(6, momentum=0.9) if eps is None else mnn.BatchNorm1d(6, eps=eps, momentum=0.9)
        self.res = mnn.Conv1d(c, 6, 1)
        self.res_bn = mnn.BatchNorm1d(6, eps=1e-3, momentum=0.9)

    def construct(self, x):
        return mops.relu(self.bn(self.pointwise(self.depthwise(x))) + self.res_bn(self.res(x)))


# --- HRNet two-branch exchange unit (fuse layers) -----------------------------------------------------------------

class TorchHRFuse(tnn.Module):
    def __init__(self, c0=4, c1=8):
        super().__init__()
        self.fuse_down = tnn.Sequential(tnn.Conv2d(c0, c1, 3, 2, 1, bias=False), tnn.BatchNorm2d(c1))
        self.fuse_up = tnn.Sequential(tnn.Conv2d(c1, c0, 1, bias=False), tnn.BatchNorm2d(c0),
                                      tnn.Upsample(scale_factor=2, mode="nearest"))

    def forward(self, x0, x1):
        y0 = torch.relu(x0 + self.fuse_up(x1))
        y1 = torch.relu(x1 + self.fuse_down(x0))
        return y0, y1


class MsHRFuse(mnn.Cell):
    def __init__(self, same_pad, c0=4, c1=8):
        super().__init__()
        if same_pad:
            down = mnn.Conv2d(c0, c1, 3, stride=2, pad_mode="same")
        else:
            down = mnn.Conv2d(c0, c1, 3, stride=2, pad_mode="pad", padding=1)
        self.fuse_down = mnn.SequentialCell([down, mnn.BatchNorm2d(c1)])
        self.fuse_up = mnn.SequentialCell([mnn.Conv2d(c1, c0, 1), mnn.BatchNorm2d(c0)])

    def construct(self, x0, x1):
        up = self.fuse_up(x1)
        up = mops.interpolate(up, size=(up.shape[2] * 2, up.shape[3] * 2), mode="nearest")
        y0 = mops.relu(x0 + up)
        y1 = mops.relu(x1 + self.fuse_down(x0))
        return y0, y1


# --- MelGAN residual stack block: LeakyReLU, ReflectionPad1d(d), dilated conv, 1x1 conv, 1x1 shortcut ------------

class TorchMelGANResBlock(tnn.Module):
    def __init__(self, c=4, d=3):
        super().__init__()
        self.block = tnn.Sequential(tnn.LeakyReLU(0.2), tnn.ReflectionPad1d(d), tnn.Conv1d(c, c, 3, dilation=d),
                                    tnn.LeakyReLU(0.2), tnn.Conv1d(c, c, 1))
        self.shortcut = tnn.Conv1d(c, c, 1)

    def forward(self, x):
        return self.shortcut(x) + self.block(x)


class MsMelGANResBlock(mnn.Cell):
    def __init__(self, symmetric, c=4, d=3):
        super().__init__()
        pad = (mnn.Pad(paddings=((0, 0), (0, 0), (d, d)), mode="SYMMETRIC") if symmetric
               else mnn.ReflectionPad1d(d))
        self.block = mnn.SequentialCell([mnn.LeakyReLU(0.2), pad,
                                         mnn.Conv1d(c, c, 3, pad_mode="valid", dilation=d, has_bias=True),
                                         mnn.LeakyReLU(0.2), mnn.Conv1d(c, c, 1, has_bias=True)])
        self.shortcut = mnn.Conv1d(c, c, 1, has_bias=True)

    def construct(self, x):
        return self.shortcut(x) + self.block(x)


ENTRIES = [
    entry("h13b_port_cbam_spatial_basicconv_bn_momentum_torch_value", FAMILY,
          "model:CBAM (Woo et al. 2018; the authors' BasicConv has BatchNorm2d(eps=1e-5, momentum=0.01)), ported with "
          "mindspore.nn.BatchNorm2d; page BatchNorm2d",
          TorchCBAM, lambda: MsCBAM(0.01), lambda: MsCBAM(0.99),
          ("spatial_gate.spatial.bn",), ("momentum",),
          inputs={"x": uniform(2, 8, 6, 6)}, checks=("train",),
          cause_pattern=r"\bmomentum\b[^.]*\b0?\.99\b|\bmomentum\b[^.]*\b1\s*-\s*0?\.01\b"),
    entry("h13b_port_vae_gaussian_head_split_primitive_default_axis", FAMILY,
          "model:VAE encoder (Kingma & Welling) Gaussian head, chunk(2, dim=-1) ported with mindspore.ops.Split",
          TorchVAEEncoder, lambda: MsVAEEncoder(mops.Split(output_num=2)),
          lambda: MsVAEEncoder(mops.Split(axis=-1, output_num=2)),
          ("after:head",), ("Split|axis",),
          inputs={"x": uniform(2, 6)}, fails_with="shape",
          cause_pattern=r"\bSplit\b[^.]*\baxis\b[^.]*(?:-1|\blast\b|\b1\b)|\baxis\s*=\s*-?1\b[^.]*\bsplit\b|"
                        r"\bsplit\b[^.]*\b(?:default )?axis\b[^.]*\b0\b|\bsplit\b[^.]*\b(?:batch|first) (?:axis|dim)"),
    entry("h13b_port_sknet_branch_attention_softmax_primitive_default_axis", FAMILY,
          "model:SKNet (Li et al. 2019) SKConv, softmax over the branch axis; MindSpore style as mindcv's "
          "selective_kernel.py, written with the mindspore.ops.Softmax primitive",
          TorchSKConv, lambda: MsSKConv(mops.Softmax()), lambda: MsSKConv(mops.Softmax(axis=1)),
          ("softmax",), ("Softmax|axis",),
          inputs={"x": uniform(2, 4, 6, 6)},
          cause_pattern=r"\b[Ss]oftmax\b[^.]*\b(?:axis|dim)\s*=\s*1\b|\b(?:axis|dim)\s*=\s*1\b[^.]*\b[Ss]oftmax\b|"
                        r"\b[Ss]oftmax\b[^.]*\bbranch"),
    entry("h13b_port_ssd_conv4_3_l2norm_l2normalize_default_axis", FAMILY,
          "model:SSD (Liu et al. 2016) conv4_3 L2Norm (ssd.pytorch layers/modules/l2norm.py) + multibox loc head, "
          "ported with the mindspore.ops.L2Normalize primitive (model_zoo official/cv/ssd style)",
          TorchSSDHead, lambda: MsSSDHead(mops.L2Normalize()), lambda: MsSSDHead(mops.L2Normalize(axis=1, epsilon=1e-10)),
          ("l2norm",), ("L2Normalize|axis",),
          inputs={"x": uniform(2, 3, 4, 4)},
          cause_pattern=r"\bL2Normalize\b[^.]*\baxis\s*=\s*1\b|\baxis\s*=\s*1\b[^.]*\bL2Normalize\b|"
                        r"\bL2Normalize\b[^.]*\b(?:default )?axis\b[^.]*\b(?:0|batch)\b|\bnormaliz\w*\b[^.]*\bchannel"),
    entry("h13b_port_pspnet_pyramid_pooling_interpolate_align_corners_default", FAMILY,
          "model:PSPNet (Zhao et al. 2017) PPM as in semseg (bilinear, align_corners=True) vs mindspore-ai/models "
          "PSPNet's PPM cell; page interpolate",
          TorchPPM, lambda: MsPPM(False), lambda: MsPPM(True),
          ("after:stages.1",), ("align_corners",),
          inputs={"x": uniform(2, 4, 6, 6)},
          cause_pattern=r"\balign_corners\b[^.]*\bTrue\b|\balign_corners\s*=\s*True\b"),
    entry("h13b_port_quartznet_separable_block_batchnorm1d_eps_dropped", FAMILY,
          "model:QuartzNet/Jasper (NeMo) time-channel separable block, BatchNorm1d(eps=1e-3); BatchNorm1d",
          TorchQuartzBlock, lambda: MsQuartzBlock(None), lambda: MsQuartzBlock(1e-3),
          ("bn",), ("eps",),
          inputs={"x": uniform(2, 4, 10)},
          cause_pattern=r"\beps(?:ilon)?\b[^.]*\b(?:1e-0?3|0\.001)\b"),
    entry("h13b_port_hrnet_fuse_stride2_conv_same_pad_mode", FAMILY,
          "model:HRNet (Sun et al. 2019) exchange unit, 3x3 stride-2 Conv2d(padding=1) ported with pad_mode='same'; Conv2d",
          TorchHRFuse, lambda: MsHRFuse(True), lambda: MsHRFuse(False),
          ("fuse_down.0",), ("pad_mode|padding",),
          inputs={"x0": uniform(2, 4, 8, 8), "x1": uniform(2, 8, 4, 4)},
          cause_pattern=r"\bpad_mode\s*=\s*['\"]?pad\b|\bpadding\s*=\s*1\b[^.]*\bpad_mode\b|"
                        r"\bpad_mode\b[^.]*\bpadding\s*=\s*1\b|\bsame\b[^.]*\basymmetric|\basymmetric\b[^.]*\bpad"),
    entry("h13b_port_melgan_resblock_reflection_pad_as_symmetric", FAMILY,
          "model:MelGAN (Kumar et al. 2019) residual stack (ParallelWaveGAN residual_stack.py: LeakyReLU, "
          "ReflectionPad1d, dilated Conv1d), padding ported with mindspore.nn.Pad",
          TorchMelGANResBlock, lambda: MsMelGANResBlock(True), lambda: MsMelGANResBlock(False),
          ("block.1",), ("REFLECT|ReflectionPad1d",),
          inputs={"x": uniform(2, 4, 12)},
          cause_pattern=r"\bReflectionPad1d\b|\bmode\s*=\s*['\"]?reflect\b|\breflect(?:ion)?\b[^.]*\bpad\w*|"
                        r"\bpad\w*\b[^.]*\breflect(?:ion)?\b|\bSYMMETRIC\b[^.]*\b(?:REFLECT|mirror\w*)\b"),
]
