"""Held-out set 15, half a (families h15 / h15-port): single-difference ports leaning on training and numerics.

Written blind (without reading migcheck's localization, mapping, judging or running code). Each entry's naive port
differs from its correct port in one nameable API choice; torch and MindSpore are imported inside the factories."""
from __future__ import annotations

import dataclasses

import numpy as np

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, given, integers, uniform

H = "h15"
P = "h15-port"
PR = "probe (torch 2.13/MindSpore 2.10, CPU): "


# ----------------------------------------------------------------------------------------------- losses in a net

def _gnll_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)
            self.crit = torch.nn.GaussianNLLLoss(full=True)

        def forward(self, x, target):
            h = self.fc(x)
            var = torch.nn.functional.softplus(h[:, 3:]) + 0.1
            return self.crit(h[:, :3], target, var)
    return Net()


def _gnll_ms(full):
    def make():
        from mindspore import nn, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 6)
                self.crit = nn.GaussianNLLLoss(full=True) if full else nn.GaussianNLLLoss()

            def construct(self, x, target):
                h = self.fc(x)
                var = ops.softplus(h[:, 3:]) + 0.1
                return self.crit(h[:, :3], target, var)
        return Net()
    return make


def _mmargin_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)
            self.crit = torch.nn.MultiMarginLoss(p=2)

        def forward(self, x, label):
            return self.crit(self.fc(x), label)
    return Net()


def _mmargin_ms(p2):
    def make():
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 5)
                self.crit = nn.MultiMarginLoss(p=2) if p2 else nn.MultiMarginLoss()

            def construct(self, x, label):
                return self.crit(self.fc(x), label)
        return Net()
    return make


_MLSM_W = [0.2, 1.0, 2.5, 0.5, 1.5]
_MLSM_T = np.array([[1, 0, 1, 0, 0], [0, 1, 1, 1, 0], [1, 1, 0, 0, 1], [0, 0, 0, 1, 1], [1, 0, 0, 1, 0],
                    [0, 1, 0, 0, 1]], np.float32)


def _mlsm_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x, target):
            weight = torch.tensor(_MLSM_W, dtype=x.dtype)
            return torch.nn.functional.multilabel_soft_margin_loss(self.fc(x), target, weight=weight)
    return Net()


def _mlsm_ms(weighted):
    def make():
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 5)
                if weighted:
                    self.crit = nn.MultiLabelSoftMarginLoss(weight=ms.Tensor(np.array(_MLSM_W, np.float32)))
                else:
                    self.crit = nn.MultiLabelSoftMarginLoss()

            def construct(self, x, target):
                return self.crit(self.fc(x), target)
        return Net()
    return make


# ------------------------------------------------------------------------------------------- functional ops

def _fc_then_torch(n_in, n_out, fn):
    def make():
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(n_in, n_out)

            def forward(self, x):
                return fn(torch, self.fc(x))
        return Net()
    return make


def _fc_then_ms(n_in, n_out, fn):
    def make():
        from mindspore import nn, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(n_in, n_out)

            def construct(self, x):
                return fn(ops, self.fc(x))
        return Net()
    return make


# ------------------------------------------------------------------------------------------- gradient-only

def _ste_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            h = self.fc1(x)
            q = h + (torch.round(h * 4.0) / 4.0 - h).detach()
            return self.fc2(q)
    return Net()


def _ste_ms(stop):
    def make():
        from mindspore import nn, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(4, 6)
                self.fc2 = nn.Dense(6, 3)

            def construct(self, x):
                h = self.fc1(x)
                delta = ops.round(h * 4.0) / 4.0 - h
                if stop:
                    delta = ops.stop_gradient(delta)
                return self.fc2(h + delta)
        return Net()
    return make


def _frozen_torch():
    import torch

    class Gain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, 5), requires_grad=False)

        def forward(self, x):
            return x * self.weight

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)
            self.gain = Gain()
            self.out = torch.nn.Linear(5, 3)

        def forward(self, x):
            return self.out(self.gain(self.fc(x)))
    return Net()


def _frozen_ms(frozen):
    def make():
        import mindspore as ms
        from mindspore import nn

        class Gain(nn.Cell):
            def __init__(self):
                super().__init__()
                init = ms.Tensor(np.linspace(0.5, 1.5, 5).astype(np.float32))
                if frozen:
                    self.weight = ms.Parameter(init, name="weight", requires_grad=False)
                else:
                    self.weight = ms.Parameter(init, name="weight")

            def construct(self, x):
                return x * self.weight

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 5)
                self.gain = Gain()
                self.out = nn.Dense(5, 3)

            def construct(self, x):
                return self.out(self.gain(self.fc(x)))
        return Net()
    return make


