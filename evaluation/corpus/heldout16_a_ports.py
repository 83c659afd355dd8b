"""Held-out set 16, half a: two small model blocks, each with one porting difference (blind)."""
from __future__ import annotations

from evaluation.corpus.build import entry
from migcheck.specs import uniform


# ---------------------------------------------------------------------------------------------------------
# Port A. A ConvNeXt/CaiT-style residual MLP block with a LayerScale vector.
def _layerscale_torch():
    import torch

    class Block(torch.nn.Module):
        def __init__(self, dim=8, init_values=1e-6):
            super().__init__()
            self.norm = torch.nn.LayerNorm(dim, eps=1e-6)
            self.fc1 = torch.nn.Linear(dim, 2 * dim)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(2 * dim, dim)
            self.gamma = torch.nn.Parameter(torch.full((dim,), init_values))

        def forward(self, x):
            return x + self.gamma * self.fc2(self.act(self.fc1(self.norm(x))))

    return Block()


def _layerscale_ms(fixed):
    import mindspore as ms
    from mindspore import Parameter, nn, ops

    class Block(nn.Cell):
        def __init__(self, dim=8, init_values=1e-6):
            super().__init__()
            self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
            self.fc1 = nn.Dense(dim, 2 * dim)
            self.act = nn.GELU(approximate=False)
            self.fc2 = nn.Dense(2 * dim, dim)
            if fixed:
                self.gamma = Parameter(ops.full((dim,), init_values, dtype=ms.float32), name="gamma")
            else:
                self.gamma = Parameter(ops.full((dim,), init_values), name="gamma")

        def construct(self, x):
            return x + self.gamma * self.fc2(self.act(self.fc1(self.norm(x))))

    return Block()


# ---------------------------------------------------------------------------------------------------------
# Port B. Gaussian upsampling (Non-Attentive Tacotron / FastSpeech-style) from predicted durations, in half
# precision.
_FRAMES = 320


def _gauss_up_torch():
    import torch

    class Upsampler(torch.nn.Module):
        def __init__(self, dim=4):
            super().__init__()
            self.duration = torch.nn.Linear(dim, 1)
            self.range = torch.nn.Linear(dim, 1)

        def forward(self, h):
            dur = torch.nn.functional.softplus(self.duration(h)).squeeze(-1)          # (B, L)
            sigma = torch.nn.functional.softplus(self.range(h)).squeeze(-1) + 0.5
            ends = torch.cumsum(dur.half(), dim=1).float()
            centers = ends - 0.5 * dur
            t = torch.arange(_FRAMES, dtype=torch.float32).view(1, -1, 1) + 0.5      # (1, T, 1)
            logits = -((t - centers.unsqueeze(1)) ** 2) / (2 * sigma.unsqueeze(1) ** 2)
            w = torch.softmax(logits, dim=-1)                                        # (B, T, L)
            return torch.bmm(w, h)

    return Upsampler()


def _gauss_up_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Upsampler(nn.Cell):
        def __init__(self, dim=4):
            super().__init__()
            self.duration = nn.Dense(dim, 1)
            self.range = nn.Dense(dim, 1)

        def construct(self, h):
            dur = ops.softplus(self.duration(h)).squeeze(-1)
            sigma = ops.softplus(self.range(h)).squeeze(-1) + 0.5
            if fixed:
                ends = ops.cumsum(dur.astype(ms.float16).astype(ms.float32), axis=1)
                ends = ends.astype(ms.float16).astype(ms.float32)
            else:
                ends = ops.cumsum(dur.astype(ms.float16), axis=1).astype(ms.float32)
            centers = ends - 0.5 * dur
            t = ops.arange(_FRAMES, dtype=ms.float32).view(1, -1, 1) + 0.5
            logits = -((t - centers.unsqueeze(1)) ** 2) / (2 * sigma.unsqueeze(1) ** 2)
            w = ops.softmax(logits, axis=-1)
            return ops.bmm(w, h)

    return Upsampler()


ENTRIES = [
    entry("h16a_port_layerscale_gamma_ops_full_inferred_int64", "h16-port", "model:ConvNeXt/CaiT LayerScale block",
          _layerscale_torch, lambda: _layerscale_ms(False), lambda: _layerscale_ms(True),
          ("<root>",), ("ops.full|dtype|int64|gamma|LayerScale",),
          inputs={"x": uniform(2, 5, 8)},
          cause_pattern=r"\b(ops\.)?full\b[^.]*\b(dtype|float32|int64|integer)\b|\b(dtype|float32|int64|integer)\b[^.]*\b(ops\.)?full\b"),
    entry("h16a_port_gaussian_upsampling_duration_cumsum_float16", "h16-port", "model:Non-Attentive Tacotron Gaussian upsampling",
          _gauss_up_torch, lambda: _gauss_up_ms(False), lambda: _gauss_up_ms(True),
          ("after:duration",), ("ops.cumsum|float16|accumulat|float32",),
          inputs={"h": uniform(2, 400, 4)},
          cause_pattern=r"\bcumsum\b[^.]*\b(float16|fp16|half|float32|accumulat\w*|precision)\b|\b(float16|fp16|half|float32|accumulat\w*|precision)\b[^.]*\bcumsum\b"),
]
