"""Held-out set 5, half b: errors where MindSpore raises at the ported call, and gradient-only differences.

Written blind like heldout5_b.py (same rules); sources: probes of torch 2.13 / MindSpore 2.10 on CPU.
"""
from __future__ import annotations

import dataclasses

from evaluation.corpus.build import entry
from evaluation.corpus.heldout5_b_nets import PROBE, X, _ms_net, _torch_net
from migcheck.specs import given, uniform

# --- errors: MindSpore raises at the ported call -------------------------------------------------------------

GROUPS = [0, 1, 0, 2, 1, 2]  # six nodes pooled into three groups


def _pool_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 4)
            self.fc2 = torch.nn.Linear(4, 2)

        def forward(self, x):
            h = self.fc1(x)
            pooled = torch.zeros(3, 4).index_add(0, torch.tensor(GROUPS), h)
            return self.fc2(pooled)

    return Net()


def _pool_ms(correct):
    import mindspore as ms
    import mindspore.nn as nn
    import numpy as np
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 4)
            self.fc2 = nn.Dense(4, 2)
            self.groups = ms.Tensor(np.array(GROUPS, np.int32))

        def construct(self, x):
            h = self.fc1(x)
            if correct:
                pooled = ops.index_add(ops.zeros((3, 4), ms.float32), self.groups, h, 0)
            else:
                pooled = ops.index_add(ops.zeros((3, 4), ms.float32), 0, self.groups, h)
            return self.fc2(pooled)

    return Net()


def _diff2_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 8)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.fc2(torch.diff(self.fc1(x), n=2, dim=1))  # second differences (curvature)

    return Net()


def _diff2_ms(correct):
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 8)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            d = ops.diff(ops.diff(h, 1, 1), 1, 1) if correct else ops.diff(h, 2, 1)
            return self.fc2(d)

    return Net()


def _flip_torch():
    import torch
    return _torch_net(lambda h: torch.cat([h[:, :3], h[:, 3:].flip(1)], dim=1))


def _flip_ms(correct):
    from mindspore import ops
    if correct:
        return _ms_net(lambda h: ops.cat([h[:, :3], h[:, 3:].flip((1,))], axis=1))
    return _ms_net(lambda h: ops.cat([h[:, :3], h[:, 3:].flip(1)], axis=1))


def _rank_torch():
    import torch
    # each active unit is scaled by its rank among the active units of its row
    return _torch_net(lambda h: h * torch.cumsum(h > 0, dim=1))


def _rank_ms(correct):
    import mindspore as ms
    from mindspore import ops
    if correct:
        return _ms_net(lambda h: h * ops.cumsum((h > 0).astype(ms.int64), 1))
    return _ms_net(lambda h: h * ops.cumsum(h > 0, 1))


# --- gradient-only: forward agrees, backward differs ---------------------------------------------------------

def _cumprod_nets(side):
    """Linear -> sigmoid gate x padding mask -> cumulative product over features -> Linear."""
    if side == "torch":
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(5, 6)
                self.fc2 = torch.nn.Linear(6, 3)

            def forward(self, x, keep):
                return self.fc2(torch.cumprod(torch.sigmoid(self.fc1(x)) * keep, dim=1))

        return Net()
    import mindspore.nn as nn
    from mindspore import ops

    class Cell(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 6)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x, keep):
            g = ops.sigmoid(self.fc1(x)) * keep
            if side == "naive":
                return self.fc2(ops.cumprod(g, 1))
            acc = g[:, 0:1]
            cols = [acc]
            for i in range(1, 6):
                acc = acc * g[:, i:i + 1]
                cols.append(acc)
            return self.fc2(ops.cat(cols, 1))

    return Cell()


def _hardtanh_torch():
    import torch
    import torch.nn.functional as F

    def ternary(h):
        h = 2.0 * h
        q = (h - h.detach()) + torch.round(h).detach()  # straight-through rounding: exact -1, 0, 1, ...
        return F.hardtanh(q)
    return _torch_net(ternary)


def _hardtanh_ms(correct):
    from mindspore import ops

    def ternary(h):
        h = 2.0 * h
        q = (h - ops.stop_gradient(h)) + ops.stop_gradient(ops.round(h))
        if correct:  # torch's hardtanh passes gradient strictly inside (-1, 1) only
            return ops.where((q > -1.0) & (q < 1.0), q, ops.stop_gradient(ops.clamp(q, -1.0, 1.0)))
        return ops.hardtanh(q)
    return _ms_net(ternary)


