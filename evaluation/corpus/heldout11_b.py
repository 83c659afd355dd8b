"""Held-out set 11, half b: single-API entries ("h11") and small language/speech/sequence blocks ("h11-port")."""
from __future__ import annotations


import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform


def _tnn():
    import torch.nn as tnn

    return tnn


def _ms():
    import mindspore
    import mindspore.nn as mnn
    import mindspore.ops as ops

    return mindspore, mnn, ops


def _frames_with_silence(seed: int, batch: int, steps: int, feats: int, silent: dict) -> np.ndarray:
    """Frames drawn in [-1, 1) with some whole frames exactly zero (zero-padded / silent)."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1.0, 1.0, size=(batch, steps, feats)).astype(np.float32)
    for b, ts in silent.items():
        for t in ts:
            x[b, t] = 0.0
    return x


# --------------------------------------------------------------------------------------------------------------
# single-API entries
# --------------------------------------------------------------------------------------------------------------

def _repeat_torch():
    import torch

    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 3)
            self.fc2 = tnn.Linear(6, 2)

        def forward(self, x):
            h = self.fc1(x)
            return self.fc2(torch.relu(h.repeat(1, 2)))

    return Net()


def _repeat_ms(tiled: bool):
    def make():
        _, mnn, ops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(4, 3)
                self.fc2 = mnn.Dense(6, 2)

            def construct(self, x):
                h = self.fc1(x)
                h = ops.tile(h, (1, 2)) if tiled else ops.repeat_elements(h, 2, axis=1)
                return self.fc2(ops.relu(h))

        return Net()
    return make


def _sum_sq_torch():
    import torch.nn.functional as F

    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 3)

        def forward(self, x, t):
            return F.mse_loss(self.fc1(x), t, reduction="sum")

    return Net()


def _sum_sq_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(4, 3)
                self.l2 = ops.L2Loss()

            def construct(self, x, t):
                d = self.fc1(x) - t
                return ops.mse_loss(self.fc1(x), t, reduction="sum") if right else self.l2(d)

        return Net()
    return make


def _energy_torch():
    import torch

    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(3, 4, bias=False)
            self.fc2 = tnn.Linear(5, 2)

        def forward(self, x):
            e = torch.linalg.vector_norm(self.fc1(x), dim=-1)  # frame energy, (B, T)
            return self.fc2(e)

    return Net()


def _energy_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(3, 4, has_bias=False)
                self.fc2 = mnn.Dense(5, 2)
                self.lp = ops.LpNorm(axis=-1, p=2)

            def construct(self, x):
                h = self.fc1(x)
                e = self.lp(h) if right else ops.norm(h, dim=-1)
                return self.fc2(e)

        return Net()
    return make


def _phase_torch():
    import torch

    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(3, 4, bias=False)
            self.fc2 = tnn.Linear(2, 2)

        def forward(self, x):
            re, im = self.fc1(x).chunk(2, dim=-1)
            return self.fc2(torch.atan2(im, re))

    return Net()


def _phase_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(3, 4, has_bias=False)
                self.fc2 = mnn.Dense(2, 2)

            def construct(self, x):
                re, im = ops.chunk(self.fc1(x), 2, axis=-1)
                if right:
                    origin = ops.logical_and(re == 0, im == 0)
                    safe_re = ops.where(origin, ops.ones_like(re), re)
                    phase = ops.where(origin, ops.zeros_like(re), ops.atan2(im, safe_re))
                else:
                    phase = ops.atan2(im, re)
                return self.fc2(phase)

        return Net()
    return make


def _min_torch():
    import torch

    tnn = _tnn()

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = tnn.Linear(4, 3)
            self.fc2 = tnn.Linear(4, 3)
            self.fc3 = tnn.Linear(3, 2)

        def forward(self, x):
            return self.fc3(torch.min(self.fc1(x), self.fc2(x)))

    return Net()


def _min_ms(right: bool):
    def make():
        _, mnn, ops = _ms()

        class Net(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = mnn.Dense(4, 3)
                self.fc2 = mnn.Dense(4, 3)
                self.fc3 = mnn.Dense(3, 2)

            def construct(self, x):
                a, b = self.fc1(x), self.fc2(x)
                return self.fc3(ops.minimum(a, b) if right else ops.min(a, b))

        return Net()
    return make


SILENT_A = _frames_with_silence(1101, 2, 5, 3, {0: (3, 4), 1: (0,)})
SILENT_B = _frames_with_silence(1102, 2, 4, 3, {0: (1,), 1: (2, 3)})

SINGLE = [
    entry("h11b_tensor_repeat_tiling_as_ops_repeat_elements", "h11", "probe:Tensor.repeat vs ops.repeat_elements",
          _repeat_torch, _repeat_ms(False), _repeat_ms(True), ["after:fc1"],
          ["repeat|tile|repeat_elements|interleave"], inputs={"x": uniform(2, 4)},
          cause_pattern=r"\b(ops\.)?tile\b|\binterleav\w*|\brepeat_interleave\b"),
    entry("h11b_mse_sum_as_ops_l2loss_half_sum", "h11", "probe:ops.L2Loss vs F.mse_loss(reduction='sum')",
          _sum_sq_torch, _sum_sq_ms(False), _sum_sq_ms(True), ["after:fc1"],
          ["L2Loss|half|mse_loss|sum"], inputs={"x": uniform(2, 4), "t": uniform(2, 3)},
          cause_pattern=r"\bL2Loss\b[^.]*(\bhalf\b|\b0\.5\b|\b1/2\b|\bdivid\w* by 2\b|/\s*2\b|\bfactor of 2\b)"
                        r"|(\bhalf\b|\b0\.5\b|\bfactor of 2\b)[^.]*\bL2Loss\b"
                        r"|\bmse_loss\b[^.]*\breduction\s*=\s*['\"]?sum\b"),
    entry("h11b_vector_norm_gradient_zero_padded_frames", "h11", "probe:ops.norm backward at a zero vector",
          _energy_torch, _energy_ms(False), _energy_ms(True), ["after:fc1"],
          ["norm|zero|nan|gradient|LpNorm"], inputs={"x": given(SILENT_A)}, checks=("forward", "backward"),
          fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\bLpNorm\b|\b(vector_)?norm\b[^.]*(\bnan\b|\bzero[- ]?(norm|vector|row|frame|input)s?\b"
                        r"|\bat (zero|0)\b)|(\bnan\b|\bzero[- ]?(vector|row|frame|input)s?\b)[^.]*\bnorm\b"),
    entry("h11b_atan2_phase_gradient_silent_frames", "h11", "probe:ops.atan2 backward at (0, 0)",
          _phase_torch, _phase_ms(False), _phase_ms(True), ["after:fc1"],
          ["atan2|origin|nan|gradient"], inputs={"x": given(SILENT_B)}, checks=("forward", "backward"),
          fails_on=("backward",), fails_with="nonfinite",
          cause_pattern=r"\batan2\b[^.]*(\bnan\b|\bzero\b|\borigin\b|\(0,\s*0\)|\b0/0\b|\bboth (inputs|arguments) "
                        r"(are )?(zero|0)\b)|(\bnan\b|\borigin\b)[^.]*\batan2\b"),
    entry("h11b_elementwise_min_as_ops_min_raises", "h11", "probe:ops.min second argument is an axis",
          _min_torch, _min_ms(False), _min_ms(True), ["after:fc1"],
          ["min|minimum|axis"], inputs={"x": uniform(2, 4)}, fails_with="error",
          cause_pattern=r"\b(ops\.)?minimum\b"),
]

from evaluation.corpus.heldout11_b_ports import PORTS  # noqa: E402

ENTRIES = SINGLE + PORTS
