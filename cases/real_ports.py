"""Ports as porters write them: renamed children, fused layers, functional ops in construct, pad_mode='same'.

Each known-bad port has a correct twin; migcheck must name every defect's layer and confirmed cause.
"""
import mindspore.nn as mnn
import torch
import torch.nn as tnn

from migcheck import PairedCase, uniform


# --- ResNet stem: the port calls the pool `max_pool` (torch: `maxpool`) and may pad it with 'same'. ---

class StemPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = tnn.Conv2d(3, 4, 1, stride=2, bias=False)  # 1x1 stride 2: 'same' pads nothing here either
        self.bn1 = tnn.BatchNorm2d(4)
        self.relu = tnn.ReLU()
        self.maxpool = tnn.MaxPool2d(3, 2, padding=1)
        self.conv2 = tnn.Conv2d(4, 4, 3, padding=1)  # stride-1 odd kernel: 'same' pads exactly like padding=1
        self.fc = tnn.Linear(4, 3)

    def forward(self, x):
        x = self.conv2(self.maxpool(self.relu(self.bn1(self.conv1(x)))))
        return self.fc(x.mean(dim=(2, 3)))


class StemMs(mnn.Cell):
    def __init__(self, pool_mode="pad"):
        super().__init__()
        self.conv1 = mnn.Conv2d(3, 4, 1, stride=2, pad_mode="same")
        self.bn1 = mnn.BatchNorm2d(4)
        self.act = mnn.ReLU()
        self.max_pool = (mnn.MaxPool2d(3, 2, pad_mode="same") if pool_mode == "same"
                         else mnn.MaxPool2d(3, 2, pad_mode="pad", padding=1))
        self.conv2 = mnn.Conv2d(4, 4, 3, pad_mode="same", has_bias=True)
        self.fc = mnn.Dense(4, 3)

    def construct(self, x):
        x = self.conv2(self.max_pool(self.act(self.bn1(self.conv1(x)))))
        return self.fc(x.mean(axis=(2, 3)))


resnet_stem = PairedCase(doc="ResNet stem ported with renamed pool and 'same' where it pads identically",
                         torch=StemPt, mindspore=StemMs, inputs={"x": uniform(2, 3, 16, 16)}, tags=("real-port",))
resnet_stem_pool_same = PairedCase(
    doc="known-bad: the renamed stride-2 max-pool padded with pad_mode='same' (bottom/right only)",
    torch=StemPt, mindspore=lambda: StemMs("same"), inputs={"x": uniform(2, 3, 16, 16)}, checks=("forward",),
    expect="fail", fails_with="value", diagnosis="pad-mode", tags=("real-port", "known-bad"))


# --- MobileNetV3 block: torch fuses BatchNorm+Hardswish in one module; the port has BN then an activation cell. ---

class BnActPt(tnn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = tnn.BatchNorm2d(c)

    def forward(self, x):
        return torch.nn.functional.hardswish(self.bn(x))


class MobilePt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.expand = tnn.Conv2d(3, 8, 1, bias=False)
        self.bn_act = BnActPt(8)
        self.dw = tnn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8, bias=False)
        self.head = tnn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.dw(self.bn_act(self.expand(x))).mean(dim=(2, 3)))


class MobileMs(mnn.Cell):
    def __init__(self, dw_mode="pad"):
        super().__init__()
        self.expand = mnn.Conv2d(3, 8, 1)
        self.bn = mnn.BatchNorm2d(8)
        self.hswish = mnn.HSwish()
        self.dw = (mnn.Conv2d(8, 8, 3, stride=2, pad_mode="same", group=8) if dw_mode == "same"
                   else mnn.Conv2d(8, 8, 3, stride=2, pad_mode="pad", padding=1, group=8))
        self.head = mnn.Dense(8, 3)

    def construct(self, x):
        return self.head(self.dw(self.hswish(self.bn(self.expand(x)))).mean(axis=(2, 3)))


def _mobile_map():
    return {"bn_act.bn.weight": "bn.gamma", "bn_act.bn.bias": "bn.beta", "bn_act.bn.running_mean": "bn.moving_mean",
            "bn_act.bn.running_var": "bn.moving_variance"}


mobilenet_block = PairedCase(doc="MobileNetV3-style block, BN+activation fused on torch's side only",
                             torch=MobilePt, mindspore=MobileMs, inputs={"x": uniform(2, 3, 8, 8)},
                             weight_map=_mobile_map(), tags=("real-port",))
mobilenet_block_dw_same = PairedCase(
    doc="known-bad: the stride-2 depthwise conv after a fused BN+activation ported with pad_mode='same'",
    torch=MobilePt, mindspore=lambda: MobileMs("same"), inputs={"x": uniform(2, 3, 8, 8)}, checks=("forward",),
    weight_map=_mobile_map(), expect="fail", fails_with="value", diagnosis="pad-mode", tags=("real-port", "known-bad"))


# --- ViT MLP+norm with two independent defects; the port names its GELU `act` (torch: `gelu`). ---

class TwoDefectsPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.norm = tnn.LayerNorm(8, eps=1e-6)
        self.fc1 = tnn.Linear(8, 16)
        self.gelu = tnn.GELU()
        self.fc2 = tnn.Linear(16, 8)

    def forward(self, x):
        return self.fc2(self.gelu(self.fc1(self.norm(x))))


class TwoDefectsMs(mnn.Cell):
    def __init__(self, bad=False):
        super().__init__()
        self.norm = mnn.LayerNorm((8,), epsilon=1e-7 if bad else 1e-6)
        self.fc1 = mnn.Dense(8, 16)
        self.act = mnn.GELU(approximate=bad)
        self.fc2 = mnn.Dense(16, 8)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(self.norm(x))))


# Nearly constant rows make the epsilon matter at float32.
_ROWS = {"x": uniform(4, 8, low=0.999, high=1.001)}
vit_mlp = PairedCase(doc="ViT MLP with a renamed GELU, ported faithfully", torch=TwoDefectsPt,
                     mindspore=TwoDefectsMs, inputs=_ROWS, tags=("real-port",))
vit_mlp_two_defects = PairedCase(
    doc="known-bad twice: LayerNorm epsilon left at MindSpore's default and GELU's tanh approximation",
    torch=TwoDefectsPt, mindspore=lambda: TwoDefectsMs(bad=True), inputs=_ROWS, checks=("forward",),
    expect="fail", fails_with="value", diagnosis="layernorm-eps", tags=("real-port", "known-bad"))


# --- A functional op in forward/construct: tokens scaled before the projection. ---

class ScalePt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Linear(4, 8)
        self.proj = tnn.Linear(8, 3)

    def forward(self, x):
        return self.proj(self.embed(x) * 8 ** -0.5)


class ScaleMs(mnn.Cell):
    def __init__(self, scale=8 ** -0.5):
        super().__init__()
        self.embed = mnn.Dense(4, 8)
        self.proj = mnn.Dense(8, 3)
        self.scale = scale

    def construct(self, x):
        return self.proj(self.embed(x) * self.scale)


functional_scale = PairedCase(doc="scale applied between two sub-cells, ported faithfully", torch=ScalePt,
                              mindspore=ScaleMs, inputs={"x": uniform(2, 4)}, tags=("real-port",))
functional_scale_wrong = PairedCase(
    doc="known-bad: the port scales by 1/8 instead of 1/sqrt(8) between embed and proj",
    torch=ScalePt, mindspore=lambda: ScaleMs(1 / 8), inputs={"x": uniform(2, 4)}, checks=("forward",),
    expect="fail", fails_with="value", tags=("real-port", "known-bad"))
