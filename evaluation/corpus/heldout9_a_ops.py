"""Held-out set 9, half a (family h9): functional ops in forward/construct and one gradient-only entry, each naive port
with ONE difference from torch (MindSpore API-difference notes or probes of torch 2.13 / MindSpore 2.10 on CPU);
written blind."""
from __future__ import annotations

from migcheck import uniform

from evaluation.corpus.build import entry

FAMILY = "h9"


# ----------------------------------------------------------------------------------------------- functional ops

def _t_renorm():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 6)
            self.fc2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            h = torch.renorm(self.fc1(x), p=2, dim=0, maxnorm=0.8)
            return self.fc2(h)

    return Net()


def _m_renorm(per_row: bool):
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(8, 6)
            self.fc2 = nn.Dense(6, 3)

        def construct(self, x):
            h = self.fc1(x)
            h = ops.renorm(h, 2, 0, 0.8) if per_row else ops.clip_by_norm(h, 0.8)
            return self.fc2(h)

    return Net()


def _t_l1norm():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 5)
            self.fc2 = torch.nn.Linear(5, 3)

        def forward(self, x):
            return self.fc2(F.normalize(self.fc1(x), p=1, dim=1))

    return Net()


def _m_l1norm(l1: bool):
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 5)
            self.fc2 = nn.Dense(5, 3)
            self.l2 = ops.L2Normalize(axis=1, epsilon=1e-12)

        def construct(self, x):
            h = self.fc1(x)
            if l1:
                h = h / ops.clamp(ops.norm(h, 1, 1, True), min=1e-12)
            else:
                h = self.l2(h)
            return self.fc2(h)

    return Net()


def _t_varmean():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 5)
            self.fc2 = torch.nn.Linear(5, 3)

        def forward(self, x):
            h = self.fc1(x)
            v, m = torch.var_mean(h, dim=1, keepdim=True)
            return self.fc2((h - m) / torch.sqrt(v + 1e-5))

    return Net()


def _m_varmean(ddof_given: bool):
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 5)
            self.fc2 = nn.Dense(5, 3)

        def construct(self, x):
            h = self.fc1(x)
            if ddof_given:
                v, m = ops.var_mean(h, axis=1, ddof=1, keepdims=True)
            else:
                v, m = ops.var_mean(h, axis=1, keepdims=True)
            return self.fc2((h - m) / ops.sqrt(v + 1e-5))

    return Net()


def _t_log1p():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 8)
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x):
            h = self.fc1(x)
            active = (h > 0).sum(dim=1, keepdim=True)  # an integer count per row
            return self.fc2(h * torch.log1p(active))

    return Net()


def _m_log1p(cast: bool):
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(6, 8)
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            h = self.fc1(x)
            active = (h > 0).astype(ms.int64).sum(axis=1, keepdims=True)
            if cast:
                active = active.astype(ms.float32)
            return self.fc2(h * ops.log1p(active))

    return Net()


# ----------------------------------------------------------------------------------------------- gradient only

def _t_cummax():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 6)
            self.fc2 = torch.nn.Linear(6, 2)

        def forward(self, x):
            running = torch.cummax(self.fc1(x), dim=1).values
            return self.fc2(running)

    return Net()


def _m_cummax(unrolled: bool):
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 6)
            self.fc2 = nn.Dense(6, 2)

        def construct(self, x):
            h = self.fc1(x)
            if unrolled:
                cols = [h[:, 0]]
                for i in range(1, 6):
                    cols.append(ops.maximum(cols[-1], h[:, i]))
                running = ops.stack(cols, axis=1)
            else:
                running = ops.cummax(h, 1)[0]
            return self.fc2(running)

    return Net()


ENTRIES = [
    entry("h9a_renorm_ported_as_clip_by_norm", FAMILY, "probe: torch.renorm vs ops.clip_by_norm", _t_renorm,
          lambda: _m_renorm(False), lambda: _m_renorm(True), ["after:fc1"], ["renorm|clip_by_norm"],
          inputs={"x": uniform(6, 8, low=-1.5, high=1.5)},
          cause_pattern=r"\brenorm\b|\bclip_by_norm\b[^.]*\b(global|whole|entire|all rows|per[- ]row|axis|dim)\b"),
    entry("h9a_normalize_p1_ported_as_l2normalize", FAMILY, "probe: F.normalize(p=1) vs ops.L2Normalize",
          _t_l1norm, lambda: _m_l1norm(False), lambda: _m_l1norm(True), ["after:fc1"], ["normalize|p=1|L1"],
          inputs={"x": uniform(4, 6)},
          cause_pattern=r"\bp\s*=\s*1\b|\bL1\b|\bord\s*=\s*1\b|\b1-norm\b|\bL2Normalize\b[^.]*\bp\b"),
    entry("h9a_var_mean_default_ddof", FAMILY, "var_mean", _t_varmean, lambda: _m_varmean(False),
          lambda: _m_varmean(True), ["after:fc1"], ["ddof|unbiased|correction"], inputs={"x": uniform(4, 6)},
          cause_pattern=r"\bddof\s*=\s*1\b|\bunbiased\b|\bcorrection\s*=\s*1\b|\bbessel\b"),
    entry("h9a_log1p_of_integer_count_raises", FAMILY, "log", _t_log1p, lambda: _m_log1p(False),
          lambda: _m_log1p(True), ["after:fc1"], ["log1p|int|float32|dtype"], inputs={"x": uniform(4, 6)},
          fails_with="error",
          cause_pattern=r"\blog1p\b[^.]*\b(int|int64|integer|float32|float|astype|cast)\b"
                        r"|\b(astype|cast)\b[^.]*\bfloat32\b[^.]*\blog1p\b"),
    entry("h9a_cummax_backward_unsupported_on_cpu", FAMILY, "probe: ops.cummax gradient on CPU", _t_cummax,
          lambda: _m_cummax(False), lambda: _m_cummax(True), ["after:fc1"], ["cummax|gradient|backward"],
          inputs={"x": uniform(4, 4)}, checks=("forward", "backward"), fails_with="error", fails_on=("backward",),
          cause_pattern=r"\bcummax\b[^.]*\b(gradient|backward|grad|InplaceScatterAdd|CPU|maximum)\b"
                        r"|\bInplaceScatterAdd\b"),
]
