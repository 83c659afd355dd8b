"""Held-out set 12, half a: model blocks (family h12-port) whose single mistake is a difference found by probing the
installed torch and MindSpore on CPU."""
from __future__ import annotations

from migcheck import uniform

from evaluation.corpus.build import entry, renamer


# ---------------------------------------------------------------- MobileNet-style stem: conv-bn-relu, then pointwise
def _t_stem():
    import torch
    import torch.nn as nn

    class Stem(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(4),
                                      nn.ReLU())
            self.pw = nn.Conv2d(4, 6, 1)

        def forward(self, x):
            return self.pw(self.stem(x))

    return Stem()


def _m_stem(momentum_given: bool):
    def make():
        import mindspore.nn as nn

        class Stem(nn.Cell):
            def __init__(self):
                super().__init__()
                extra = {"momentum": 0.9} if momentum_given else {}
                self.stem = nn.Conv2dBnAct(3, 4, 3, stride=2, pad_mode="pad", padding=1, has_bn=True,
                                           activation="relu", **extra)
                self.pw = nn.Conv2d(4, 6, 1, has_bias=True)

            def construct(self, x):
                return self.pw(self.stem(x))

        return Stem()
    return make


# ---------------------------------------------------------------- GRU-cell decoder loop, hidden state starts at zero
def _t_decoder():
    import torch
    import torch.nn as nn

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.GRUCell(4, 5)
            self.out = nn.Linear(5, 2)

        def forward(self, x):
            h = None
            outs = []
            for t in range(x.shape[1]):
                h = self.cell(x[:, t], h)
                outs.append(self.out(h))
            return torch.stack(outs, 1)

    return Decoder()


def _m_decoder(zero_state: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Decoder(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cell = nn.GRUCell(4, 5)
                self.out = nn.Dense(5, 2)

            def construct(self, x):
                h = ops.zeros((x.shape[0], 5), x.dtype) if zero_state else None
                outs = []
                for t in range(x.shape[1]):
                    h = self.cell(x[:, t]) if h is None else self.cell(x[:, t], h)
                    outs.append(self.out(h))
                return ops.stack(outs, 1)

        return Decoder()
    return make


_STEM_MAP = renamer([("stem.0", "stem.conv"), ("stem.1", "stem.batchnorm")], norms=("stem.1",))

ENTRIES = [
    entry("h12a_port_mobilenet_stem_conv2dbnact_default_momentum", "h12-port",
          "probe:nn.Conv2dBnAct defaults vs torch Conv2d+BatchNorm2d+ReLU",
          _t_stem, _m_stem(False), _m_stem(True), ("stem.1",),
          ("Conv2dBnAct momentum 0.997|BatchNorm momentum",),
          inputs={"x": uniform(2, 3, 6, 6)}, checks=("forward", "train"),
          weight_map=_STEM_MAP,
          cause_pattern=r"\bmomentum\b.{0,80}?\b0\.9\b(?!\d)|\bmomentum\b.{0,80}?\b0\.1\b(?!\d)"
                        r"|\b0\.997\b.{0,80}?\bmomentum\b"),
    entry("h12a_port_gru_cell_decoder_initial_hidden_omitted_raises", "h12-port",
          "probe:nn.GRUCell called without hx",
          _t_decoder, _m_decoder(False), _m_decoder(True), ("cell",),
          ("hx|initial hidden state|zeros",),
          inputs={"x": uniform(2, 3, 4)}, fails_with="error",
          cause_pattern=r"\bhx\b|\b(initial|first)\b[^.]*\bhidden\b|\bhidden state\b[^.]*\bzeros?\b|\bzeros\b[^.]*\bhidden\b"),
]

# the stem's naive port fails on the train check only (eval-mode forward uses the same initial moving statistics)
import dataclasses as _dc  # noqa: E402

ENTRIES[0] = _dc.replace(ENTRIES[0], naive=_dc.replace(ENTRIES[0].naive, fails_on=("train",)))
