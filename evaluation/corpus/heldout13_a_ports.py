"""Held-out set 13, half a: model blocks (family h13-port), each with one porting difference."""
from __future__ import annotations

from migcheck import uniform

from evaluation.corpus.build import entry

PROBE = "probe:"
ENTRIES: list = []


# ---------------------------------------------------------------- Restormer-style downsample (conv + pixel unshuffle)
def _t_restormer_down():
    import torch

    class Downsample(torch.nn.Module):
        def __init__(self, n_feat=4):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Conv2d(n_feat, n_feat // 2, 3, 1, 1, bias=False),
                                            torch.nn.PixelUnshuffle(2))
            self.proj = torch.nn.Conv2d(2 * n_feat, 3, 1)

        def forward(self, x):
            return self.proj(self.body(x))

    return Downsample()


def _m_restormer_down(correct: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class SpaceToDepth(nn.Cell):
            def __init__(self, block):
                super().__init__()
                self.op = ops.SpaceToDepth(block)

            def construct(self, x):
                return self.op(x)

        class Downsample(nn.Cell):
            def __init__(self, n_feat=4):
                super().__init__()
                unshuffle = nn.PixelUnshuffle(2) if correct else SpaceToDepth(2)
                self.body = nn.SequentialCell([nn.Conv2d(n_feat, n_feat // 2, 3, 1, pad_mode="pad", padding=1,
                                                         has_bias=False), unshuffle])
                self.proj = nn.Conv2d(2 * n_feat, 3, 1, has_bias=True)

            def construct(self, x):
                return self.proj(self.body(x))

        return Downsample()
    return make


ENTRIES.append(entry(
    "h13a_port_restormer_downsample_pixel_unshuffle_as_space_to_depth", "h13-port",
    "model:Restormer Downsample (Conv2d + PixelUnshuffle(2))",
    _t_restormer_down, _m_restormer_down(False), _m_restormer_down(True), ("body.1",),
    ("PixelUnshuffle|SpaceToDepth channel order",), inputs={"x": uniform(1, 4, 4, 4)},
    cause_pattern=r"\bPixelUnshuffle\b|\bpixel_unshuffle\b|\bSpaceToDepth\b[^.]*\b(order\w*|channel\w*|layout)\b"
                  r"|\b(channel|block)\b[^.]*\border\w*\b[^.]*\b(SpaceToDepth|space_to_depth|unshuffle)\b"))


# ---------------------------------------------------------------- SAC tanh-squashed Gaussian policy log-probability
def _t_sac():
    import math

    import torch

    class TanhGaussianHead(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.mu = torch.nn.Linear(4, 2)
            self.log_std = torch.nn.Linear(4, 2)
            self.squash = torch.nn.Tanh()

        def forward(self, h, u):
            mu = self.mu(h)
            log_std = self.log_std(h).clamp(-20.0, 2.0)
            logp = (-0.5 * ((u - mu) / log_std.exp()) ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
            a = self.squash(u)
            logp = logp - torch.log(1 - a.pow(2) + 1e-6).sum(-1)
            return a, logp

    return TanhGaussianHead()


def _m_sac(correct: bool):
    def make():
        import math

        import mindspore.nn as nn
        import mindspore.ops as ops

        class SigmoidTanh(nn.Cell):
            def construct(self, x):
                return 2.0 * ops.sigmoid(2.0 * x) - 1.0

        class TanhGaussianHead(nn.Cell):
            def __init__(self):
                super().__init__()
                self.mu = nn.Dense(4, 2)
                self.log_std = nn.Dense(4, 2)
                self.squash = SigmoidTanh() if correct else nn.Tanh()

            def construct(self, h, u):
                mu = self.mu(h)
                log_std = ops.clamp(self.log_std(h), -20.0, 2.0)
                logp = (-0.5 * ((u - mu) / ops.exp(log_std)) ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
                a = self.squash(u)
                logp = logp - ops.log(1 - ops.pow(a, 2) + 1e-6).sum(-1)
                return a, logp

        return TanhGaussianHead()
    return make


ENTRIES.append(entry(
    "h13a_port_sac_tanh_squash_logprob_saturated_actions", "h13-port",
    PROBE + "mindspore.nn.Tanh / ops.tanh on CPU near saturation (|x| 3.5-5) against torch.tanh, in SAC's "
    "log(1 - tanh(u)^2 + 1e-6) correction",
    _t_sac, _m_sac(False), _m_sac(True), ("squash",), ("tanh accuracy near saturation",),
    inputs={"h": uniform(3, 4), "u": uniform(3, 2, low=3.6, high=4.7)},
    cause_pattern=r"\btanh\b[^.]*\b(accura\w*|precision|inaccura\w*|saturat\w*|sigmoid|exceed\w*|ulp\w*|error)\b"
                  r"|\b(accura\w*|precision|inaccura\w*|saturat\w*)\b[^.]*\btanh\b|\bsigmoid\s*\(\s*2"))
