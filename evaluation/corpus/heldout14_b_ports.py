"""Held-out set 14, half b: small model blocks (family h14-port) in the style of public MindSpore ports, each with
one porting mistake that is a nameable API difference."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform


def _ms():
    import mindspore.nn as mnn
    import mindspore.ops as ops
    return mnn, ops


def _t():
    import torch
    import torch.nn as tnn
    return torch, tnn


# --- Conv-TasNet TCN block (asteroid / mindaudio style): global layer norm as GroupNorm(1, C, eps=1e-8) ----------
def _tcn_torch():
    torch, tnn = _t()

    class TCNBlock(tnn.Module):
        def __init__(self, b=4, h=8, k=3, d=2):
            super().__init__()
            self.in_conv = tnn.Conv1d(b, h, 1)
            self.act1 = tnn.PReLU()
            self.norm1 = tnn.GroupNorm(1, h, eps=1e-8)
            self.d_conv = tnn.Conv1d(h, h, k, dilation=d, padding=d * (k - 1) // 2, groups=h)
            self.act2 = tnn.PReLU()
            self.norm2 = tnn.GroupNorm(1, h, eps=1e-8)
            self.res_conv = tnn.Conv1d(h, b, 1)

        def forward(self, x):
            y = self.norm1(self.act1(self.in_conv(x)))
            y = self.norm2(self.act2(self.d_conv(y)))
            return x + self.res_conv(y)
    return TCNBlock()


def _tcn_ms(correct):
    mnn, ops = _ms()
    eps = {"eps": 1e-8} if correct else {}

    class TCNBlock(mnn.Cell):
        def __init__(self, b=4, h=8, k=3, d=2):
            super().__init__()
            self.in_conv = mnn.Conv1d(b, h, 1, has_bias=True)
            self.act1 = mnn.PReLU()
            self.norm1 = mnn.GroupNorm(1, h, **eps)
            self.d_conv = mnn.Conv1d(h, h, k, pad_mode="pad", padding=d * (k - 1) // 2, dilation=d, group=h,
                                     has_bias=True)
            self.act2 = mnn.PReLU()
            self.norm2 = mnn.GroupNorm(1, h, eps=1e-8)
            self.res_conv = mnn.Conv1d(h, b, 1, has_bias=True)

        def construct(self, x):
            y = self.norm1(self.act1(self.in_conv(x)))
            y = self.norm2(self.act2(self.d_conv(y)))
            return x + self.res_conv(y)
    return TCNBlock()


# --- GhostNetV2 DFC attention (decoupled fully connected, horizontal then vertical depthwise convs) --------------
def _dfc_torch():
    torch, tnn = _t()
    F = torch.nn.functional

    class GhostDFC(tnn.Module):
        def __init__(self, cin=4, cout=8):
            super().__init__()
            self.primary_conv = tnn.Sequential(tnn.Conv2d(cin, cout, 1, bias=False), tnn.BatchNorm2d(cout), tnn.ReLU())
            self.short_conv = tnn.Sequential(
                tnn.Conv2d(cin, cout, 1, bias=False), tnn.BatchNorm2d(cout),
                tnn.Conv2d(cout, cout, (1, 5), 1, (0, 2), groups=cout, bias=False), tnn.BatchNorm2d(cout),
                tnn.Conv2d(cout, cout, (5, 1), 1, (2, 0), groups=cout, bias=False), tnn.BatchNorm2d(cout))

        def forward(self, x):
            res = self.short_conv(F.avg_pool2d(x, kernel_size=2, stride=2))
            out = self.primary_conv(x)
            return out * F.interpolate(torch.sigmoid(res), size=(out.shape[-2], out.shape[-1]), mode="nearest")
    return GhostDFC()


def _dfc_ms(correct):
    mnn, ops = _ms()
    # MindSpore's 4-tuple padding is (top, bottom, left, right)
    pad_h = (0, 0, 2, 2) if correct else (2, 2, 0, 0)

    class GhostDFC(mnn.Cell):
        def __init__(self, cin=4, cout=8):
            super().__init__()
            self.primary_conv = mnn.SequentialCell([mnn.Conv2d(cin, cout, 1, has_bias=False), mnn.BatchNorm2d(cout),
                                                    mnn.ReLU()])
            self.short_conv = mnn.SequentialCell([
                mnn.Conv2d(cin, cout, 1, has_bias=False), mnn.BatchNorm2d(cout),
                mnn.Conv2d(cout, cout, (1, 5), 1, pad_mode="pad", padding=pad_h, group=cout, has_bias=False),
                mnn.BatchNorm2d(cout),
                mnn.Conv2d(cout, cout, (5, 1), 1, pad_mode="pad", padding=(2, 2, 0, 0), group=cout, has_bias=False),
                mnn.BatchNorm2d(cout)])

        def construct(self, x):
            res = self.short_conv(ops.avg_pool2d(x, kernel_size=2, stride=2))
            out = self.primary_conv(x)
            gate = ops.interpolate(ops.sigmoid(res), size=(out.shape[-2], out.shape[-1]), mode="nearest")
            return out * gate
    return GhostDFC()


# --- YOLOv8 C2f (mindyolo style): cv1 output chunked into two halves -------------------------------------------
def _c2f_torch():
    torch, tnn = _t()

    class Conv(tnn.Module):
        def __init__(self, c1, c2, k=1):
            super().__init__()
            self.conv = tnn.Conv2d(c1, c2, k, 1, k // 2, bias=False)
            self.bn = tnn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
            self.act = tnn.SiLU()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Bottleneck(tnn.Module):
        def __init__(self, c):
            super().__init__()
            self.cv1 = Conv(c, c, 3)
            self.cv2 = Conv(c, c, 3)

        def forward(self, x):
            return x + self.cv2(self.cv1(x))

    class C2f(tnn.Module):
        def __init__(self, c1=4, c2=4, n=1):
            super().__init__()
            self.c = c2 // 2 * 2
            self.cv1 = Conv(c1, 2 * self.c, 1)
            self.cv2 = Conv((2 + n) * self.c, c2, 1)
            self.m = tnn.ModuleList(Bottleneck(self.c) for _ in range(n))

        def forward(self, x):
            y = list(self.cv1(x).chunk(2, 1))
            y.extend(m(y[-1]) for m in self.m)
            return self.cv2(torch.cat(y, 1))
    return C2f()


def _c2f_ms(correct):
    mnn, ops = _ms()

    class Conv(mnn.Cell):
        def __init__(self, c1, c2, k=1):
            super().__init__()
            self.conv = mnn.Conv2d(c1, c2, k, 1, pad_mode="pad", padding=k // 2, has_bias=False)
            self.bn = mnn.BatchNorm2d(c2, eps=1e-3, momentum=0.97)
            self.act = mnn.SiLU()

        def construct(self, x):
            return self.act(self.bn(self.conv(x)))

    class Bottleneck(mnn.Cell):
        def __init__(self, c):
            super().__init__()
            self.cv1 = Conv(c, c, 3)
            self.cv2 = Conv(c, c, 3)

        def construct(self, x):
            return x + self.cv2(self.cv1(x))

    class C2f(mnn.Cell):
        def __init__(self, c1=4, c2=4, n=1):
            super().__init__()
            self.c = c2 // 2 * 2
            self.cv1 = Conv(c1, 2 * self.c, 1)
            self.cv2 = Conv((2 + n) * self.c, c2, 1)
            self.m = mnn.CellList([Bottleneck(self.c) for _ in range(n)])

        def construct(self, x):
            h = self.cv1(x)
            y = list(ops.chunk(h, 2, axis=1) if correct else ops.split(h, 2, axis=1))
            for m in self.m:
                y.append(m(y[-1]))
            return self.cv2(ops.cat(y, axis=1))
    return C2f()


# --- GoogLeNet auxiliary classifier (torchvision InceptionAux) --------------------------------------------------
def _aux_torch():
    torch, tnn = _t()

    class BasicConv2d(tnn.Module):
        def __init__(self, cin, cout, k):
            super().__init__()
            self.conv = tnn.Conv2d(cin, cout, k, bias=False)
            self.bn = tnn.BatchNorm2d(cout, eps=0.001)

        def forward(self, x):
            return torch.relu(self.bn(self.conv(x)))

    class InceptionAux(tnn.Module):
        def __init__(self, cin=4, classes=5):
            super().__init__()
            self.avgpool = tnn.AdaptiveAvgPool2d((4, 4))
            self.conv = BasicConv2d(cin, 8, 1)
            self.fc1 = tnn.Linear(8 * 4 * 4, 16)
            self.dropout = tnn.Dropout(0.7)
            self.fc2 = tnn.Linear(16, classes)

        def forward(self, x):
            x = self.conv(self.avgpool(x))
            x = torch.relu(self.fc1(torch.flatten(x, 1)))
            return self.fc2(self.dropout(x))
    return InceptionAux()


def _aux_ms(correct):
    mnn, ops = _ms()

    class BasicConv2d(mnn.Cell):
        def __init__(self, cin, cout, k):
            super().__init__()
            self.conv = mnn.Conv2d(cin, cout, k, has_bias=False)
            self.bn = mnn.BatchNorm2d(cout, eps=0.001)

        def construct(self, x):
            return ops.relu(self.bn(self.conv(x)))

    class InceptionAux(mnn.Cell):
        def __init__(self, cin=4, classes=5):
            super().__init__()
            self.avgpool = mnn.AdaptiveAvgPool2d((4, 4)) if correct else mnn.AvgPool2d(kernel_size=5, stride=3)
            self.conv = BasicConv2d(cin, 8, 1)
            self.fc1 = mnn.Dense(8 * 4 * 4, 16)
            self.dropout = mnn.Dropout(p=0.7)
            self.fc2 = mnn.Dense(16, classes)

        def construct(self, x):
            x = self.conv(self.avgpool(x))
            x = ops.relu(self.fc1(ops.flatten(x, start_dim=1)))
            return self.fc2(self.dropout(x))
    return InceptionAux()


# --- RAFT bilinear sampler (warping features by a predicted flow; grid_sample with align_corners=True) ------------
_H, _W = 5, 6


def _base_grid():
    import numpy as np
    ys, xs = np.meshgrid(np.arange(_H, dtype=np.float32), np.arange(_W, dtype=np.float32), indexing="ij")
    return np.stack([xs, ys], axis=-1)[None]  # (1, H, W, 2) in (x, y) order


def _raft_torch():
    torch, tnn = _t()
    F = torch.nn.functional

    class FlowWarp(tnn.Module):
        def __init__(self, c=4):
            super().__init__()
            self.flow_head = tnn.Conv2d(c, 2, 1)
            self.register_buffer("base", torch.tensor(_base_grid()), persistent=False)

        def forward(self, x):
            coords = self.base + self.flow_head(x).permute(0, 2, 3, 1)
            xgrid, ygrid = coords.split([1, 1], dim=-1)
            grid = torch.cat([2 * xgrid / (_W - 1) - 1, 2 * ygrid / (_H - 1) - 1], dim=-1)
            return F.grid_sample(x, grid, align_corners=True)
    return FlowWarp()


def _raft_ms(correct):
    import mindspore as ms
    mnn, ops = _ms()

    class FlowWarp(mnn.Cell):
        def __init__(self, c=4):
            super().__init__()
            self.flow_head = mnn.Conv2d(c, 2, 1, has_bias=True)
            self.base = ms.Tensor(_base_grid())

        def construct(self, x):
            coords = self.base + self.flow_head(x).transpose(0, 2, 3, 1)
            xgrid, ygrid = ops.split(coords, [1, 1], axis=-1)
            grid = ops.cat([2 * xgrid / (_W - 1) - 1, 2 * ygrid / (_H - 1) - 1], axis=-1)
            if correct:
                return ops.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
            return ops.grid_sample(x, grid, mode="bilinear", padding_mode="zeros")
    return FlowWarp()


# --- YOLOv8 DFL (distribution focal loss integral over reg_max bins; mindyolo style) ---------------------------
def _dfl_torch():
    torch, tnn = _t()

    class DFL(tnn.Module):
        def __init__(self, c1=8):
            super().__init__()
            self.conv = tnn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
            self.c1 = c1

        def forward(self, x):
            b, _, a = x.shape
            return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)

    class BoxHead(tnn.Module):
        def __init__(self, c=6, reg_max=8):
            super().__init__()
            self.box = tnn.Conv1d(c, 4 * reg_max, 1)
            self.dfl = DFL(reg_max)

        def forward(self, x):
            return self.dfl(self.box(x))
    return BoxHead()


def _dfl_ms(correct):
    mnn, ops = _ms()

    class DFL(mnn.Cell):
        def __init__(self, c1=8):
            super().__init__()
            self.conv = mnn.Conv2d(c1, 1, 1, has_bias=False)
            self.conv.weight.requires_grad = False
            self.softmax = mnn.Softmax(axis=1) if correct else mnn.Softmax()
            self.c1 = c1

        def construct(self, x):
            b, _, a = x.shape
            x = self.softmax(ops.transpose(x.view(b, 4, self.c1, a), (0, 2, 1, 3)))
            return self.conv(x).view(b, 4, a)

    class BoxHead(mnn.Cell):
        def __init__(self, c=6, reg_max=8):
            super().__init__()
            self.box = mnn.Conv1d(c, 4 * reg_max, 1, has_bias=True)
            self.dfl = DFL(reg_max)

        def construct(self, x):
            return self.dfl(self.box(x))
    return BoxHead()


# --- HiFi-GAN generator: conv_pre + ResBlock2 (leaky ReLU slope 0.1) -------------------------------------------
def _hifi_torch():
    torch, tnn = _t()
    F = torch.nn.functional

    class PreRes(tnn.Module):
        def __init__(self, cin=4, ch=6):
            super().__init__()
            self.conv_pre = tnn.Conv1d(cin, ch, 7, padding=3)
            self.convs = tnn.ModuleList([tnn.Conv1d(ch, ch, 3, dilation=d, padding=d) for d in (1, 3)])

        def forward(self, x):
            x = self.conv_pre(x)
            for c in self.convs:
                x = c(F.leaky_relu(x, 0.1)) + x
            return x
    return PreRes()


def _hifi_ms(correct):
    mnn, ops = _ms()

    class PreRes(mnn.Cell):
        def __init__(self, cin=4, ch=6):
            super().__init__()
            self.conv_pre = mnn.Conv1d(cin, ch, 7, pad_mode="pad", padding=3, has_bias=True)
            self.convs = mnn.CellList([mnn.Conv1d(ch, ch, 3, pad_mode="pad", padding=d, dilation=d, has_bias=True)
                                       for d in (1, 3)])

        def construct(self, x):
            x = self.conv_pre(x)
            for c in self.convs:
                x = c(ops.leaky_relu(x, 0.1) if correct else ops.leaky_relu(x)) + x
            return x
    return PreRes()


# --- Non-local block, embedded Gaussian with sub-sampling (one max-pool shared by g and phi) --------------------
def _nl_torch():
    torch, tnn = _t()

    class NonLocal2d(tnn.Module):
        def __init__(self, c=4, inter=2):
            super().__init__()
            self.inter = inter
            self.g = tnn.Conv2d(c, inter, 1)
            self.theta = tnn.Conv2d(c, inter, 1)
            self.phi = tnn.Conv2d(c, inter, 1)
            self.pool = tnn.MaxPool2d(kernel_size=(2, 2))
            self.W = tnn.Sequential(tnn.Conv2d(inter, c, 1), tnn.BatchNorm2d(c))

        def forward(self, x):
            b, _, h, w = x.shape
            g_x = self.pool(self.g(x)).view(b, self.inter, -1).permute(0, 2, 1)
            theta_x = self.theta(x).view(b, self.inter, -1).permute(0, 2, 1)
            phi_x = self.pool(self.phi(x)).view(b, self.inter, -1)
            f = torch.softmax(torch.matmul(theta_x, phi_x), dim=-1)
            y = torch.matmul(f, g_x).permute(0, 2, 1).contiguous().view(b, self.inter, h, w)
            return self.W(y) + x
    return NonLocal2d()


def _nl_ms(correct):
    mnn, ops = _ms()

    class NonLocal2d(mnn.Cell):
        def __init__(self, c=4, inter=2):
            super().__init__()
            self.inter = inter
            self.g = mnn.Conv2d(c, inter, 1, has_bias=True)
            self.theta = mnn.Conv2d(c, inter, 1, has_bias=True)
            self.phi = mnn.Conv2d(c, inter, 1, has_bias=True)
            self.pool = mnn.MaxPool2d(kernel_size=2, stride=2) if correct else mnn.MaxPool2d(kernel_size=2)
            self.W = mnn.SequentialCell([mnn.Conv2d(inter, c, 1, has_bias=True), mnn.BatchNorm2d(c)])

        def construct(self, x):
            b, _, h, w = x.shape
            g_x = self.pool(self.g(x)).view(b, self.inter, -1).transpose(0, 2, 1)
            theta_x = self.theta(x).view(b, self.inter, -1).transpose(0, 2, 1)
            phi_x = self.pool(self.phi(x)).view(b, self.inter, -1)
            f = ops.softmax(ops.matmul(theta_x, phi_x), axis=-1)
            y = ops.matmul(f, g_x).transpose(0, 2, 1).view(b, self.inter, h, w)
            return self.W(y) + x
    return NonLocal2d()


ENTRIES = [
    entry("h14b_port_conv_tasnet_tcn_block_global_layernorm_groupnorm_eps_dropped", "h14-port",
          "model:Conv-TasNet TCN block (asteroid / mindaudio)", _tcn_torch, lambda: _tcn_ms(False),
          lambda: _tcn_ms(True), ["norm1"], ["GroupNorm|eps|1e-8"],
          inputs={"x": uniform(2, 4, 16, low=-0.01, high=0.01)},
          cause_pattern=r"\beps(ilon)?\b[^.]*\b1e-0?8\b|\b1e-0?8\b[^.]*\beps(ilon)?\b"),
    entry("h14b_port_ghostnetv2_dfc_attention_conv_padding_tuple_order", "h14-port",
          "model:GhostNetV2 DFC attention (huawei-noah ghostnetv2 / mindcv)", _dfc_torch, lambda: _dfc_ms(False),
          lambda: _dfc_ms(True), ["short_conv.2"], ["padding|top, bottom, left, right|(0, 0, 2, 2)"],
          inputs={"x": uniform(2, 4, 12, 12)},
          cause_pattern=r"\bpadding\b[^.]*\(\s*0\s*,\s*0\s*,\s*2\s*,\s*2\s*\)|\btop\b[^.]*\bbottom\b[^.]*\bleft\b"
                        r"[^.]*\bright\b"),
    entry("h14b_port_yolov8_c2f_chunk_as_ops_split_section_size_raises", "h14-port",
          "model:YOLOv8 C2f (ultralytics / mindyolo)", _c2f_torch, lambda: _c2f_ms(False), lambda: _c2f_ms(True),
          ["after:cv1"], ["chunk|split|split_size_or_sections"], inputs={"x": uniform(1, 4, 6, 6)},
          fails_with="error",
          cause_pattern=r"\bops\.chunk\b|\bchunk\b[^.]*\bsplit\b|\bsplit\b[^.]*\bchunk\b|\bsplit_size"),
    entry("h14b_port_googlenet_aux_head_adaptive_pool_as_avgpool_5_stride_3", "h14-port",
          "model:GoogLeNet InceptionAux (torchvision / mindspore-ai/models googlenet)", _aux_torch,
          lambda: _aux_ms(False), lambda: _aux_ms(True), ["avgpool"], ["AdaptiveAvgPool2d|AvgPool2d|kernel 5 stride 3"],
          inputs={"x": uniform(2, 4, 14, 14)},
          cause_pattern=r"\bAdaptiveAvgPool2d\b|\badaptive_avg_pool2d\b|\badaptive\b[^.]*\bpool"),
    entry("h14b_port_raft_bilinear_sampler_grid_sample_align_corners_dropped", "h14-port",
          "model:RAFT bilinear_sampler / flow warping (princeton-vl RAFT)", _raft_torch, lambda: _raft_ms(False),
          lambda: _raft_ms(True), ["after:flow_head"], ["grid_sample|align_corners"],
          inputs={"x": uniform(2, 4, _H, _W)},
          cause_pattern=r"\balign_corners\b[^.]*\bTrue\b|\balign_corners\s*=\s*True\b"),
    entry("h14b_port_yolov8_dfl_softmax_cell_default_axis", "h14-port", "model:YOLOv8 DFL (ultralytics / mindyolo)",
          _dfl_torch, lambda: _dfl_ms(False), lambda: _dfl_ms(True), ["dfl"], ["Softmax|axis|dim=1"],
          inputs={"x": uniform(2, 6, 5)},
          cause_pattern=r"\b[Ss]oftmax\b[^.]*\b(axis|dim)\s*=\s*1\b|\b(axis|dim)\s*=\s*1\b[^.]*\b[Ss]oftmax\b"),
    entry("h14b_port_hifigan_resblock2_ops_leaky_relu_default_alpha", "h14-port",
          "model:HiFi-GAN generator conv_pre + ResBlock2 (jik876 hifi-gan / mindaudio)", _hifi_torch,
          lambda: _hifi_ms(False), lambda: _hifi_ms(True), ["after:conv_pre"], ["leaky_relu|alpha|0.1"],
          inputs={"x": uniform(2, 4, 16)},
          cause_pattern=r"\b(alpha|negative_slope|LRELU_SLOPE)\b[^.]*\b0\.1\b|\bleaky_relu\([^)]*\b0\.1\b"),
    entry("h14b_port_non_local_block_subsample_maxpool_default_stride", "h14-port",
          "model:Non-local neural networks, embedded Gaussian with sub_sample (AlexHex7 / mmcv NonLocal2d)", _nl_torch,
          lambda: _nl_ms(False), lambda: _nl_ms(True), ["pool"], ["MaxPool2d|stride|kernel_size"],
          inputs={"x": uniform(2, 4, 4, 4)},
          cause_pattern=r"\bstride\b[^.]*\b(2|kernel_size)\b|\bstride\s*=\s*2\b"),
]
