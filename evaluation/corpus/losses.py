"""Single-API differences of losses; the loss module is the whole network, so the expected layer is <root>."""
import mindspore as ms
import mindspore.nn as mnn
import numpy as np
import torch
import torch.nn as tnn

from evaluation.corpus.build import entry
from migcheck import integers, uniform

LOGITS = {"logits": uniform(6, 4, low=-2.0, high=2.0), "target": integers(6, high=4)}
PAIR = {"pred": uniform(4, 5, low=-2.0, high=2.0), "target": uniform(4, 5, low=-2.0, high=2.0)}
PROBS = {"logp": uniform(4, 5, low=-3.0, high=-0.5), "target": uniform(4, 5, low=0.05, high=0.5)}
POS_WEIGHT = np.array([2.0, 0.5, 1.0, 3.0, 1.5], np.float32)
ROOT = ["<root>"]


class CrossEntropyMs(mnn.Cell):
    """nn.CrossEntropyLoss with int32 labels (its CPU kernel refuses int64)."""

    def __init__(self, **kwargs):
        super().__init__()
        self.loss = mnn.CrossEntropyLoss(**kwargs)

    def construct(self, logits, target):
        return self.loss(logits, target.astype(ms.int32))


class BcePt(tnn.Module):
    """pos_weight as a plain tensor: a registered buffer would be replaced by seeded draws."""

    def __init__(self):
        super().__init__()
        self.pos_weight = torch.tensor(POS_WEIGHT)

    def forward(self, pred, target):
        return tnn.functional.binary_cross_entropy_with_logits(pred, (target > 0).float(), pos_weight=self.pos_weight)


class BceMs(mnn.Cell):
    def __init__(self, pos_weight=True):
        super().__init__()
        self.loss = mnn.BCEWithLogitsLoss(pos_weight=ms.Tensor(POS_WEIGHT) if pos_weight else None)

    def construct(self, pred, target):
        return self.loss(pred, (target > 0).astype(ms.float32))


ENTRIES = [
    entry("cross_entropy_label_smoothing", "loss", "CrossEntropyLoss",
          lambda: tnn.CrossEntropyLoss(label_smoothing=0.1), lambda: CrossEntropyMs(),
          lambda: CrossEntropyMs(label_smoothing=0.1), ROOT, ["loss-label-smoothing|label_smoothing"], inputs=LOGITS),
    entry("cross_entropy_ignore_index", "loss", "CrossEntropyLoss",
          lambda: tnn.CrossEntropyLoss(ignore_index=0), lambda: CrossEntropyMs(),
          lambda: CrossEntropyMs(ignore_index=0), ROOT, ["loss-ignore-index|ignore_index"], inputs=LOGITS),
    entry("nll_reduction_sum", "loss", "NLLLoss",
          lambda: tnn.NLLLoss(reduction="sum"), lambda: NllMs(), lambda: NllMs(reduction="sum"), ROOT,
          ["loss-reduction|reduction"], inputs=LOGITS),
    entry("mse_reduction_sum", "loss", "MSELoss",
          lambda: tnn.MSELoss(reduction="sum"), lambda: mnn.MSELoss(), lambda: mnn.MSELoss(reduction="sum"), ROOT,
          ["loss-reduction|reduction"], inputs=PAIR),
    entry("smooth_l1_beta", "loss", "SmoothL1Loss",
          lambda: tnn.SmoothL1Loss(beta=0.5), lambda: mnn.SmoothL1Loss(reduction="mean"),
          lambda: mnn.SmoothL1Loss(beta=0.5, reduction="mean"), ROOT, ["beta"], inputs=PAIR),
    entry("smooth_l1_default_reduction", "loss", "SmoothL1Loss",
          lambda: tnn.SmoothL1Loss(), lambda: mnn.SmoothL1Loss(), lambda: mnn.SmoothL1Loss(reduction="mean"), ROOT,
          ["loss-reduction|reduction"], inputs=PAIR, fails_with="shape"),
    entry("huber_delta", "loss", "SmoothL1Loss",
          lambda: tnn.HuberLoss(delta=0.5), lambda: mnn.HuberLoss(), lambda: mnn.HuberLoss(delta=0.5), ROOT,
          ["delta"], inputs=PAIR),
    entry("bce_pos_weight_dropped", "loss", "BCEWithLogitsLoss",
          BcePt, lambda: BceMs(False), BceMs, ROOT, ["pos_weight"], inputs=PAIR),
    entry("kl_div_batchmean", "loss", "kl_div",
          lambda: tnn.KLDivLoss(reduction="batchmean"), lambda: mnn.KLDivLoss(reduction="mean"),
          lambda: mnn.KLDivLoss(reduction="batchmean"), ROOT, ["loss-reduction|reduction|batchmean"],
          inputs=PROBS, checks=("forward",)),
    entry("l1_reduction_none", "loss", "L1Loss",
          lambda: tnn.L1Loss(reduction="none"), lambda: mnn.L1Loss(), lambda: mnn.L1Loss(reduction="none"), ROOT,
          ["loss-reduction|reduction"], inputs=PAIR, fails_with="shape"),
]


class NllMs(mnn.Cell):
    def __init__(self, **kwargs):
        super().__init__()
        self.loss = mnn.NLLLoss(**kwargs)

    def construct(self, logits, target):
        return self.loss(logits, target.astype(ms.int32))
