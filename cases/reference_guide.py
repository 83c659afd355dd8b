"""Every example of the migration guide (shared/reference/model_and_cell.en.md) as a paired case."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn

from migcheck import PairedCase, given, uniform


# --- The guide's first unit test: Conv2d(120, 240, 4) inside MyCell, followed by ReLU. ---

class MyCellPt(tnn.Module):
    def __init__(self, forward_net):
        super().__init__()
        self.net = forward_net
        self.relu = tnn.ReLU()

    def forward(self, x):
        return self.relu(self.net(x))


class MyCellMs(mnn.Cell):
    def __init__(self, forward_net):
        super().__init__(auto_prefix=True)
        self.net = forward_net
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(self.net(x))


conv_relu = PairedCase(
    doc="Conv2d+ReLU ported with pad_mode='pad', the guide's fix for MindSpore's 'same' default",
    torch=lambda: MyCellPt(tnn.Conv2d(120, 240, kernel_size=4, bias=False)),
    mindspore=lambda: MyCellMs(mnn.Conv2d(120, 240, 4, has_bias=False, pad_mode="pad")),
    inputs={"x": uniform(2, 120, 12, 12)},
    weights=0.1,  # the guide's constant-weight style
    tags=("conv", "guide"),
)

conv_relu_default_pad = PairedCase(
    doc="known-bad: MindSpore Conv2d left at its default pad_mode='same' keeps 12x12 where torch gives 9x9",
    torch=lambda: MyCellPt(tnn.Conv2d(120, 240, kernel_size=4, bias=False)),
    mindspore=lambda: MyCellMs(mnn.Conv2d(120, 240, 4, has_bias=False)),
    inputs={"x": uniform(2, 120, 12, 12)},
    weights=0.1,
    expect="fail",
    fails_with="shape", diagnosis="pad-mode",
    tags=("conv", "guide", "known-bad"),
)


# --- The guide's Conv/BatchNorm/ReLU/MaxPool network, with its two bugs fixed ---
# (the guide calls `nn.Dense(x)` instead of `self.fc(x)`).

class NetworkPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = tnn.Sequential(tnn.Conv2d(3, 12, 3, padding=1), tnn.BatchNorm2d(12), tnn.ReLU(), tnn.MaxPool2d(2, 2))
        self.layer2 = tnn.Sequential(tnn.Conv2d(12, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.ReLU(), tnn.MaxPool2d(2, 2))
        self.pool = tnn.AdaptiveMaxPool2d((5, 5))
        self.fc = tnn.Linear(100, 10)

    def forward(self, x):
        x = self.pool(self.layer2(self.layer1(x)))
        return self.fc(x.reshape(-1, 100))


class NetworkMs(mnn.Cell):
    def __init__(self, bn_momentum=0.9):
        super().__init__()
        self.layer1 = mnn.SequentialCell([
            mnn.Conv2d(3, 12, 3, pad_mode="pad", padding=1, has_bias=True), mnn.BatchNorm2d(12, momentum=bn_momentum),
            mnn.ReLU(), mnn.MaxPool2d(kernel_size=2, stride=2)])
        self.layer2 = mnn.SequentialCell([
            mnn.Conv2d(12, 4, 3, pad_mode="pad", padding=1, has_bias=True), mnn.BatchNorm2d(4, momentum=bn_momentum),
            mnn.ReLU(), mnn.MaxPool2d(kernel_size=2, stride=2)])
        self.pool = mnn.AdaptiveMaxPool2d((5, 5))
        self.fc = mnn.Dense(100, 10)

    def construct(self, x):
        x = self.pool(self.layer2(self.layer1(x)))
        return self.fc(x.view((-1, 100)))


guide_network = PairedCase(
    doc="Conv/BatchNorm/ReLU/MaxPool/AdaptiveMaxPool/Dense: BatchNorm names map to gamma/beta/moving_*",
    torch=NetworkPt,
    mindspore=NetworkMs,
    inputs={"x": uniform(2, 3, 20, 20)},
    tags=("network", "guide"),
)


# --- Freezing parameters: the guide's Dense(2, 1). ---

dense_2_1 = PairedCase(
    doc="Linear(2, 1) <-> Dense(2, 1): same weight layout (out, in), names unchanged",
    torch=lambda: tnn.Linear(2, 1),
    mindspore=lambda: mnn.Dense(2, 1, has_bias=True),
    inputs={"x": uniform(4, 2)},
    tags=("linear", "guide"),
)


# --- Dynamic shapes: box selection with masked_select, and the mask rewrite. ---

class BoxSelectPt(tnn.Module):
    def forward(self, box, iou_score):
        return box[iou_score > 0.3]


class BoxSelectMaskedSelectMs(mnn.Cell):
    def construct(self, box, iou_score):
        mask = (iou_score > 0.3).expand_dims(1)
        return ops.masked_select(box, mask)


class BoxSelectMaskMs(mnn.Cell):
    def construct(self, box, iou_score):
        mask = (iou_score > 0.3).expand_dims(1)
        return box * mask, mask


BOX_INPUTS = {"box": uniform(3, 4, low=0.0, high=1.0), "iou_score": uniform(3, low=0.0, high=1.0)}

box_select_masked_select = PairedCase(
    doc="masked_select flattens the selection: the adapter restores torch's (k, 4) rows",
    torch=BoxSelectPt,
    mindspore=BoxSelectMaskedSelectMs,
    inputs=BOX_INPUTS,
    adapt_mindspore=lambda out: out.reshape(-1, 4),
    tags=("dynamic-shape", "guide"),
)

box_select_mask = PairedCase(
    doc="mask rewrite returns (box * mask, mask) with a static shape: the adapter selects the kept rows",
    torch=BoxSelectPt,
    mindspore=BoxSelectMaskMs,
    inputs=BOX_INPUTS,
    adapt_mindspore=lambda out: out[0][out[1][:, 0]],
    tags=("dynamic-shape", "guide"),
)


# --- Dynamic shapes in a loss: top-k over a variable k, rewritten with sort and a threshold mask. ---

class ClassLossPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.con_loss = tnn.CrossEntropyLoss(reduction="none")

    def forward(self, pred, label):
        mask = label > 0
        valid_label = label * mask
        pos_num = torch.clamp(mask.sum() * 0.7, 1).int()
        con = self.con_loss(pred, valid_label.long()) * mask
        loss, _ = torch.topk(con, k=int(pos_num))
        return loss.mean()


class ClassLossMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.con_loss = mnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="none")
        self.sort_descending = ops.Sort(descending=True)

    def construct(self, pred, label):
        mask = label > 0
        valid_label = label * mask
        pos_num = ops.maximum(mask.sum() * 0.7, 1).astype(ms.int32)
        con = self.con_loss(pred, valid_label.astype(ms.int32)) * mask
        con_sort, _ = self.sort_descending(con)
        con_k = con_sort[pos_num - 1]
        con_mask = (con >= con_k).astype(con.dtype)
        loss = con * con_mask
        return loss.sum() / con_mask.sum()


class_loss_topk = PairedCase(
    doc="torch.topk with a data-dependent k, ported as sort + k-th value threshold mask",
    torch=ClassLossPt,
    mindspore=ClassLossMs,
    inputs={"pred": uniform(5, 2, low=0.0, high=1.0), "label": given(np.array([-1, 0, 1, 1, 0], np.int32))},
    tags=("dynamic-shape", "loss", "guide"),
)


# --- Dynamic shapes from control flow: masked_select in one branch, rewritten as x * mask. ---

class SelectAbovePt(tnn.Module):
    def forward(self, x):
        if (x > 0.5).any():
            return torch.masked_select(x, x > 0.5)
        return torch.zeros_like(x)


class SelectAboveMaskMs(mnn.Cell):
    def construct(self, x):
        mask = (x > 0.5).astype(x.dtype)
        return x * mask


control_flow_mask = PairedCase(
    doc="a branch-dependent masked_select rewritten as a static x * mask; the adapter drops the zeros",
    torch=SelectAbovePt,
    mindspore=SelectAboveMaskMs,
    inputs={"x": uniform(10, low=0.0, high=1.0)},
    adapt_mindspore=lambda y: y[y != 0],
    tags=("dynamic-shape", "control-flow", "guide"),
)
