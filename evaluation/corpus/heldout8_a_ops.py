"""Held-out set 8, half a: single-API differences (family "h8"), written blind: functional ops in forward/construct,
one gradient-only entry and one learning-rate schedule. Every naive port differs from its correct twin in one place.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

FAM = "h8"


# ---------------------------------------------------------------- functional ops

def _diag_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)

        def forward(self, x):
            v = self.fc(x).mean(0)
            return torch.diag(v, 1)
    return Net()


def _diag_ms(correct):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(3, 4)

            def construct(self, x):
                v = self.fc(x).mean(0)
                return ops.diagflat(v, 1) if correct else ops.diag(v)
        return Net()
    return make


def _biasadd_torch():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 8)
            self.w2 = torch.nn.Parameter(torch.randn(8, 8) * 0.3)
            self.b2 = torch.nn.Parameter(torch.randn(8))

        def forward(self, x):
            return F.linear(torch.relu(self.fc1(x)), self.w2, self.b2)
    return Net()


def _biasadd_ms(correct):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(5, 8)
                self.w2 = ms.Parameter(ms.Tensor(np.zeros((8, 8), np.float32)), name="w2")
                self.b2 = ms.Parameter(ms.Tensor(np.zeros((8,), np.float32)), name="b2")
                self.bias_add = ops.BiasAdd()

            def construct(self, x):
                h = ops.relu(self.fc1(x))
                y = ops.matmul(h, self.w2.T)
                return y + self.b2 if correct else self.bias_add(y, self.b2)
        return Net()
    return make


POS_WEIGHT = np.array([3.0, 1.0, 0.5, 2.0], np.float32)


def _bce_torch():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 4)
            self.pos_weight = torch.tensor(POS_WEIGHT)

        def forward(self, x, y):
            return F.binary_cross_entropy_with_logits(self.fc(x), y, pos_weight=self.pos_weight)
    return Net()


def _bce_ms(correct):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(6, 4)
                self.pos_weight = ms.Tensor(POS_WEIGHT)
                self.sigmoid_ce = ops.SigmoidCrossEntropyWithLogits()

            def construct(self, x, y):
                logits = self.fc(x)
                if correct:
                    return ops.binary_cross_entropy_with_logits(logits, y, pos_weight=self.pos_weight)
                return self.sigmoid_ce(logits, y).mean()
        return Net()
    return make


def _slice_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 8)

        def forward(self, x):
            h = torch.tanh(self.fc(x))
            return h[:, 2:5]
    return Net()


def _slice_ms(correct):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 8)

            def construct(self, x):
                h = ops.tanh(self.fc(x))
                n = h.shape[0]
                return ops.slice(h, (0, 2), (n, 3)) if correct else ops.slice(h, (0, 2), (n, 5))
        return Net()
    return make


def _argmax_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.score = torch.nn.Linear(4, 5)

        def forward(self, x):
            s = self.score(x)
            return s, torch.argmax(s)
    return Net()


def _argmax_ms(correct):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.score = nn.Dense(4, 5)
                self.argmax = ops.Argmax(output_type=ms.int64)

            def construct(self, x):
                s = self.score(x)
                return s, (ops.argmax(s) if correct else self.argmax(s))
        return Net()
    return make


# ---------------------------------------------------------------- gradient only

def _var_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.Tanh()
            self.fc = torch.nn.Linear(2, 3)

        def forward(self, x):
            h = self.act(x)
            feats = torch.cat([h.mean(-1, keepdim=True), torch.var(h, dim=-1, keepdim=True)], -1)
            return self.fc(feats)
    return Net()


def _var_ms(correct):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = nn.Tanh()
                self.fc = nn.Dense(2, 3)

            def construct(self, x):
                h = self.act(x)
                mean = h.mean(-1, keep_dims=True)
                if correct:
                    d = h - mean
                    var = (d * d).sum(-1, keepdims=True) / (h.shape[-1] - 1)
                else:
                    var = ops.var(h, axis=-1, ddof=1, keepdims=True)
                return self.fc(ops.cat([mean, var], -1))
        return Net()
    return make


def _frames():
    rng = np.random.default_rng(81)
    x = rng.uniform(-1.0, 1.0, size=(6, 8)).astype(np.float32)
    x[1] = 0.0  # a silent frame
    x[4] = 0.25  # a frame stuck at a DC offset
    return x


# ---------------------------------------------------------------- learning-rate schedule

def _sched_torch():
    import torch
    return torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))


def _sched_ms():
    import mindspore.nn as nn
    return nn.SequentialCell([nn.Dense(4, 6), nn.Tanh(), nn.Dense(6, 3)])


def _sched_opt(natural):
    from migcheck.case import FrameworkPair

    def torch_opt(params):
        import torch
        return torch.optim.SGD(params, lr=0.1)

    def ms_opt(params):
        import mindspore.nn as nn
        lr = nn.NaturalExpDecayLR(0.1, 0.8, 1) if natural else nn.ExponentialDecayLR(0.1, 0.8, 1)
        return nn.SGD(params, learning_rate=lr)
    return FrameworkPair(torch=torch_opt, mindspore=ms_opt)


def _exp_lr(opt):
    import torch
    return torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)


def _with_naive_optimizer(e, optimizer):
    """The naive port differs in its optimizer (the schedule), not in the network."""
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, optimizer=optimizer))


ENTRIES = [
    entry("h8a_diag_offset_as_ops_diag", FAM, "probe: torch.diag(v, 1) vs ops.diag / ops.diagflat", _diag_torch,
          _diag_ms(False), _diag_ms(True), ["after:fc"], ["diag|diagonal|offset"],
          inputs={"x": uniform(3, 3)}, fails_with="shape",
          cause_pattern=r"\bdiagflat\b|\bdiag_embed\b|\boffset\b[^.]*\b1\b|\bdiagonal\s*=\s*1\b"),
    entry("h8a_bias_add_channel_axis_on_tokens", FAM, "probe: F.linear bias vs ops.BiasAdd on (N, L, C)",
          _biasadd_torch, _biasadd_ms(False), _biasadd_ms(True), ["after:fc1"], ["BiasAdd|bias|axis"],
          inputs={"x": uniform(2, 8, 5)},
          cause_pattern=r"\b(BiasAdd|bias_add)\b|\bbias\b[^.]*\b(axis|dim)\s*(=\s*)?1\b|\bbias\b[^.]*\blast (axis|dim)"),
    entry("h8a_bce_logits_pos_weight_lost_sigmoid_ce", FAM, "probe: BCE-with-logits pos_weight vs SigmoidCrossEntropyWithLogits",
          _bce_torch, _bce_ms(False), _bce_ms(True), ["after:fc"], ["pos_weight|SigmoidCrossEntropyWithLogits"],
          inputs={"x": uniform(5, 6), "y": given((np.random.default_rng(3).uniform(size=(5, 4)) > 0.5).astype(np.float32))},
          cause_pattern=r"\bpos_weight\b"),
    entry("h8a_ops_slice_size_read_as_end", FAM, "probe: ops.slice(input_x, begin, size)", _slice_torch,
          _slice_ms(False), _slice_ms(True), ["after:fc"], ["slice|size|end"],
          inputs={"x": uniform(3, 4)}, fails_with="shape",
          cause_pattern=r"\bslice\b[^.]*\bsize\b|\bsize\b[^.]*\b(not|instead of)\b[^.]*\bend\b|\bnarrow\b|\bstrided_slice\b"),
    entry("h8a_argmax_primitive_default_last_axis", FAM, "probe: torch.argmax(x) (flattened) vs ops.Argmax() (axis=-1)",
          _argmax_torch, _argmax_ms(False), _argmax_ms(True), ["after:score"], ["Argmax|axis|flatten"],
          inputs={"x": uniform(3, 4)}, fails_with="shape",
          cause_pattern=r"\bArgmax\b[^.]*\b(axis|flatten(ed)?)\b|\baxis\s*=\s*None\b|\bflatten(ed|s)?\b[^.]*\bargmax\b|\bops\.argmax\b"),
    entry("h8a_var_gradient_constant_rows", FAM, "probe: ops.var backward on constant rows", _var_torch,
          _var_ms(False), _var_ms(True), ["after:act"], ["var|gradient|nan|constant"],
          inputs={"x": given(_frames())}, checks=("forward", "backward"), fails_with="nonfinite", fails_on=("backward",),
          cause_pattern=r"\bvar\b[^.]*\b(nan|constant|zero variance)\b|\bnan\b[^.]*\bvar(iance)?\b"),
    _with_naive_optimizer(
        entry("h8a_exponential_lr_as_natural_exp_decay", FAM, "ExponentialLR", _sched_torch, _sched_ms, _sched_ms,
              ["optimizer"], ["ExponentialDecayLR|NaturalExpDecayLR"], inputs={"x": uniform(5, 4)},
              checks=("step",), steps=3, optimizer=_sched_opt(False), lr_schedule=_exp_lr,
              cause_pattern=r"\bExponentialDecayLR\b|\bexponential_decay_lr\b|\bgamma\s*\*\*|\b0\.8\s*\*\*"),
        _sched_opt(True)),
]
