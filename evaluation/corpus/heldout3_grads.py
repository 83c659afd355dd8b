"""Held-out set 3 (blind): backward-only differences of ops inside construct, and learning-rate schedules.

The backward entries quantize fc1's output with a straight-through estimator (fake quantization, as in
quantization-aware training), so the op after it sees exact kink values (0, bounds, +-3, the origin) while
gradients still flow. Forward outputs agree; only the gradients at the kinks differ (probed on torch 2.13 /
MindSpore 2.10 CPU). The schedule entries use the step check with a scheduler stepped after every update.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from mindspore import nn as mnn
from mindspore import ops

from evaluation.corpus.build import entry
from evaluation.corpus.heldout3_ops import PROBE, m_net, t_net
from migcheck.case import FrameworkPair
from migcheck.specs import uniform

FAM = "h3"


def t_ste(op):
    """fc1's output rounded (value) with an identity gradient, then op."""
    return lambda h: op(h.round().detach() + (h - h.detach()))


def m_ste(op):
    return lambda h: op(ops.stop_gradient(ops.round(h)) + (h - ops.stop_gradient(h)))


def kink_pattern(op: str) -> str:
    """The op named together with its gradient (or bound) in one sentence, in either order."""
    return rf"\b{op}\b[^.]*\b(grad\w*|bound\w*|kink|edge)\b|\b(grad\w*|bound\w*)\b[^.]*\b{op}\b"


def kink(name, source, t_op, naive_op, correct_op, pattern, words, *, fails_with="value", x=None):
    return entry(name, FAM, source, t_net(t_ste(t_op)), m_net(m_ste(naive_op)), m_net(m_ste(correct_op)),
                 ("after:fc1",), (words,), inputs={"x": x or uniform(6, 4, low=-2.0, high=2.0)},
                 checks=("forward", "backward"), fails_with=fails_with, fails_on=("backward",),
                 cause_pattern=pattern)


def _m_relu6_torch_grad(x):
    inside = ops.logical_and(x > 0, x < 6)
    return ops.where(inside, x, ops.stop_gradient(ops.clamp(x, 0.0, 6.0)))


relu6_at_6 = kink(
    "h3_relu6_gradient_at_upper_bound", PROBE + "ReLU6", lambda q: F.relu6(q + 5.0), lambda q: ops.relu6(q + 5.0),
    lambda q: _m_relu6_torch_grad(q + 5.0), kink_pattern(r"relu6"), "relu6")

clip_bounds = kink(
    "h3_clamp_as_clip_by_value_gradient_at_bounds", PROBE + "clip_by_value", lambda q: q.clamp(-1.0, 1.0),
    lambda q: ops.clip_by_value(q, -1.0, 1.0), lambda q: ops.clamp(q, -1.0, 1.0),
    r"\bclip_by_value\b|\bclamp\b[^.]*\b(grad\w*|bound\w*)\b|\bgrad\w*\b[^.]*\bclamp\b",
    "clip_by_value|clamp")

leaky_at_0 = kink(
    "h3_leaky_relu_gradient_at_zero", PROBE + "leaky_relu", lambda q: F.leaky_relu(q, 0.1),
    lambda q: ops.leaky_relu(q, 0.1), lambda q: ops.where(q > 0, q, q * 0.1), kink_pattern(r"leaky_?relu"),
    "leaky_relu")


def _m_hardswish_torch_grad(x):
    return ops.where(x <= -3.0, x * 0.0, ops.where(x < 3.0, x * (x + 3.0) / 6.0, x))


hardswish_at_3 = kink(
    "h3_hardswish_gradient_at_plus_minus_3", PROBE + "hardswish", lambda q: F.hardswish(q * 3.0),
    lambda q: ops.hardswish(q * 3.0), lambda q: _m_hardswish_torch_grad(q * 3.0), kink_pattern(r"hard_?swish"),
    "hardswish")


def _m_atan2_safe(q):
    y, x = q[:, :3], q[:, 3:]
    origin = ops.logical_and(y == 0, x == 0)
    return ops.where(origin, y * 0.0, ops.atan2(y, ops.where(origin, ops.ones_like(x), x)))


atan2_origin = entry(
    "h3_atan2_gradient_at_origin", FAM, PROBE + "atan2",
    t_net(t_ste(lambda q: torch.atan2(q[:, :3], q[:, 3:])), dop=3),
    m_net(m_ste(lambda q: ops.atan2(q[:, :3], q[:, 3:])), dop=3), m_net(m_ste(_m_atan2_safe), dop=3),
    ("after:fc1",), ("atan2",), inputs={"x": uniform(8, 4, low=-0.6, high=0.6)}, checks=("forward", "backward"),
    fails_with="nonfinite", fails_on=("backward",),
    cause_pattern=r"\batan2\b[^.]*\b(grad\w*|origin|nan|zero)\b|\b(grad\w*|nan)\b[^.]*\batan2\b")


