"""Held-out set 13, half b: single-API entries (family h13), written blind (see heldout13.py).

Two gradient-only entries (the forward agrees, the backward does not), two functional ops in forward/construct
and one port on which MindSpore raises. Each net is tiny (CPU)."""
from __future__ import annotations

import mindspore.nn as mnn
import mindspore.ops as mops
import torch
import torch.nn as tnn
import torch.nn.functional as F

from evaluation.corpus.build import entry
from migcheck import uniform

FAMILY = "h13"


# --- gradient reversal layer (DANN): a custom autograd.Function ported as a plain identity Cell ---------------

class _TorchGradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lambd * grad, None


class _TorchGRL(tnn.Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, x):
        return _TorchGradReverse.apply(x, self.lambd)


class _TorchDomainHead(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.grl = _TorchGRL(0.5)
        self.fc2 = tnn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.grl(torch.tanh(self.fc1(x))))


class _MsGRLIdentity(mnn.Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, x):
        return x * 1.0


class _MsGRL(mnn.Cell):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, x):
        return x * 1.0

    def bprop(self, x, out, dout):
        return (-self.lambd * dout,)


class _MsDomainHead(mnn.Cell):
    def __init__(self, grl_cls):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.grl = grl_cls(0.5)
        self.fc2 = mnn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.grl(mops.tanh(self.fc1(x))))


# --- a gradient-clipping tensor hook (Tensor.register_hook) dropped in the port ------------------------------

