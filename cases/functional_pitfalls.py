"""Functional ops inside forward/construct whose defaults differ (from the evaluation corpus, evaluation/):
migcheck must name the op and both settings by recomputing it from the last agreeing sub-cell's output.

Each known-bad port has a correct twin that passes; a wrapped loss (labels cast in a cell) is diagnosed
through the inner loss cell's settings.
"""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn
import torch.nn.functional as F

from migcheck import PairedCase, integers, uniform


class SoftmaxHeadPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 6)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)


class SoftmaxHeadMs(mnn.Cell):
    def __init__(self, axis=1):
        super().__init__()
        self.fc = mnn.Dense(4, 6)
        self.axis = axis

    def construct(self, x):
        return ops.softmax(self.fc(x), axis=self.axis)


class StdPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 6)

    def forward(self, x):
        return self.fc(x).std(dim=-1)


class StdMs(mnn.Cell):
    def __init__(self, ddof=1):
        super().__init__()
        self.fc = mnn.Dense(4, 6)
        self.ddof = ddof

    def construct(self, x):
        return self.fc(x).std(axis=-1, ddof=self.ddof)


class CrossEntropyMs(mnn.Cell):
    """nn.CrossEntropyLoss with int32 labels (its CPU kernel refuses int64)."""

    def __init__(self, **kwargs):
        super().__init__()
        self.loss = mnn.CrossEntropyLoss(**kwargs)

    def construct(self, logits, target):
        return self.loss(logits, target.astype(ms.int32))


X3 = {"x": uniform(2, 3, 4)}
LOGITS = {"logits": uniform(6, 4, low=-2.0, high=2.0), "target": integers(6, high=4)}

softmax_in_construct = PairedCase(
    doc="F.softmax(dim=1) ported as ops.softmax(axis=1)", torch=SoftmaxHeadPt, mindspore=SoftmaxHeadMs,
    inputs=X3, checks=("forward",), tags=("functional",))
softmax_in_construct_default_axis = PairedCase(
    doc="known-bad: ops.softmax without axis normalizes the last axis; torch's dim=1 is another",
    torch=SoftmaxHeadPt, mindspore=lambda: SoftmaxHeadMs(-1), inputs=X3, checks=("forward",), expect="fail",
    fails_with="value", diagnosis="op-softmax", tags=("functional", "known-bad"))
std_in_construct = PairedCase(
    doc="Tensor.std(dim=-1) (unbiased) ported with ddof=1", torch=StdPt, mindspore=StdMs, inputs=X3,
    checks=("forward",), tags=("functional",))
std_in_construct_biased = PairedCase(
    doc="known-bad: MindSpore's Tensor.std defaults to ddof=0; torch's std is unbiased",
    torch=StdPt, mindspore=lambda: StdMs(0), inputs=X3, checks=("forward",), expect="fail", fails_with="value",
    diagnosis="op-std", tags=("functional", "known-bad"))
wrapped_cross_entropy_smoothing = PairedCase(
    doc="CrossEntropyLoss(label_smoothing=0.1) behind a label-casting cell",
    torch=lambda: tnn.CrossEntropyLoss(label_smoothing=0.1), mindspore=lambda: CrossEntropyMs(label_smoothing=0.1),
    inputs=LOGITS, checks=("forward",), tags=("loss",))
wrapped_cross_entropy_smoothing_dropped = PairedCase(
    doc="known-bad: label_smoothing dropped in the port's wrapper cell; found through the inner loss cell",
    torch=lambda: tnn.CrossEntropyLoss(label_smoothing=0.1), mindspore=CrossEntropyMs, inputs=LOGITS,
    checks=("forward",), expect="fail", fails_with="value", diagnosis="loss-label-smoothing",
    tags=("loss", "known-bad"))