def _m_norm_safe(v):
    sq = (v * v).sum(-1)
    return ops.where(sq > 0, ops.sqrt(ops.where(sq > 0, sq, ops.ones_like(sq))), sq * 0.0)


norm_zero = entry(
    "h3_vector_norm_gradient_at_zero", FAM, PROBE + "norm",
    t_net(t_ste(lambda q: torch.linalg.vector_norm(q.view(-1, 2, 3), dim=-1)), dop=2),
    m_net(m_ste(lambda q: ops.norm(ops.reshape(q, (-1, 2, 3)), dim=-1)), dop=2),
    m_net(m_ste(lambda q: _m_norm_safe(ops.reshape(q, (-1, 2, 3)))), dop=2),
    ("after:fc1",), ("norm",), inputs={"x": uniform(8, 4, low=-0.5, high=0.5)}, checks=("forward", "backward"),
    fails_with="nonfinite", fails_on=("backward",),
    cause_pattern=r"\bnorm\b[^.]*\b(grad\w*|zero|nan)\b|\b(grad\w*|nan)\b[^.]*\bnorm\b")


# -- learning-rate schedules ported as another rule -------------------------------------------------------
class StepLRSGD(torch.optim.SGD):
    """SGD(lr=0.1) whose StepLR(step_size=2, gamma=0.5) steps after every update."""

    def __init__(self, params):
        super().__init__(params, lr=0.1)
        self.schedule = torch.optim.lr_scheduler.StepLR(self, step_size=2, gamma=0.5)

    def step(self, closure=None):
        loss = super().step(closure)
        self.schedule.step()
        return loss


def _warmup_then_linear(step, warmup=2, total=6):
    return step / warmup if step < warmup else max(0.0, (total - step) / (total - warmup))


class WarmupLinearSGD(torch.optim.SGD):
    """SGD(lr=0.1) with a linear warm-up of 2 steps then linear decay to 0 at step 6 (LambdaLR)."""

    def __init__(self, params):
        super().__init__(params, lr=0.1)
        self.schedule = torch.optim.lr_scheduler.LambdaLR(self, _warmup_then_linear)

    def step(self, closure=None):
        loss = super().step(closure)
        self.schedule.step()
        return loss


def _with_optimizers(e_name, source, torch_opt, naive_opt, correct_opt, pattern, words, steps):
    import dataclasses

    made = entry(e_name, FAM, source, t_net(torch.tanh), m_net(ops.tanh), m_net(ops.tanh), ("optimizer",),
                 (words,), inputs={"x": uniform(4, 4)}, checks=("step",), steps=steps, cause_pattern=pattern,
                 optimizer=FrameworkPair(torch=torch_opt, mindspore=correct_opt))
    naive = dataclasses.replace(made.naive, optimizer=FrameworkPair(torch=torch_opt, mindspore=naive_opt))
    return dataclasses.replace(made, naive=naive)


steplr = _with_optimizers(
    "h3_steplr_as_continuous_exponential_decay", "ExponentialDecayLR", StepLRSGD,
    lambda params: mnn.SGD(params, learning_rate=mnn.ExponentialDecayLR(0.1, 0.5, 2)),
    lambda params: mnn.SGD(params, learning_rate=mnn.ExponentialDecayLR(0.1, 0.5, 2, is_stair=True)),
    r"\bis_stair\b|\bStepLR\b|\bstair(case)?\b", "is_stair|StepLR", steps=3)

warmup_linear = _with_optimizers(
    "h3_warmup_linear_decay_as_warmuplr", PROBE + "WarmUpLR", WarmupLinearSGD,
    lambda params: mnn.SGD(params, learning_rate=mnn.WarmUpLR(0.1, 2)),
    lambda params: mnn.SGD(params, learning_rate=[0.1 * _warmup_then_linear(s) for s in range(6)]),
    r"\b(linear|polynomial)[- ]decay\b|\bPolynomialDecayLR\b|\bLambdaLR\b|\blr_lambda\b|\bWarmUpLR\b",
    "linear decay after warm-up", steps=4)

ENTRIES = [relu6_at_6, clip_bounds, leaky_at_0, hardswish_at_3, atan2_origin, norm_zero, steplr, warmup_linear]
