"""Held-out set 10, half b, single-API entries (family h10): written blind (see heldout10.py)."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform

H = "h10"


def _torch():
    import torch
    return torch


def _ms():
    import mindspore
    from mindspore import nn, ops
    return mindspore, nn, ops


# --- 1. KL divergence whose target is produced by the network (gradient-only) --------------------------------

def t_kl_target():
    torch = _torch()
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 5)
            self.fc2 = torch.nn.Linear(6, 5)

        def forward(self, x):
            student = F.log_softmax(self.fc1(x), dim=-1)
            teacher = F.softmax(self.fc2(x), dim=-1)
            return F.kl_div(student, teacher, reduction="none")
    return Net()


def _ms_kl_target(naive):
    ms, nn, ops = _ms()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 5)
            self.fc2 = nn.Dense(6, 5)

        def construct(self, x):
            student = ops.log_softmax(self.fc1(x), -1)
            teacher = ops.softmax(self.fc2(x), -1)
            if naive:
                return ops.kl_div(student, teacher, reduction="none")
            return teacher * (ops.log(teacher) - student)
    return Net()


# --- 2. Knowledge-distillation block with nn.KLDivLoss and a trainable teacher head (gradient-only) ------------

def t_kldivloss():
    torch = _torch()
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.student = torch.nn.Linear(8, 4)
            self.teacher = torch.nn.Linear(8, 4)
            self.kl = torch.nn.KLDivLoss(reduction="batchmean")

        def forward(self, x):
            t = 2.0
            return self.kl(F.log_softmax(self.student(x) / t, dim=1), F.softmax(self.teacher(x) / t, dim=1)) * t * t
    return Net()


def _ms_kldivloss(naive):
    ms, nn, ops = _ms()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.student = nn.Dense(8, 4)
            self.teacher = nn.Dense(8, 4)
            self.kl = nn.KLDivLoss(reduction="batchmean")

        def construct(self, x):
            t = 2.0
            logp = ops.log_softmax(self.student(x) / t, 1)
            q = ops.softmax(self.teacher(x) / t, 1)
            if naive:
                loss = self.kl(logp, q)
            else:
                loss = (q * (ops.log(q) - logp)).sum() / x.shape[0]
            return loss * t * t
    return Net()


# --- 3. Box-Cox power transform with a small lambda (expm1) -----------------------------------------------------

LAM = 1e-6


def t_boxcox():
    torch = _torch()
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            h = F.softplus(self.fc1(x)) + 0.5
            y = torch.expm1(LAM * torch.log(h)) / LAM
            return self.fc2(y)
    return Net()


def _ms_boxcox(naive):
    ms, nn, ops = _ms()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 6)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x):
            h = ops.softplus(self.fc1(x)) + 0.5
            z = LAM * ops.log(h)
            if naive:
                y = ops.expm1(z) / LAM
            else:
                y = (ops.expm1(z.astype(ms.float64)) / LAM).astype(ms.float32)
            return self.fc2(y)
    return Net()


# --- 4. Inverse Box-Cox with a small lambda (log1p) ---------------------------------------------------------------

def t_inv_boxcox():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            y = self.fc1(x)
            log_x = torch.log1p(LAM * y) / LAM
            return self.fc2(log_x)
    return Net()


def _ms_inv_boxcox(naive):
    ms, nn, ops = _ms()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 6)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x):
            y = self.fc1(x)
            if naive:
                log_x = ops.log1p(LAM * y) / LAM
            else:
                log_x = (ops.log1p(LAM * y.astype(ms.float64)) / LAM).astype(ms.float32)
            return self.fc2(log_x)
    return Net()


# --- 5. Linear(bias=False) ported with torch's keyword (raises) --------------------------------------------------

def t_dense_nobias():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(6, 8, bias=False)
            self.out = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.out(torch.relu(self.proj(x)))
    return Net()


def _ms_dense_nobias(naive):
    ms, nn, ops = _ms()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            if naive:
                self.proj = nn.Dense(6, 8, bias=False)
            else:
                self.proj = nn.Dense(6, 8, has_bias=False)
            self.out = nn.Dense(8, 2)

        def construct(self, x):
            return self.out(ops.relu(self.proj(x)))
    return Net()


ENTRIES = [
    entry("h10b_kl_div_no_gradient_to_network_target", H, "probe:ops.kl_div backward w.r.t. target (torch 2.13 / MindSpore 2.10 CPU)",
          t_kl_target, lambda: _ms_kl_target(True), lambda: _ms_kl_target(False),
          ("after:fc2",), ("kl_div|target|gradient",), inputs={"x": uniform(3, 6)},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bkl_?div\w*\b[^.]*\b(target|label|teacher|second (argument|input))s?\b[^.]*\b(grad\w*|backward|differentiab\w*)\b"
                        r"|\b(grad\w*|backward|differentiab\w*)\b[^.]*\b(target|label|teacher|second (argument|input))s?\b[^.]*\bkl_?div\w*\b"
                        r"|\bkl_?div\w*\b[^.]*\b(grad\w*|backward|differentiab\w*)\b[^.]*\b(target|label|teacher|second (argument|input))s?\b"),
    entry("h10b_kldivloss_trainable_teacher_gradient", H, "probe:nn.KLDivLoss backward w.r.t. its target (torch 2.13 / MindSpore 2.10 CPU)",
          t_kldivloss, lambda: _ms_kldivloss(True), lambda: _ms_kldivloss(False),
          ("kl",), ("KLDivLoss|target|gradient",), inputs={"x": uniform(4, 8)},
          checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=r"\bkl_?div\w*\b[^.]*\b(target|label|teacher|second (argument|input))s?\b[^.]*\b(grad\w*|backward|differentiab\w*)\b"
                        r"|\b(grad\w*|backward|differentiab\w*)\b[^.]*\b(target|label|teacher|second (argument|input))s?\b[^.]*\bkl_?div\w*\b"
                        r"|\bkl_?div\w*\b[^.]*\b(grad\w*|backward|differentiab\w*)\b[^.]*\b(target|label|teacher|second (argument|input))s?\b"),
    entry("h10b_boxcox_expm1_small_lambda_precision", H, "probe:ops.expm1 float32 accuracy for tiny arguments (torch 2.13 / MindSpore 2.10 CPU)",
          t_boxcox, lambda: _ms_boxcox(True), lambda: _ms_boxcox(False),
          ("after:fc1",), ("expm1|precision|small argument",), inputs={"x": uniform(3, 4)},
          cause_pattern=r"\bexpm1\b[^.]*\b(precision|accura\w*|cancell?ation|float64|double|small|tiny|exp\(x\) ?- ?1)\b"
                        r"|\b(precision|accura\w*|cancell?ation|float64|double)\b[^.]*\bexpm1\b"),
    entry("h10b_inverse_boxcox_log1p_small_lambda_precision", H, "probe:ops.log1p float32 accuracy for tiny arguments (torch 2.13 / MindSpore 2.10 CPU)",
          t_inv_boxcox, lambda: _ms_inv_boxcox(True), lambda: _ms_inv_boxcox(False),
          ("after:fc1",), ("log1p|precision|small argument",), inputs={"x": uniform(3, 4)},
          cause_pattern=r"\blog1p\b[^.]*\b(precision|accura\w*|cancell?ation|float64|double|small|tiny|log\(1 ?\+ ?x\))\b"
                        r"|\b(precision|accura\w*|cancell?ation|float64|double)\b[^.]*\blog1p\b"),
    entry("h10b_dense_bias_false_keyword_raises", H, "Linear",
          t_dense_nobias, lambda: _ms_dense_nobias(True), lambda: _ms_dense_nobias(False),
          ("proj",), ("has_bias|bias keyword",), inputs={"x": uniform(3, 6)}, fails_with="error",
          cause_pattern=r"\bhas_bias\s*=\s*False\b|\bhas_bias\b[^.]*\bbias\b|\bbias\b[^.]*\bhas_bias\b"),
]
