"""Real model-zoo ports: timm 1.0.31's models against mindcv 0.3.0's published MindSpore ports of them.

Random init, tiny inputs (one 32x32 image; the ViT is built small on both sides), 10 classes, and NO
weight_map: the mapping must come from structure alone. Loaded only where timm and mindcv import (see
evaluation/README.md); `python -m evaluation.zoo` scores the mapping and the forward check per pair.

BUILT_ON: the pairs the structural mapping was developed against. HELD_BACK: scored once, after.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from evaluation.corpus import torchvision_standin

torchvision_standin.install()  # before timm imports torchvision's data helpers

import mindcv.models as mcv  # noqa: E402
import mindspore.nn as mnn  # noqa: E402
import mindspore.ops as ops  # noqa: E402
import timm  # noqa: E402
from mindcv.models import vit as mcv_vit  # noqa: E402
from timm.models import vision_transformer as timm_vit  # noqa: E402

from migcheck import PairedCase, uniform  # noqa: E402

CLASSES = 10
IMAGE = {"x": uniform(1, 3, 32, 32)}
VIT = dict(patch_size=16, embed_dim=32, depth=2, num_heads=2, num_classes=CLASSES)


def timm_model(name: str, **kwargs: Any) -> Callable[[], Any]:
    def make():
        return timm.create_model(name, pretrained=False, num_classes=CLASSES, **kwargs)
    make.__name__ = f"timm_{name}"
    return make


def mindcv_model(name: str, **kwargs: Any) -> Callable[[], Any]:
    def make():
        return getattr(mcv, name)(pretrained=False, num_classes=CLASSES, **kwargs)
    make.__name__ = f"mindcv_{name}"
    return make


def timm_vit_small() -> Any:
    return timm_vit.VisionTransformer(img_size=32, **VIT)


def mindcv_vit_small() -> Any:
    return mcv_vit.VisionTransformer(image_size=32, **VIT)


def _symmetric(layer: Any) -> Any:
    """The layer with TF-style pad_mode='same' at stride 2 replaced by torch's symmetric padding; None if it has none."""
    stride = layer.stride if isinstance(layer.stride, int) else max(layer.stride)
    kernel = layer.kernel_size if isinstance(layer.kernel_size, int) else max(layer.kernel_size)
    if str(layer.pad_mode).lower() != "same" or stride == 1 or kernel <= stride:  # a patchify stem pads nothing
        return None
    if isinstance(layer, mnn.Conv2d):
        k, d = layer.kernel_size, layer.dilation
        return mnn.Conv2d(layer.in_channels, layer.out_channels, k, layer.stride, pad_mode="pad",
                          padding=(d[0] * (k[0] - 1) // 2, d[0] * (k[0] - 1) // 2, d[1] * (k[1] - 1) // 2,
                                   d[1] * (k[1] - 1) // 2), dilation=d, group=layer.group, has_bias=layer.has_bias)
    if isinstance(layer, mnn.MaxPool2d):
        return mnn.MaxPool2d(layer.kernel_size, layer.stride, pad_mode="pad", padding=(layer.kernel_size - 1) // 2)
    return None


def _mend_settings(cell: Any, eps: float) -> None:
    """In place: GELU exact as torch's default (MindSpore's nn.GELU defaults to tanh), LayerNorm eps as timm's."""
    if isinstance(cell, mnn.GELU):
        cell.approximate = "none"
    if isinstance(cell, mnn.LayerNorm) and cell.epsilon != eps:
        cell.epsilon = eps
        cell.layer_norm = ops.LayerNorm(begin_norm_axis=cell.begin_norm_axis, begin_params_axis=cell.begin_params_axis,
                                        epsilon=eps)


def fixed(make: Callable[[], Any], layernorm_eps: float = 1e-6) -> Callable[[], Any]:
    """The published port with its systematic differences from timm mended: mindcv pads stride-2 convolutions
    and pools TF-style (pad_mode='same': asymmetric for even inputs) where timm pads symmetrically; its GELU is
    MindSpore's tanh default; its ViT LayerNorm keeps MindSpore's eps 1e-7 (timm: 1e-6)."""
    def make_fixed():
        net = make()
        for path, cell in list(net.cells_and_names()):
            _mend_settings(cell, layernorm_eps)
            parent_path, _, attr = path.rpartition(".")
            parent = net if not parent_path else dict(net.cells_and_names())[parent_path]
            new = _symmetric(cell) if isinstance(cell, (mnn.Conv2d, mnn.MaxPool2d)) else None
            if new is not None:
                if isinstance(parent, mnn.SequentialCell):
                    parent[int(attr)] = new
                else:
                    setattr(parent, attr, new)
        return net
    make_fixed.__name__ = f"{make.__name__}_fixed"
    return make_fixed


# name -> (torch factory, MindSpore factory)
PAIRS: Dict[str, Tuple[Callable[[], Any], Callable[[], Any]]] = {
    "resnet18": (timm_model("resnet18"), mindcv_model("resnet18")),
    "resnet50": (timm_model("resnet50"), mindcv_model("resnet50")),
    "mobilenetv3_small": (timm_model("mobilenetv3_small_100"), mindcv_model("mobilenet_v3_small_100")),
    "efficientnet_b0": (timm_model("efficientnet_b0"), mindcv_model("efficientnet_b0")),
    "densenet121": (timm_model("densenet121"), mindcv_model("densenet121")),
    "vit_small": (timm_vit_small, mindcv_vit_small),
    "convnext_tiny": (timm_model("convnext_tiny"), mindcv_model("convnext_tiny")),
    "regnetx_002": (timm_model("regnetx_002"), mindcv_model("regnet_x_200mf")),
    "mobilenetv2_100": (timm_model("mobilenetv2_100"), mindcv_model("mobilenet_v2_100")),
    "ghostnet_100": (timm_model("ghostnet_100"), mindcv_model("ghostnet_100")),
    "mixnet_s": (timm_model("mixnet_s"), mindcv_model("mixnet_s")),
    "repvgg_a0": (timm_model("repvgg_a0"), mindcv_model("repvgg_a0")),
    # Added after the method was done and scored once (rexnet was dropped: mindcv 0.3.0's ReXNetV1 cannot be built
    # under MindSpore 2.10, its _initialize_weights reads an uninitialized bias).
    "mnasnet_100": (timm_model("mnasnet_100"), mindcv_model("mnasnet_100")),
    "resnext50_32x4d": (timm_model("resnext50_32x4d"), mindcv_model("resnext50_32x4d")),
}
BUILT_ON = ("resnet18", "resnet50", "mobilenetv3_small", "efficientnet_b0", "densenet121", "vit_small",
            "convnext_tiny")
HELD_BACK = tuple(name for name in PAIRS if name not in BUILT_ON)


def case(name: str, mend: bool = False) -> PairedCase:
    """The published port (mend: its fixed version) as a forward case with no weight_map."""
    torch_factory, ms_factory = PAIRS[name]
    return PairedCase(torch=torch_factory, mindspore=fixed(ms_factory) if mend else ms_factory, inputs=IMAGE,
                      checks=("forward",), modes=("pynative",), name=f"zoo_{name}{'_fixed' if mend else ''}",
                      doc=f"timm vs mindcv {name}{' (fixed)' if mend else ''}", tags=("corpus", "zoo"))
