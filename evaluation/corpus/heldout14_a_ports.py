"""Held-out set 14, half a: small model blocks ("h14-port"), each ported with one difference."""
from __future__ import annotations

from migcheck import uniform
from evaluation.corpus.build import entry

# ---------------------------------------------------------------- RevIN-style instance normalisation of a sensor series

L, CH = 8, 3


def _revin_torch():
    import torch
    import torch.nn as tnn

    class RevINForecaster(tnn.Module):
        """Reversible instance normalisation over time around a linear forecaster; returns the forecast and scale."""

        def __init__(self):
            super().__init__()
            self.affine_weight = tnn.Parameter(torch.ones(CH))
            self.affine_bias = tnn.Parameter(torch.zeros(CH))
            self.head = tnn.Linear(L, 2)

        def forward(self, x):                          # x: (B, L, CH), readings with a large offset
            mean = x.mean(1, keepdim=True)
            var = torch.var(x, dim=1, keepdim=True, unbiased=False)
            std = torch.sqrt(var + 1e-7)
            z = (x - mean) / std * self.affine_weight + self.affine_bias
            y = self.head(z.transpose(1, 2))           # (B, CH, 2)
            return y.transpose(1, 2) * std + mean, std

    return RevINForecaster()


def _revin_ms(naive):
    def build():
        import mindspore as ms
        import mindspore.nn as mnn
        import mindspore.ops as ops

        class RevINForecaster(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.affine_weight = ms.Parameter(ops.ones(CH, ms.float32), name="affine_weight")
                self.affine_bias = ms.Parameter(ops.zeros(CH, ms.float32), name="affine_bias")
                self.head = mnn.Dense(L, 2)

            def construct(self, x):
                mean = x.mean(1, keep_dims=True)
                if naive:
                    var = ops.var(x, axis=1, ddof=0, keepdims=True)
                else:
                    d = x - x[:, :1, :]                # shift by the first reading, then centre
                    d = d - d.mean(1, keep_dims=True)
                    var = (d * d).mean(1, keep_dims=True)
                std = ops.sqrt(var + 1e-7)
                z = (x - mean) / std * self.affine_weight + self.affine_bias
                y = self.head(z.transpose(0, 2, 1))
                return y.transpose(0, 2, 1) * std + mean, std

        return RevINForecaster()
    return build


REVIN = entry(
    "h14a_port_revin_series_normalisation_ops_var_offset_readings", "h14-port", "probe:mindspore.ops.var on data with a large offset",
    _revin_torch, _revin_ms(True), _revin_ms(False), ("<root>",), ("var|variance|precision|cancellation",),
    inputs={"x": uniform(2, L, CH, low=19999.98, high=20000.02)},
    cause_pattern=(r"\b(ops\.)?var(iance)?\b[^.]*\b(precision|cancel\w*|catastroph\w*|single[- ]pass|one[- ]pass|two[- ]pass"
                   r"|offset|cent(er|re)\w*|subtract\w*[^.]*\bmean)\b|\bcancell?ation\b|\bE\[x\^?2\]"),
)

# ---------------------------------------------------------------- SimCLR projection head with cosine similarities


def _simclr_torch():
    import torch.nn as tnn

    class ProjHead(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Sequential(tnn.Linear(6, 8), tnn.ReLU(), tnn.Linear(8, 4))

        def forward(self, x):
            z = self.proj(x)
            z = z / z.norm(p=2, dim=1, keepdim=True)
            return z @ z.t() / 0.5

    return ProjHead()


def _simclr_ms(naive):
    def build():
        import mindspore.nn as mnn

        class ProjHead(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = mnn.SequentialCell([mnn.Dense(6, 8), mnn.ReLU(), mnn.Dense(8, 4)])

            def construct(self, x):
                z = self.proj(x)
                if naive:
                    z = z / z.norm(p=2, dim=1, keepdim=True)
                else:
                    z = z / z.norm(2, dim=1, keepdim=True)
                return z @ z.T / 0.5

        return ProjHead()
    return build


SIMCLR = entry(
    "h14a_port_simclr_projection_head_tensor_norm_p_keyword_raises", "h14-port", "probe:mindspore Tensor.norm keyword names",
    _simclr_torch, _simclr_ms(True), _simclr_ms(False), ("after:proj.2",), ("norm|p=|ord",),
    inputs={"x": uniform(4, 6)}, fails_with="error",
    cause_pattern=(r"\bnorm\b[^.]*\b(ord|keyword|argument)\b|\bord\s*=\s*2\b|\bp\s*=\s*2\b[^.]*\b(ord|keyword|unexpected)\b"
                   r"|\bunexpected keyword\b[^.]*\bp\b|\bL2Normalize\b[^.]*\baxis\s*=\s*1\b"),
)

# ---------------------------------------------------------------- co-training multi-label tagger: peer head as soft target


def _cotrain_torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F

    class CoTrainTagger(tnn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = tnn.Sequential(tnn.Linear(6, 8), tnn.ReLU())
            self.head_a = tnn.Linear(8, 4)
            self.head_b = tnn.Linear(8, 4)

        def forward(self, x):
            h = self.trunk(x)
            logits_a = self.head_a(h)
            soft = torch.sigmoid(self.head_b(h))      # the peer's tag probabilities, trained jointly
            consistency = F.binary_cross_entropy_with_logits(logits_a, soft, reduction="none").mean(1)
            return logits_a, consistency

    return CoTrainTagger()


def _cotrain_ms(naive):
    def build():
        import mindspore.nn as mnn
        import mindspore.ops as ops

        class CoTrainTagger(mnn.Cell):
            def __init__(self):
                super().__init__()
                self.trunk = mnn.SequentialCell([mnn.Dense(6, 8), mnn.ReLU()])
                self.head_a = mnn.Dense(8, 4)
                self.head_b = mnn.Dense(8, 4)
                self.sig_ce = ops.SigmoidCrossEntropyWithLogits()
                self.bce = mnn.BCEWithLogitsLoss(reduction="none")

            def construct(self, x):
                h = self.trunk(x)
                logits_a = self.head_a(h)
                soft = ops.sigmoid(self.head_b(h))
                loss = self.sig_ce(logits_a, soft) if naive else self.bce(logits_a, soft)
                return logits_a, loss.mean(1)

        return CoTrainTagger()
    return build


COTRAIN = entry(
    "h14a_port_cotraining_tagger_sigmoid_ce_primitive_no_target_gradient", "h14-port",
    "probe:mindspore.ops.SigmoidCrossEntropyWithLogits gradient to labels",
    _cotrain_torch, _cotrain_ms(True), _cotrain_ms(False), ("after:head_b",), ("SigmoidCrossEntropyWithLogits|label gradient",),
    inputs={"x": uniform(3, 6)}, checks=("forward", "backward"), fails_on=("backward",),
    cause_pattern=(r"\bSigmoidCrossEntropyWithLogits\b[^.]*\b(label|target)s?\b"
                   r"|\b(no|zero|missing|blocks?|stops?|drops?)\b[^.]*\bgrad\w*\b[^.]*\b(label|target)s?\b"
                   r"|\b(label|target)s?\b[^.]*\b(no|zero|not)\b[^.]*\bgrad\w*"
                   r"|\bBCEWithLogitsLoss\b|\bbinary_cross_entropy_with_logits\b"),
)

ENTRIES = [REVIN, SIMCLR, COTRAIN]