# ------------------------------------------------------------------------------------- optimizers / schedules

def _lin_torch():
    import torch
    return torch.nn.Sequential(torch.nn.Linear(4, 3))


def _lin_ms():
    from mindspore import nn
    return nn.SequentialCell([nn.Dense(4, 3)])


_LINEAR_LRS = [0.025, 0.04375, 0.0625, 0.08125, 0.1, 0.1, 0.1, 0.1]


def _sgd_ms(kind):
    def make(params):
        from mindspore import nn
        if kind == "warmup":
            lr = nn.WarmUpLR(0.1, 4)
        elif kind == "linear_list":
            lr = list(_LINEAR_LRS)
        elif kind == "exp_continuous":
            lr = nn.ExponentialDecayLR(0.1, 0.5, 2)
        else:
            lr = nn.ExponentialDecayLR(0.1, 0.5, 2, is_stair=True)
        return nn.SGD(params, learning_rate=lr)
    return make


def _sgd_torch(params):
    import torch
    return torch.optim.SGD(params, lr=0.1)


def _linear_lr(opt):
    import torch
    return torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)


def _step_lr(opt):
    import torch
    return torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def _opt_entry(name, family, source, torch_f, ms_f, naive_opt, correct_opt, causes, *, torch_opt=_sgd_torch, **kw):
    """An optimizer entry: the two cases share the network and differ only in MindSpore's optimizer factory."""
    e = entry(name, family, source, torch_f, ms_f, ms_f, ["optimizer"], causes, checks=("step",),
              optimizer=FrameworkPair(torch=torch_opt, mindspore=correct_opt), **kw)
    naive = dataclasses.replace(e.naive, optimizer=FrameworkPair(torch=torch_opt, mindspore=naive_opt))
    return dataclasses.replace(e, naive=naive)


# --------------------------------------------------------------------------------------------- train-mode layer

def _bn_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)
            self.bn = torch.nn.BatchNorm1d(3, track_running_stats=False)
            self.out = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.out(self.bn(self.fc(x)))
    return Net()


def _bn_ms(batch_stats):
    def make():
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)
                self.bn = nn.BatchNorm1d(3, use_batch_statistics=True) if batch_stats else nn.BatchNorm1d(3)
                self.out = nn.Dense(3, 2)

            def construct(self, x):
                return self.out(self.bn(self.fc(x)))
        return Net()
    return make