class _TorchHookedMLP(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.fc2 = tnn.Linear(8, 3)

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        if h.requires_grad:
            h.register_hook(lambda grad: grad.clamp(-0.05, 0.05))
        return self.fc2(h)


class _MsGradClamp(mnn.Cell):
    def construct(self, x):
        return x * 1.0

    def bprop(self, x, out, dout):
        return (mops.clamp(dout, -0.05, 0.05),)


class _MsHookedMLP(mnn.Cell):
    def __init__(self, clip):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.fc2 = mnn.Dense(8, 3)
        self.clip = clip
        self.clamp_grad = _MsGradClamp()

    def construct(self, x):
        h = mops.tanh(self.fc1(x))
        if self.clip:
            h = self.clamp_grad(h)
        return self.fc2(h)


# --- functional smooth_l1_loss in forward: ops.smooth_l1_loss's default reduction ------------------------------

class _TorchDenoiseLoss(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 4)

    def forward(self, x, y):
        return F.smooth_l1_loss(self.fc(x), y, beta=0.5)


class _MsDenoiseLoss(mnn.Cell):
    def __init__(self, reduction):
        super().__init__()
        self.fc = mnn.Dense(6, 4)
        self.reduction = reduction

    def construct(self, x, y):
        if self.reduction is None:
            return mops.smooth_l1_loss(self.fc(x), y, beta=0.5)
        return mops.smooth_l1_loss(self.fc(x), y, beta=0.5, reduction=self.reduction)


# --- torch.range (end inclusive) ported as ops.range ------------------------------------------------------------

class _TorchShiftFeatures(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(6, 4)

    def forward(self, x):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            offsets = torch.range(-2, 2)
        return self.fc(x).unsqueeze(-1) * offsets


class _MsShiftFeatures(mnn.Cell):
    def __init__(self, end):
        super().__init__()
        self.fc = mnn.Dense(6, 4)
        self.end = end

    def construct(self, x):
        offsets = mops.range(-2.0, self.end, 1.0)
        return self.fc(x).unsqueeze(-1) * offsets


# --- torch.quantile in forward (robust scaling) ------------------------------------------------------------------

class _TorchRobustScale(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(6, 8)
        self.fc2 = tnn.Linear(8, 3)

    def forward(self, x):
        h = self.fc1(x)
        scale = torch.quantile(h.abs(), 0.75, dim=-1, keepdim=True)
        return self.fc2(h / (scale + 1e-3))


class _MsRobustScaleQuantile(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.fc2 = mnn.Dense(8, 3)

    def construct(self, x):
        h = self.fc1(x)
        scale = mops.quantile(mops.abs(h), 0.75, axis=-1, keepdims=True)
        return self.fc2(h / (scale + 1e-3))


class _MsRobustScaleSorted(mnn.Cell):
    """The 0.75 quantile by linear interpolation between sorted values (torch's default 'linear')."""

    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(6, 8)
        self.fc2 = mnn.Dense(8, 3)

    def construct(self, x):
        h = self.fc1(x)
        v, _ = mops.sort(mops.abs(h), axis=-1)
        pos = 0.75 * (v.shape[-1] - 1)
        lo = int(pos)
        frac = pos - lo
        scale = v[:, lo:lo + 1] + frac * (v[:, lo + 1:lo + 2] - v[:, lo:lo + 1])
        return self.fc2(h / (scale + 1e-3))


ENTRIES = [
    entry("h13b_gradient_reversal_layer_ported_without_bprop", FAMILY,
          "probe (torch 2.13 / MindSpore 2.10, CPU): torch.autograd.Function backward vs a MindSpore Cell without bprop",
          _TorchDomainHead, lambda: _MsDomainHead(_MsGRLIdentity), lambda: _MsDomainHead(_MsGRL),
          ("grl",), ("bprop|gradient reversal|custom backward",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bbprop\b|\bgradient[- ]revers\w*|\brevers\w*\b[^.]*\bgradients?\b|"
                        r"\bnegat\w*\b[^.]*\bgradients?\b|\bautograd\.Function\b|\bcustom (?:backward|gradient)\b"),
    entry("h13b_tensor_register_hook_grad_clamp_dropped", FAMILY,
          "probe (torch 2.13 / MindSpore 2.10, CPU): torch.Tensor.register_hook (gradient clamp) vs a MindSpore port without a backward hook/bprop",
          _TorchHookedMLP, lambda: _MsHookedMLP(False), lambda: _MsHookedMLP(True),
          ("after:fc1",), ("register_hook|gradient clamp|bprop",),
          inputs={"x": uniform(4, 6)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bregister_hook\b|\bhook\w*\b[^.]*\bclamp\w*|\bclamp\w*\b[^.]*\bgradients?\b|"
                        r"\bgradients?\b[^.]*\bclip\w*|\bbprop\b|\bHookBackward\b"),
    entry("h13b_functional_smooth_l1_loss_default_reduction_none", FAMILY,
          "probe (torch 2.13 / MindSpore 2.10, CPU): mindspore.ops.smooth_l1_loss(reduction='none' default) vs torch.nn.functional.smooth_l1_loss",
          _TorchDenoiseLoss, lambda: _MsDenoiseLoss(None), lambda: _MsDenoiseLoss("mean"),
          ("after:fc",), ("reduction|mean",),
          inputs={"x": uniform(3, 6), "y": uniform(3, 4)}, fails_with="shape",
          cause_pattern=r"\breduction\b[^.]*\bmean\b|\bsmooth_l1_loss\b[^.]*\bmean\b"),
    entry("h13b_torch_range_inclusive_end_as_ops_range", FAMILY, "range",
          _TorchShiftFeatures, lambda: _MsShiftFeatures(2.0), lambda: _MsShiftFeatures(3.0),
          ("after:fc",), ("range|inclusive|exclusive",),
          inputs={"x": uniform(3, 6)}, fails_with="shape",
          cause_pattern=r"\b(?:ops\.)?range\b[^.]*\b(?:inclusive|exclusive|excludes?|includes?|end\s*\+\s*1)\b|"
                        r"\b(?:inclusive|exclusive|excludes?|includes?)\b[^.]*\brange\b|"
                        r"\b(?:a)?range\(\s*-2(?:\.0)?\s*,\s*3(?:\.0)?\b"),
    entry("h13b_quantile_no_cpu_kernel_raises", FAMILY,
          "probe (torch 2.13 / MindSpore 2.10, CPU): mindspore.ops.quantile on CPU (kernel select fails) vs torch.quantile",
          _TorchRobustScale, _MsRobustScaleQuantile, _MsRobustScaleSorted,
          ("after:fc1",), ("quantile|kernel|sort",),
          inputs={"x": uniform(4, 6)}, fails_with="error",
          cause_pattern=r"\bquantile\b[^.]*\b(?:kernel|CPU|sort\w*|unsupported|not supported)\b|"
                        r"\b(?:kernel|CPU|sort\w*|unsupported|not supported)\b[^.]*\bquantile\b"),
]
