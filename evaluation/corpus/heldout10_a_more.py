"""Held-out set 10, half a: the optimizer entry (family h10, step check) and two model blocks (family h10-port) from
public architecture descriptions, each naive port with one API difference; written blind."""
from __future__ import annotations

import numpy as np

from migcheck import FrameworkPair, uniform

from evaluation.corpus.build import entry


# ---------------------------------------------------------------- optimizer (step check)

def _t_mlp():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 6)
            self.fc2 = torch.nn.Linear(6, 2)

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(x)))

    return Net()


def _m_mlp():
    import mindspore.nn as nn
    import mindspore.ops as ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 6)
            self.fc2 = nn.Dense(6, 2)

        def construct(self, x):
            return self.fc2(ops.tanh(self.fc1(x)))

    return Net()


def _t_rmsprop(params):
    import torch

    return torch.optim.RMSprop(params, lr=0.01)


def _m_rmsprop(torch_defaults: bool):
    def make(params):
        import mindspore.nn as nn
        import mindspore.ops as ops

        if torch_defaults:
            opt = nn.RMSProp(params, learning_rate=0.01, decay=0.99, epsilon=1e-8)
        else:
            opt = nn.RMSProp(params, learning_rate=0.01)
        for slot in opt.mean_square:               # torch's square_avg starts at zero
            slot.set_data(ops.zeros_like(slot))
        return opt
    return make


# ---------------------------------------------------------------- blocks

def _t_cyclegan_block():
    import torch

    class ResnetBlock(torch.nn.Module):
        """CycleGAN's generator residual block (Zhu et al. 2017): reflect pad, 3x3 conv, InstanceNorm, ReLU, twice."""

        def __init__(self, dim=3):
            super().__init__()
            self.conv_block = torch.nn.Sequential(
                torch.nn.ReflectionPad2d(1), torch.nn.Conv2d(dim, dim, 3), torch.nn.InstanceNorm2d(dim),
                torch.nn.ReLU(True),
                torch.nn.ReflectionPad2d(1), torch.nn.Conv2d(dim, dim, 3), torch.nn.InstanceNorm2d(dim))

        def forward(self, x):
            return x + self.conv_block(x)

    return ResnetBlock()


def _m_cyclegan_block(affine_off: bool):
    def make():
        import mindspore.nn as nn

        class ResnetBlock(nn.Cell):
            def __init__(self, dim=3):
                super().__init__()
                norm = (lambda: nn.InstanceNorm2d(dim, affine=False)) if affine_off else (lambda: nn.InstanceNorm2d(dim))
                self.conv_block = nn.SequentialCell([
                    nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, pad_mode="valid", has_bias=True), norm(), nn.ReLU(),
                    nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, pad_mode="valid", has_bias=True), norm()])

            def construct(self, x):
                return x + self.conv_block(x)

        return ResnetBlock()
    return make


def _t_convnext_block():
    import torch
    import torch.nn.functional as F

    class Block(torch.nn.Module):
        """ConvNeXt block (Liu et al. 2022): depthwise 7x7 conv, channels-last LayerNorm (eps 1e-6), pointwise MLP
        with GELU, layer scale, residual."""

        def __init__(self, dim=4):
            super().__init__()
            self.dwconv = torch.nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm_weight = torch.nn.Parameter(torch.ones(dim))
            self.norm_bias = torch.nn.Parameter(torch.zeros(dim))
            self.pwconv1 = torch.nn.Linear(dim, 4 * dim)
            self.act = torch.nn.GELU()
            self.pwconv2 = torch.nn.Linear(4 * dim, dim)
            self.gamma = torch.nn.Parameter(0.5 * torch.ones(dim))

        def forward(self, x):
            h = self.dwconv(x).permute(0, 2, 3, 1)
            h = F.layer_norm(h, (h.shape[-1],), self.norm_weight, self.norm_bias, 1e-6)
            h = self.pwconv2(self.act(self.pwconv1(h)))
            return x + (self.gamma * h).permute(0, 3, 1, 2)

    return Block()


def _m_convnext_block(last_axis: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Block(nn.Cell):
            def __init__(self, dim=4):
                super().__init__()
                self.dwconv = nn.Conv2d(dim, dim, 7, pad_mode="pad", padding=3, group=dim, has_bias=True)
                self.norm_weight = ms.Parameter(ms.Tensor(np.ones(dim, np.float32)), name="norm_weight")
                self.norm_bias = ms.Parameter(ms.Tensor(np.zeros(dim, np.float32)), name="norm_bias")
                self.layer_norm = (ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-6) if last_axis
                                   else ops.LayerNorm(epsilon=1e-6))
                self.pwconv1 = nn.Dense(dim, 4 * dim)
                self.act = nn.GELU(approximate=False)
                self.pwconv2 = nn.Dense(4 * dim, dim)
                self.gamma = ms.Parameter(ms.Tensor(0.5 * np.ones(dim, np.float32)), name="gamma")

            def construct(self, x):
                h = self.dwconv(x).transpose(0, 2, 3, 1)
                h, _, _ = self.layer_norm(h, self.norm_weight, self.norm_bias)
                h = self.pwconv2(self.act(self.pwconv1(h)))
                return x + (self.gamma * h).transpose(0, 3, 1, 2)

        return Block()
    return make


ENTRIES = [
    entry("h10a_rmsprop_default_decay_and_epsilon", "h10", "RMSProp", _t_mlp, _m_mlp, _m_mlp, ("optimizer",),
          ("decay|alpha|epsilon|RMSProp",), inputs={"x": uniform(4, 5)}, checks=("step",), steps=3,
          optimizer=FrameworkPair(torch=_t_rmsprop, mindspore=_m_rmsprop(False)),
          cause_pattern=r"\bdecay\b[^.\n]*\b0\.99\b|\balpha\b[^.\n]*\b0\.99\b|\bdecay\s*=\s*0\.99\b"),
    entry("h10a_port_cyclegan_resnet_block_instancenorm_affine_default", "h10-port",
          "model:CycleGAN ResnetBlock (Zhu et al. 2017); InstanceNorm2d", _t_cyclegan_block, _m_cyclegan_block(False),
          _m_cyclegan_block(True), ("conv_block.2",), ("affine|InstanceNorm2d|gamma|beta",),
          inputs={"x": uniform(2, 3, 5, 5)}, checks=("forward", "backward"), fails_with="structure",
          cause_pattern=r"\baffine\b[^.\n]*\b(?:False|default|True)\b|\baffine\s*=\s*False\b|"
                        r"\bInstanceNorm2d\b[^.\n]*\b(?:gamma|beta|affine)\b"),
    entry("h10a_port_convnext_block_ops_layernorm_default_begin_axis", "h10-port",
          "model:ConvNeXt block (Liu et al. 2022); probe: F.layer_norm vs ops.LayerNorm()", _t_convnext_block,
          _m_convnext_block(False), _m_convnext_block(True), ("after:dwconv",), ("begin_norm_axis|LayerNorm",),
          inputs={"x": uniform(2, 4, 5, 5)},
          cause_pattern=r"\bbegin_norm_axis\b|\bbegin_params_axis\b|\bLayerNorm\([^)]*(?:axis|-1)"),
]