ENTRIES = [
    entry("h15a_gaussian_nll_loss_full_constant_dropped", H, "GaussianNLLLoss", _gnll_torch, _gnll_ms(False),
          _gnll_ms(True), ["crit"], ["full|constant term|log(2*pi)"],
          inputs={"x": uniform(6, 4), "target": uniform(6, 3)},
          cause_pattern=r"\bfull\s*=\s*True\b|\bfull\b[^.]*\bTrue\b|\bconstant\b[^.]*\blog\s*\(?\s*2\s*\*?\s*"
                        r"(?:pi|π)\b"),
    entry("h15a_multi_margin_loss_squared_hinge_p2_dropped", H,
          PR + "torch.nn.MultiMarginLoss vs mindspore.nn.MultiMarginLoss",
          _mmargin_torch,
          _mmargin_ms(False), _mmargin_ms(True), ["crit"], ["p|squared hinge"],
          inputs={"x": uniform(6, 4), "label": integers(6, high=5)}, checks=("forward", "backward"),
          cause_pattern=r"\bp\s*[=:]\s*2\b|\bp\b[^.]{0,40}\b(?:2|two)\b|\bsquared\b[^.]{0,30}\bhinge\b"),
    entry("h15a_multilabel_soft_margin_loss_class_weight_dropped", H,
          PR + "F.multilabel_soft_margin_loss vs mindspore.nn.MultiLabelSoftMarginLoss", _mlsm_torch,
          _mlsm_ms(False), _mlsm_ms(True), ["after:fc"], ["weight|class weight"],
          inputs={"x": uniform(6, 4), "target": given(_MLSM_T)}, checks=("forward", "backward"),
          cause_pattern=r"\bweight\s*=|\bclass[- ]weights?\b|\bper[- ]class\b[^.]*\bweights?\b|"
                        r"\bweights?\b[^.]*\bper[- ]class\b"),
    entry("h15a_logcumsumexp_as_log_cumsum_exp_overflow", H,
          PR + "torch.logcumsumexp vs ops.log(ops.cumsum("
          "ops.exp))", _fc_then_torch(4, 6, lambda t, h: t.logcumsumexp(h, dim=1)),
          _fc_then_ms(4, 6, lambda o, h: o.log(o.cumsum(o.exp(h), 1))),
          _fc_then_ms(4, 6, lambda o, h: o.logcumsumexp(h, 1)), ["after:fc"], ["logcumsumexp|overflow"],
          inputs={"x": uniform(5, 4, low=-2000.0, high=2000.0)}, fails_with="nonfinite",
          cause_pattern=r"\blogcumsumexp\b"),
    entry("h15a_logit_eps_dropped_saturated_probabilities", H,
          PR + "torch.logit(eps=) vs ops.logit without eps",
          _fc_then_torch(4, 5, lambda t, h: t.logit(t.sigmoid(-t.abs(h)), eps=1e-6)),
          _fc_then_ms(4, 5, lambda o, h: o.logit(o.sigmoid(-o.abs(h)))),
          _fc_then_ms(4, 5, lambda o, h: o.logit(o.sigmoid(-o.abs(h)), eps=1e-6)), ["after:fc"], ["eps|logit|clamp"],
          inputs={"x": uniform(6, 4, low=-60.0, high=60.0)},
          cause_pattern=r"\beps\b[^.]*\b1e-0?6\b|\blogit\b[^.]*\b1e-0?6\b|\bclamp\w*\b[^.]*\b1e-0?6\b"),
    entry("h15a_logsumexp_as_log_sum_exp_overflow", H,
          PR + "torch.logsumexp vs ops.log(ops.sum(ops.exp))",
          _fc_then_torch(4, 6, lambda t, h: t.logsumexp(h, dim=1)),
          _fc_then_ms(4, 6, lambda o, h: o.log(o.sum(o.exp(h), 1))),
          _fc_then_ms(4, 6, lambda o, h: o.logsumexp(h, 1)), ["after:fc"], ["logsumexp|overflow"],
          inputs={"x": uniform(5, 4, low=-2000.0, high=2000.0)}, fails_with="nonfinite",
          cause_pattern=r"\blogsumexp\b"),
    entry("h15a_straight_through_round_stop_gradient_dropped", H,
          PR + "Tensor.detach vs ops.stop_gradient",
          _ste_torch, _ste_ms(False), _ste_ms(True), ["after:fc1"], ["stop_gradient|detach|straight-through"],
          inputs={"x": uniform(5, 4)}, checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bstop_gradient\b|\bdetach\b|\bstraight[- ]through\b"),
    entry("h15a_frozen_parameter_requires_grad_false_dropped", H,
          PR + "nn.Parameter requires_grad=False",
          _frozen_torch, _frozen_ms(False), _frozen_ms(True), ["gain"], ["requires_grad|frozen"],
          inputs={"x": uniform(5, 4)}, checks=("forward", "backward"), fails_with="structure",
          cause_pattern=r"\brequires_grad\s*=\s*False\b|\brequires_grad\b[^.]*\bFalse\b|\bfrozen\b|"
                        r"\bnot trainable\b|\bnon-trainable\b"),
    _opt_entry("h15a_linearlr_warmup_as_warmuplr_starting_at_zero", H,
               PR + "LinearLR(start_factor) vs "
               "nn.WarmUpLR (starts at 0)", _lin_torch, _lin_ms, _sgd_ms("warmup"), _sgd_ms("linear_list"),
               ["start_factor|LinearLR|WarmUpLR"], inputs={"x": uniform(4, 4)}, steps=4, lr_schedule=_linear_lr,
               cause_pattern=r"\bstart_factor\b|\bLinearLR\b|\bWarmUpLR\b[^.]*\b(?:starts?|begins?)\b[^.]*"
                             r"\b(?:0|zero)\b"),
    _opt_entry("h15a_steplr_as_exponential_decay_lr_is_stair_dropped", H, "ExponentialDecayLR", _lin_torch, _lin_ms,
               _sgd_ms("exp_continuous"), _sgd_ms("exp_stair"), ["is_stair|StepLR"], inputs={"x": uniform(4, 4)},
               steps=4, lr_schedule=_step_lr, cause_pattern=r"\bis_stair\b"),
    entry("h15a_batchnorm1d_track_running_stats_false_moving_stats_in_eval", H, "BatchNorm1d", _bn_torch,
          _bn_ms(False), _bn_ms(True), ["bn"], ["use_batch_statistics|track_running_stats"],
          inputs={"x": uniform(6, 4)}, checks=("forward", "backward"),
          constant_params=("bn.moving_mean", "bn.moving_variance"),
          cause_pattern=r"\buse_batch_statistics\s*=\s*True\b|\buse_batch_statistics\b[^.]*\bTrue\b|"
                        r"\btrack_running_stats\s*=\s*False\b|\btrack_running_stats\b[^.]*\bFalse\b"),
]

