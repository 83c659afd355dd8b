"""Losses as modules taking (prediction, target): reductions, ignore_index, smoothing, pos_weight, KL."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn

from migcheck import PairedCase, integers, uniform


LOGITS_LABELS = {"logits": uniform(6, 4, low=-2.0, high=2.0), "target": integers(6, high=4)}


class CrossEntropyMs(mnn.Cell):
    """nn.CrossEntropyLoss with torch's int64 labels cast to the Int32 its CPU kernel requires."""

    def __init__(self, **kwargs):
        super().__init__()
        self.loss = mnn.CrossEntropyLoss(**kwargs)

    def construct(self, logits, target):
        return self.loss(logits, target.astype(ms.int32))


cross_entropy_ignore_smoothing = PairedCase(
    doc="CrossEntropyLoss(ignore_index=0, label_smoothing=0.1): same keywords; labels cast to int32 for MindSpore",
    torch=lambda: tnn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.1),
    mindspore=lambda: CrossEntropyMs(ignore_index=0, label_smoothing=0.1),
    inputs=LOGITS_LABELS, tags=("loss", "cross-entropy"),
)

cross_entropy_int64_labels = PairedCase(
    doc="known-bad: torch's int64 labels passed straight to nn.CrossEntropyLoss, which requires Int32 (TypeError)",
    torch=lambda: tnn.CrossEntropyLoss(),
    mindspore=lambda: mnn.CrossEntropyLoss(),
    inputs=LOGITS_LABELS, checks=("forward",), expect="fail", fails_with="error",
    tags=("loss", "cross-entropy", "known-bad"),
)

CLASS_WEIGHTS = np.array([0.2, 1.0, 2.0, 0.5], np.float32)


class WeightedCrossEntropyPt(tnn.Module):
    """Fixed class weights as a plain tensor (a state_dict buffer would be replaced by seeded draws)."""

    def __init__(self):
        super().__init__()
        self.class_weights = torch.tensor(CLASS_WEIGHTS)

    def forward(self, logits, target):
        return tnn.functional.cross_entropy(logits, target, weight=self.class_weights)


cross_entropy_class_weights = PairedCase(
    doc="cross_entropy(weight=...) mean: the weighted mean divides by the sum of the target classes' weights",
    torch=WeightedCrossEntropyPt,
    mindspore=lambda: CrossEntropyMs(weight=ms.Tensor(CLASS_WEIGHTS)),
    inputs=LOGITS_LABELS, tags=("loss", "cross-entropy"),
)

cross_entropy_spatial = PairedCase(
    doc="CrossEntropyLoss over (N, C, L) logits with (N, L) labels, reduction='sum'",
    torch=lambda: tnn.CrossEntropyLoss(reduction="sum"),
    mindspore=lambda: CrossEntropyMs(reduction="sum"),
    inputs={"logits": uniform(2, 4, 5, low=-2.0, high=2.0), "target": integers(2, 5, high=4)},
    tags=("loss", "cross-entropy"),
)

cross_entropy_ignore_index_dropped = PairedCase(
    doc="known-bad: torch ignores label 0 (ignore_index=0); the port keeps MindSpore's default -100 and counts it",
    torch=lambda: tnn.CrossEntropyLoss(ignore_index=0),
    mindspore=lambda: CrossEntropyMs(),
    inputs=LOGITS_LABELS, expect="fail", fails_with="value", tags=("loss", "cross-entropy", "known-bad"),
)


class NllPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.loss = tnn.NLLLoss()

    def forward(self, logits, target):
        return self.loss(torch.log_softmax(logits, dim=1), target)


class NllMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.loss = mnn.NLLLoss()

    def construct(self, logits, target):
        return self.loss(ops.log_softmax(logits, axis=1), target)


nll_log_softmax = PairedCase(
    doc="log_softmax(dim=1) + NLLLoss is ops.log_softmax(axis=1) + nn.NLLLoss",
    torch=NllPt, mindspore=NllMs, inputs=LOGITS_LABELS, tags=("loss",),
)


REGRESSION = {"pred": uniform(2, 6), "target": uniform(2, 6, low=-2.0, high=2.0)}

