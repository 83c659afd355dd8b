"""Held-out set 4, half b: optimizers and learning-rate schedules (family "h4", layer "optimizer").

The same small regression net on both sides (fc1 -> tanh -> fc2, MSE loss), stepped a few times; only the
MindSpore optimizer (or its learning-rate schedule) differs between the naive and the correct port.
"""
from __future__ import annotations

import math

import mindspore.nn as mnn
import torch
import torch.nn as tnn
from mindspore import ops
from mindspore.experimental.optim import Adagrad as AdagradTorchLike
from mindspore.experimental.optim import RMSprop as RMSpropTorchLike

from evaluation.corpus.build import entry
from evaluation.corpus.heldout4_b import probe_source
from migcheck.case import FrameworkPair
from migcheck.specs import uniform

FAM = "h4"


class TorchNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tnn.Linear(4, 6)
        self.fc2 = tnn.Linear(6, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class MsNet(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = mnn.Dense(4, 6)
        self.fc2 = mnn.Dense(6, 3)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)))


MSE = FrameworkPair(torch=lambda: tnn.MSELoss(), mindspore=lambda: mnn.MSELoss())
INPUTS = {"x": uniform(6, 4), "y": uniform(6, 3)}


def opt_entry(name, source, torch_opt, naive_opt, correct_opt, words, pattern, *, steps=3, inputs=INPUTS, **kw):
    return probe_source(entry(name, FAM, source, TorchNet, MsNet, MsNet, ("optimizer",), (words,), inputs=inputs,
                              checks=("step",), cause_pattern=pattern, loss=MSE, targets=("y",), steps=steps,
                              optimizer=FrameworkPair(torch=torch_opt, mindspore=naive_opt), **kw), source)


def _with_correct(e, correct_opt):
    """The entry with its correct port's optimizer swapped in (entry() builds both cases from one optimizer)."""
    import dataclasses

    correct = dataclasses.replace(e.correct, optimizer=FrameworkPair(torch=e.naive.optimizer.torch,
                                                                     mindspore=correct_opt))
    return dataclasses.replace(e, correct=correct)


ENTRIES = []

# torch.optim.Adagrad starts its accumulator at initial_accumulator_value=0; mindspore.nn.Adagrad's accum
# defaults to 0.1, which damps the first steps. The correct port is the torch-like
# mindspore.experimental.optim.Adagrad: nn.Adagrad(accum=0.0) comes close but its kernel behaves as if about 1e-8
# sat under the square root, which shows (up to ~2e-3 per step at lr 0.1) on gradients below ~1e-3.
ENTRIES.append(_with_correct(opt_entry(
    "h4b_adagrad_accum_default", "Adagrad",
    lambda p: torch.optim.Adagrad(p, lr=0.1),
    lambda p: mnn.Adagrad(p, learning_rate=0.1),
    None, "accum|initial_accumulator_value",
    r"\b(accum|initial_accumulator_value)\b(?:[^.\n]|\.(?=\w)){0,40}(?<![\d.])0(\.0+)?\b(?!\.\d)"
    r"|\bexperimental\.optim\.Adagrad\b"),
    lambda p: AdagradTorchLike(p, lr=0.1)))

# torch RMSprop starts its square average at 0; mindspore.nn.RMSProp starts its mean_square at ONES (and has no
# option to change it), so a port with every argument mapped (alpha -> decay, eps -> epsilon) still takes far
# smaller first steps. The torch-like mindspore.experimental.optim.RMSprop starts at zero.
ENTRIES.append(_with_correct(opt_entry(
    "h4b_rmsprop_mean_square_starts_at_one", "probe: nn.RMSProp mean_square init='ones' vs torch square_avg zeros",
    lambda p: torch.optim.RMSprop(p, lr=0.01),
    lambda p: mnn.RMSProp(p, learning_rate=0.01, decay=0.99, epsilon=1e-8),
    None, "mean_square|square_avg|RMSprop",
    r"\bmean_square\b|\bsquare_avg\b|\bexperimental\.optim\.RMSprop\b|\b(mean[_ ]squares?|second moment|"
    r"accumulator|moving average of (the )?squared? grad\w*|squared?[- ]grad\w*( average)?)\b"
    r"(?:[^.\n]|\.(?=\w)){0,60}\b(ones?|1(\.0)?|zeros?|0(\.0)?)\b(?!\.\d)|\binit\w*\b(?:[^.\n]|\.(?=\w)){0,40}\bones\b"),
    lambda p: RMSpropTorchLike(p, lr=0.01)))

# torch Adam(amsgrad=True) ported as mindspore.nn.Adam without use_amsgrad: identical until the second moment
# shrinks (beta2=0.5 here, so it does within a few steps).
ENTRIES.append(_with_correct(opt_entry(
    "h4b_adam_amsgrad_dropped", "probe: nn.Adam(use_amsgrad=False) default vs torch Adam(amsgrad=True)",
    lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.9, 0.5), amsgrad=True),
    lambda p: mnn.Adam(p, learning_rate=0.05, beta1=0.9, beta2=0.5),
    None, "amsgrad|use_amsgrad",
    r"\b(use_)?amsgrad\b", steps=5),
    lambda p: mnn.Adam(p, learning_rate=0.05, beta1=0.9, beta2=0.5, use_amsgrad=True)))


# torch CosineAnnealingLR is periodic: stepped past T_max the rate climbs back up. mindspore.nn.CosineDecayLR
# clamps the step at decay_steps and stays at min_lr. Correct port: the rates as an explicit per-step list.
def _cosine_rates(steps, t_max=3, lr=0.1, eta_min=0.01):
    return [eta_min + 0.5 * (lr - eta_min) * (1 + math.cos(math.pi * t / t_max)) for t in range(steps)]


ENTRIES.append(_with_correct(opt_entry(
    "h4b_cosine_annealing_past_t_max_as_cosine_decay",
    "probe: nn.CosineDecayLR clamps at decay_steps; torch CosineAnnealingLR is periodic past T_max",
    lambda p: torch.optim.SGD(p, lr=0.1),
    lambda p: mnn.SGD(p, learning_rate=mnn.CosineDecayLR(min_lr=0.01, max_lr=0.1, decay_steps=3)),
    None, "CosineDecayLR|T_max|periodic|cosine",
    r"\b(periodic\w*|restart\w*|clamp\w*|climb\w*|ris(e|es|ing)|increas\w*|back up)\b[^\n]{0,120}"
    r"\b(T_max|decay_steps|min_lr|eta_min)\b|\b(T_max|decay_steps|min_lr|eta_min)\b[^\n]{0,120}"
    r"\b(periodic\w*|restart\w*|clamp\w*|climb\w*|ris(e|es|ing)|increas\w*|back up|stays?|holds?)\b"
    r"|\blearning_rate\s*=\s*\[",
    steps=6, lr_schedule=lambda opt: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=0.01)),
    lambda p: mnn.SGD(p, learning_rate=_cosine_rates(6))))