KEEP = [[1.0, 1.0, 0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]

ENTRIES = [
    entry("h5b_index_add_torch_argument_order_raises", "h5", PROBE + "Tensor.index_add(dim, index, source) vs"
          " ops.index_add(x, indices, y, axis)", _pool_torch, lambda: _pool_ms(False), lambda: _pool_ms(True),
          ("after:fc1",), ("index_add|axis",), inputs={"x": uniform(6, 5)}, fails_with="error",
          cause_pattern=r"\bindex_add\s*\([^)\n]*,\s*(axis\s*=\s*)?0\s*\)"
                        r"|\bindex_add\b[^\n]*\b(argument order|order of (its |the )?arguments|axis (is |comes |goes )?"
                        r"last|last argument|indices, y, axis|x, indices)"
                        r"|\b(argument order|order of (its |the )?arguments)\b[^\n]*\bindex_add\b"),
    entry("h5b_diff_second_order_raises", "h5", PROBE + "torch.diff(n=2) vs ops.diff, which accepts n=1 only",
          _diff2_torch, lambda: _diff2_ms(False), lambda: _diff2_ms(True), ("after:fc1",), ("diff|n=1",),
          inputs=X, fails_with="error",
          cause_pattern=r"\bdiff\b[^\n]*\b(twice|two (calls|times)|nested|repeat(ed|edly)?|again|n times)\b"
                        r"|\bdiff\(\s*(ops\.|mindspore\.ops\.)?diff\("
                        r"|\bonly\b[^\n]*\bn\s*=\s*1\b|\bn\s*=\s*1\b[^\n]*\bonly\b"),
    entry("h5b_tensor_flip_int_dims_raises", "h5", PROBE + "torch Tensor.flip(1) vs MindSpore Tensor.flip, whose"
          " dims must be a tuple or list", _flip_torch, lambda: _flip_ms(False), lambda: _flip_ms(True),
          ("after:fc1",), ("flip|tuple",), inputs=X, fails_with="error",
          cause_pattern=r"\bflip\b[^\n]*\b(tuple|list|sequence)\b|\b(tuple|list|sequence)\b[^\n]*\bflip\b"
                        r"|\bflip\(\s*(\w+\s*,\s*)?[(\[]\s*-?\d+\s*,?\s*[)\]]"),
    entry("h5b_cumsum_bool_mask_raises", "h5", PROBE + "torch.cumsum of a bool mask (int64 result) vs ops.cumsum,"
          " which refuses bool", _rank_torch, lambda: _rank_ms(False), lambda: _rank_ms(True), ("after:fc1",),
          ("cumsum|bool",), inputs=X, fails_with="error",
          cause_pattern=r"\bcumsum\b[^\n]*\b(astype|cast|casting|convert)\b|\b(astype|cast|casting|convert)\b[^\n]*\bcumsum\b"),
    entry("h5b_cumprod_gradient_at_zero", "h5", PROBE + "ops.cumprod's gradient divides by the input (NaN at an"
          " exact zero, here from a padding mask); torch's is finite", lambda: _cumprod_nets("torch"),
          lambda: _cumprod_nets("naive"), lambda: _cumprod_nets("correct"), ("after:fc1",), ("cumprod|zero|nan",),
          inputs={"x": uniform(4, 5), "keep": given(KEEP, dtype="float32")}, checks=("forward", "backward"),
          fails_with="nonfinite",
          cause_pattern=r"\bcumprod\b[^\n]*\b(zero|zeros|nan|divi\w*|0/0)\b"
                        r"|\b(zero|zeros|nan|divi\w*)\b[^\n]*\bcumprod\b"),
    entry("h5b_hardtanh_gradient_at_bounds", "h5", PROBE + "ops.hardtanh's gradient at exactly -1/+1 is 0.5,"
          " torch's F.hardtanh's is 0", _hardtanh_torch, lambda: _hardtanh_ms(False), lambda: _hardtanh_ms(True),
          ("after:fc1",), ("hardtanh|bound",), inputs=X, checks=("forward", "backward"),
          cause_pattern=r"\bhard_?tanh\b[^\n]*\b(bound|bounds|boundary|boundaries|edge|edges|limit|limits|min_val"
                        r"|max_val|kink|0\.5)\b|\b(bound|bounds|boundary|boundaries|edge|edges|kink|0\.5)\b[^\n]*"
                        r"\bhard_?tanh\b"),]


def _backward_only(e):
    """A gradient-only entry: the naive port must agree in forward and fail in backward."""
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


ENTRIES = [_backward_only(e) if e.correct.checks == ("forward", "backward") else e for e in ENTRIES]
