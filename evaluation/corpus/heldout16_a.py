"""Held-out set 16, half a: APIs the mapping table calls consistent that differ on some inputs (blind).

Each entry is one porting difference found by probing torch 2.13 / MindSpore 2.10 on CPU with edge inputs.
This file holds the functional ops in forward/construct; heldout16_a_more.py the layers, losses, gradient-only
entries and the optimizer; heldout16_a_ports.py the two model blocks.
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

PROBE = "probe:"

from evaluation.corpus.heldout16_a_more import _ALLOWED, _MASKED_INF, _TARGET

# ---------------------------------------------------------------------------------------------------------
# 1. A constant tensor built with a float fill value.
def _full_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 5)
            self.fc2 = torch.nn.Linear(5, 3)

        def forward(self, x):
            h = self.fc1(x)
            gate = torch.full((h.shape[0], 1), 0.75)
            return self.fc2(h * gate)

    return Net()


def _full_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 5)
            self.fc2 = nn.Dense(5, 3)

        def construct(self, x):
            h = self.fc1(x)
            if fixed:
                gate = ops.full((h.shape[0], 1), 0.75, dtype=ms.float32)
            else:
                gate = ops.full((h.shape[0], 1), 0.75)
            return self.fc2(h * gate)

    return Net()


# ---------------------------------------------------------------------------------------------------------
# 2. A NaN-padded median: torch.sort puts NaN last.
# Left-padded rows (the padding first), as a decoder's batches are.
_MEDIAN_MASK = np.array([[0, 0, 0, 1, 1, 1], [0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 1], [0, 0, 1, 1, 1, 1]], dtype=bool)


def _median_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(4, 1)

        def forward(self, x, valid):
            h = self.proj(x).squeeze(-1)                       # (B, L)
            h = torch.where(valid, h, torch.full_like(h, float("nan")))
            ordered = torch.sort(h, dim=1).values              # NaN padding sorts last
            count = valid.sum(dim=1, keepdim=True)
            return torch.gather(ordered, 1, (count - 1) // 2)

    return Net()


def _median_ms(fixed):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = nn.Dense(4, 1)

        def construct(self, x, valid):
            h = self.proj(x).squeeze(-1)
            if fixed:
                h = ops.where(valid, h, ops.full_like(h, float("inf")))
            else:
                h = ops.where(valid, h, ops.full_like(h, float("nan")))
            ordered = ops.sort(h, axis=1)[0]
            count = valid.astype(ms_int64()).sum(axis=1, keepdims=True)
            return ops.gather_elements(ordered, 1, (count - 1) // 2)

    return Net()


def ms_int64():
    import mindspore as ms

    return ms.int64


# ---------------------------------------------------------------------------------------------------------
# 3. A cumulative sum in float16 (positions from predicted durations).
def _cumsum_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.duration = torch.nn.Linear(4, 1)

        def forward(self, x):
            d = torch.sigmoid(self.duration(x)).squeeze(-1).half()   # (B, L) in float16
            ends = torch.cumsum(d, dim=1)
            return ends.float()

    return Net()


def _cumsum_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.duration = nn.Dense(4, 1)

        def construct(self, x):
            d = ops.sigmoid(self.duration(x)).squeeze(-1).astype(ms.float16)
            if fixed:
                ends = ops.cumsum(d.astype(ms.float32), axis=1).astype(ms.float16)
            else:
                ends = ops.cumsum(d, axis=1)
            return ends.astype(ms.float32)

    return Net()


# ---------------------------------------------------------------------------------------------------------
# 4. The last frames taken with a negative start.
def _narrow_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 6)
            self.head = torch.nn.Linear(6, 2)

        def forward(self, x):
            h = torch.tanh(self.enc(x))            # (B, L, D)
            tail = h.narrow(1, -3, 3)              # the last three frames
            return self.head(tail.mean(dim=1))

    return Net()


def _narrow_ms(fixed):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(4, 6)
            self.head = nn.Dense(6, 2)

        def construct(self, x):
            h = ops.tanh(self.enc(x))
            if fixed:
                tail = ops.narrow(h, 1, h.shape[1] - 3, 3)
            else:
                tail = ops.narrow(h, 1, -3, 3)
            return self.head(tail.mean(axis=1))

    return Net()



# ---------------------------------------------------------------------------------------------------------
# 10. The same masking with the functional NLL on log-probabilities (constrained decoding).
def _masked_nll_torch():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 5)

        def forward(self, x, allowed, target):
            logp = F.log_softmax(self.fc(x).masked_fill(~allowed, float("-inf")), dim=-1)
            return F.nll_loss(logp, target, reduction="none")

    return Net()


def _masked_nll_ms(fixed):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(6, 5)

        def construct(self, x, allowed, target):
            logp = ops.log_softmax(ops.masked_fill(self.fc(x), ~allowed, float("-inf")), axis=-1)
            if fixed:
                return -ops.gather_elements(logp, 1, target.unsqueeze(1)).squeeze(1)
            return ops.nll_loss(logp, target, reduction="none")

    return Net()


ENTRIES = [
    entry("h16a_constant_gate_ops_full_float_fill_inferred_int64", "h16", PROBE + "torch.full vs ops.full fill dtype",
          _full_torch, lambda: _full_ms(False), lambda: _full_ms(True),
          ("after:fc1",), ("ops.full|dtype|int64|float32|fill_value",),
          inputs={"x": uniform(4, 6)},
          cause_pattern=r"\b(ops\.)?full\b[^.]*\b(dtype|float32|int64|integer)\b|\b(dtype|float32|int64|integer)\b[^.]*\b(ops\.)?full\b"),
    entry("h16a_nan_padded_median_ops_sort_nan_first", "h16", PROBE + "torch.sort vs ops.sort NaN placement",
          _median_torch, lambda: _median_ms(False), lambda: _median_ms(True),
          ("after:proj",), ("ops.sort|NaN|order|last|first",),
          inputs={"x": uniform(4, 6, 4), "valid": given(_MEDIAN_MASK)}, fails_with="nonfinite",
          cause_pattern=r"\b(ops\.)?sort\b[^.]*\bnan\b|\bnan\b[^.]*\b(ops\.)?sort(ed|s|ing)?\b"),
    entry("h16a_duration_cumsum_float16_accumulates_in_half", "h16", PROBE + "torch.cumsum vs ops.cumsum float16 accumulation",
          _cumsum_torch, lambda: _cumsum_ms(False), lambda: _cumsum_ms(True),
          ("after:duration",), ("ops.cumsum|float16|accumulat|float32",),
          inputs={"x": uniform(2, 640, 4)},
          cause_pattern=r"\bcumsum\b[^.]*\b(float16|fp16|half|float32|accumulat\w*|precision)\b|\b(float16|fp16|half|float32|accumulat\w*|precision)\b[^.]*\bcumsum\b"),
    entry("h16a_last_frames_narrow_negative_start_raises", "h16", PROBE + "torch.narrow vs ops.narrow negative start",
          _narrow_torch, lambda: _narrow_ms(False), lambda: _narrow_ms(True),
          ("after:enc",), ("ops.narrow|negative|start",),
          inputs={"x": uniform(2, 7, 4)}, fails_with="error",
          cause_pattern=r"\bnarrow\b[^.]*(\bnegative\b|\bstart\b|-3\b|\bshape\[1\]\s*-\s*3\b)|\b(negative|start)\b[^.]*\bnarrow\b"),
    entry("h16a_constrained_decoding_ops_nll_loss_neg_inf_log_probs_nan", "h16", PROBE + "F.nll_loss vs ops.nll_loss with -inf log-probabilities",
          _masked_nll_torch, lambda: _masked_nll_ms(False), lambda: _masked_nll_ms(True),
          ("after:fc",), ("nll_loss|-inf|NaN|gather",),
          inputs={"x": uniform(6, 6), "allowed": given(_ALLOWED), "target": given(_TARGET)}, fails_with="nonfinite",
          cause_pattern=r"\bnll_?loss\b[^.]*" + _MASKED_INF + r"|" + _MASKED_INF + r"[^.]*\bnll_?loss\b"),
]

from evaluation.corpus.heldout16_a_more import ENTRIES as _MORE  # noqa: E402
from evaluation.corpus.heldout16_a_ports import ENTRIES as _PORTS  # noqa: E402

ENTRIES += _MORE + _PORTS
