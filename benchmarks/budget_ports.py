"""Random correct ports and their known-bad twins for benchmarks/budget_factor.py (issue 24).

Families, each in torch and MindSpore with the same attribute names (built-in rules map every weight):
an MLP (ReLU, depth 2/4/8, inputs N(0, 10^2): large gradients), a Conv-BN-ReLU stack (depth 2/3, up to 16
channels on 4x3x12x12, inputs N(0, 10^2)) and the
pre-norm transformer block of cases/transformer_block.py. Twins: LayerNorm epsilon 1e-7 (MindSpore's
default), BatchNorm epsilon 1e-3, GELU's tanh approximation for the exact one. The case name seeds
inputs and weights, so `seed` is part of the name. Imports torch and MindSpore only when built.
"""
from __future__ import annotations

from typing import List

from migcheck import PairedCase, normal


def _mlp_pt(depth: int, width: int, act: str = "relu"):
    import torch.nn as tnn

    class Mlp(tnn.Module):
        def __init__(self):
            super().__init__()
            self.layers = tnn.ModuleList([tnn.Linear(8 if i == 0 else width, width) for i in range(depth)])
            self.head = tnn.Linear(width, 4)
            self.act = tnn.GELU() if act == "gelu" else tnn.ReLU()

        def forward(self, x):
            for layer in self.layers:
                x = self.act(layer(x))
            return self.head(x)

    return Mlp()


def _mlp_ms(depth: int, width: int, act: str = "relu", approximate: bool = False):
    import mindspore.nn as mnn

    class Mlp(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = mnn.CellList([mnn.Dense(8 if i == 0 else width, width) for i in range(depth)])
            self.head = mnn.Dense(width, 4)
            self.act = mnn.GELU(approximate=approximate) if act == "gelu" else mnn.ReLU()

        def construct(self, x):
            for layer in self.layers:
                x = self.act(layer(x))
            return self.head(x)

    return Mlp()


def _conv_pt(depth: int, channels: int):
    import torch.nn as tnn

    class Stack(tnn.Module):
        def __init__(self):
            super().__init__()
            self.convs = tnn.ModuleList([tnn.Conv2d(3 if i == 0 else channels, channels, 3, padding=1, bias=False)
                                         for i in range(depth)])
            self.bns = tnn.ModuleList([tnn.BatchNorm2d(channels) for _ in range(depth)])

        def forward(self, x):
            for conv, bn in zip(self.convs, self.bns):
                x = (bn(conv(x))).relu()
            return x

    return Stack()


def _conv_ms(depth: int, channels: int, eps: float = 1e-5):
    import mindspore.nn as mnn

    class Stack(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.convs = mnn.CellList([mnn.Conv2d(3 if i == 0 else channels, channels, 3, pad_mode="pad", padding=1)
                                       for i in range(depth)])
            self.bns = mnn.CellList([mnn.BatchNorm2d(channels, eps=eps, momentum=0.9) for _ in range(depth)])
            self.relu = mnn.ReLU()

        def construct(self, x):
            for conv, bn in zip(self.convs, self.bns):
                x = self.relu(bn(conv(x)))
            return x

    return Stack()


def ports(seeds: int, tag: str = "") -> List[PairedCase]:
    """Correct ports (expect pass) and known-bad twins (expect a value failure), `seeds` of each."""
    from cases.transformer_block import DIM, BlockMs, BlockPt

    out: List[PairedCase] = []
    checks = ("forward", "backward")
    for seed in range(seeds):
        for depth, width in ((2, 16), (4, 64), (8, 32)):
            out.append(PairedCase(name=f"mlp_d{depth}_w{width}_s{seed}{tag}", torch=lambda d=depth, w=width: _mlp_pt(d, w),
                                  mindspore=lambda d=depth, w=width: _mlp_ms(d, w), inputs={"x": normal(4, 8, std=10.0)},
                                  checks=checks, modes=("pynative",)))
        out.append(PairedCase(name=f"mlp_gelu_s{seed}{tag}", torch=lambda: _mlp_pt(2, 16, "gelu"),
                              mindspore=lambda: _mlp_ms(2, 16, "gelu"), inputs={"x": normal(4, 8, std=3.0)},
                              checks=checks, modes=("pynative",)))
        out.append(PairedCase(name=f"mlp_gelu_s{seed}{tag}_bad", torch=lambda: _mlp_pt(2, 16, "gelu"),
                              mindspore=lambda: _mlp_ms(2, 16, "gelu", approximate=True),
                              inputs={"x": normal(4, 8, std=3.0)}, checks=checks, modes=("pynative",),
                              expect="fail", fails_with="value"))
        for depth, channels, shape in ((2, 4, (2, 3, 6, 6)), (3, 8, (2, 3, 6, 6)), (2, 16, (4, 3, 12, 12))):
            out.append(PairedCase(name=f"convbn_d{depth}_c{channels}_s{seed}{tag}",
                                  torch=lambda d=depth, c=channels: _conv_pt(d, c),
                                  mindspore=lambda d=depth, c=channels: _conv_ms(d, c),
                                  inputs={"x": normal(*shape, std=10.0)}, checks=checks, modes=("pynative",)))
        out.append(PairedCase(name=f"convbn_d2_c4_s{seed}{tag}_bad", torch=lambda: _conv_pt(2, 4),
                              mindspore=lambda: _conv_ms(2, 4, eps=1e-3), inputs={"x": normal(2, 3, 6, 6, std=10.0)},
                              checks=checks, modes=("pynative",), expect="fail", fails_with="value"))
        out.append(PairedCase(name=f"block_s{seed}{tag}", torch=BlockPt, mindspore=BlockMs,
                              inputs={"x": normal(2, 4, DIM)}, checks=checks, modes=("pynative",)))
        out.append(PairedCase(name=f"block_s{seed}{tag}_bad", torch=BlockPt, mindspore=lambda: BlockMs(epsilon=1e-7),
                              inputs={"x": normal(2, 4, DIM)}, checks=checks, modes=("pynative",),
                              expect="fail", fails_with="value"))
    return out