mse = PairedCase(
    doc="MSELoss mean; the float target's gradient is compared too",
    torch=lambda: tnn.MSELoss(), mindspore=lambda: mnn.MSELoss(), inputs=REGRESSION, tags=("loss",),
)

l1_sum = PairedCase(
    doc="L1Loss(reduction='sum')",
    torch=lambda: tnn.L1Loss(reduction="sum"), mindspore=lambda: mnn.L1Loss(reduction="sum"),
    inputs=REGRESSION, tags=("loss",),
)

smooth_l1 = PairedCase(
    doc="SmoothL1Loss(beta=0.5) needs reduction='mean' named: MindSpore's SmoothL1Loss defaults to 'none'",
    torch=lambda: tnn.SmoothL1Loss(beta=0.5), mindspore=lambda: mnn.SmoothL1Loss(beta=0.5, reduction="mean"),
    inputs=REGRESSION, tags=("loss",),
)

smooth_l1_default_reduction = PairedCase(
    doc="known-bad: nn.SmoothL1Loss() returns the unreduced (2, 6) loss where torch's default is a scalar mean",
    torch=lambda: tnn.SmoothL1Loss(), mindspore=lambda: mnn.SmoothL1Loss(),
    inputs=REGRESSION, expect="fail", fails_with="shape", diagnosis="loss-reduction", tags=("loss", "known-bad"),
)

POS_WEIGHT = np.array([1.0, 2.0, 0.5, 3.0], np.float32)


class BceLogitsPosWeightPt(tnn.Module):
    """pos_weight as a plain tensor: BCEWithLogitsLoss's buffer would be replaced by seeded draws."""

    def __init__(self):
        super().__init__()
        self.pos_weight = torch.tensor(POS_WEIGHT)

    def forward(self, logits, target):
        return tnn.functional.binary_cross_entropy_with_logits(logits, target, pos_weight=self.pos_weight)


bce_with_logits_pos_weight = PairedCase(
    doc="binary_cross_entropy_with_logits(pos_weight=...) as nn.BCEWithLogitsLoss(pos_weight=...), soft targets",
    torch=BceLogitsPosWeightPt,
    mindspore=lambda: mnn.BCEWithLogitsLoss(pos_weight=ms.Tensor(POS_WEIGHT)),
    inputs={"logits": uniform(3, 4, low=-3.0, high=3.0), "target": uniform(3, 4, low=0.0, high=1.0)},
    tags=("loss",),
)


class KlDivPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.loss = tnn.KLDivLoss(reduction="batchmean")

    def forward(self, logits, target_logits):
        return self.loss(torch.log_softmax(logits, dim=-1), torch.softmax(target_logits, dim=-1))


class KlDivMs(mnn.Cell):
    """KL(p || q) written out: nn.KLDivLoss passes no gradient to its target, torch's does."""

    def construct(self, logits, target_logits):
        log_q = ops.log_softmax(logits, axis=-1)
        log_p = ops.log_softmax(target_logits, axis=-1)
        return (ops.exp(log_p) * (log_p - log_q)).sum() / logits.shape[0]


class KlDivNnMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.loss = mnn.KLDivLoss(reduction="batchmean")

    def construct(self, logits, target_logits):
        return self.loss(ops.log_softmax(logits, axis=-1), ops.softmax(target_logits, axis=-1))


KL = {"logits": uniform(3, 5, low=-2.0, high=2.0), "target_logits": uniform(3, 5, low=-2.0, high=2.0)}

kl_div_batchmean = PairedCase(
    doc="KLDivLoss(reduction='batchmean') written out in MindSpore, so both inputs get gradients",
    torch=KlDivPt, mindspore=KlDivMs, inputs=KL, tags=("loss",),
)

kl_div_nn_target_gradient = PairedCase(
    doc="known-bad: MindSpore's nn.KLDivLoss returns a zero gradient for its target; torch differentiates it",
    torch=KlDivPt, mindspore=KlDivNnMs, inputs=KL,
    checks=("forward", "backward"), expect="fail", fails_with="value", fails_on=("backward",),
    tags=("loss", "known-bad"),
)
