"""Backward, train-mode state and optimizer steps: the reference's forward -> loss -> backward -> update."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn

from migcheck import FrameworkPair, PairedCase, integers, uniform


class MlpBnPt(tnn.Module):
    def __init__(self, bias_before_bn=True):
        super().__init__()
        self.fc = tnn.Linear(4, 6, bias=bias_before_bn)
        self.bn = tnn.BatchNorm1d(6)
        self.out = tnn.Linear(6, 3)

    def forward(self, x):
        return self.out(torch.relu(self.bn(self.fc(x))))


class MlpBnMs(mnn.Cell):
    def __init__(self, momentum=0.9, bias_before_bn=True):
        super().__init__()
        self.fc = mnn.Dense(4, 6, has_bias=bias_before_bn)
        self.bn = mnn.BatchNorm1d(6, momentum=momentum)
        self.out = mnn.Dense(6, 3)
        self.relu = mnn.ReLU()

    def construct(self, x):
        return self.out(self.relu(self.bn(self.fc(x))))


X = {"x": uniform(8, 4)}

mlp_sgd = PairedCase(
    doc="SGD with momentum, Nesterov and weight decay on every parameter, three steps, BatchNorm in train mode",
    torch=MlpBnPt, mindspore=MlpBnMs, inputs=X, optimizer="sgd", steps=3, tags=("optimizer",),
)

mlp_adam = PairedCase(
    doc="Adam, two steps; no bias before BatchNorm, whose zero gradient would make Adam amplify rounding noise",
    torch=lambda: MlpBnPt(bias_before_bn=False), mindspore=lambda: MlpBnMs(bias_before_bn=False),
    inputs=X, optimizer="adam", steps=2, checks=("step",), tags=("optimizer",),
)

mlp_adamw = PairedCase(
    doc="AdamW preset: torch AdamW vs mindspore.mint.optim.AdamW (Ascend-only kernel in 2.10: a skip elsewhere)",
    torch=lambda: MlpBnPt(bias_before_bn=False), mindspore=lambda: MlpBnMs(bias_before_bn=False),
    inputs=X, optimizer="adamw", checks=("step",), tags=("optimizer",),
)


class ClassifierPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(5, 4)

    def forward(self, x):
        return self.fc(x)


class ClassifierMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(5, 4)

    def construct(self, x):
        return self.fc(x)


classifier_cross_entropy = PairedCase(
    doc="a paired loss: CrossEntropyLoss vs SoftmaxCrossEntropyWithLogits(sparse=True) with int32 labels; SGD steps",
    torch=ClassifierPt, mindspore=ClassifierMs,
    inputs={"x": uniform(6, 5), "label": integers(6, high=4, dtype="int64")},
    targets=("label",),
    loss=FrameworkPair(torch=lambda: tnn.CrossEntropyLoss(),
                       mindspore=lambda: mnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
    optimizer="sgd", steps=2, checks=("backward", "step"), tags=("loss", "optimizer"),
)


# --- A custom bprop (the guide's MySampler), with sampling made deterministic by a seeded input. ---

def _positions(x, noise, max_num):
    # Pick max_num positions above 0.5 per row, with replacement, driven by the seeded `noise` input.
    rows = []
    for row, u in zip(x, noise):
        pos = np.where(row > 0.5)[0]
        rows.append(pos[np.minimum((u * len(pos)).astype(np.int64), len(pos) - 1)])
    return np.stack(rows).astype(np.int32)


class SamplerPt(tnn.Module):
    def forward(self, x, noise):
        idx = torch.from_numpy(_positions(x.detach().numpy(), noise.detach().numpy(), 3)).long()
        return torch.gather(x, 1, idx), idx.int()


class SamplerMs(mnn.Cell):
    def construct(self, x, noise):
        idx = ms.Tensor(_positions(x.asnumpy(), noise.asnumpy(), 3))
        return ops.gather_elements(x, 1, idx), idx

    def bprop(self, x, noise, out, dout):
        idx = out[1]
        dx = [ops.unsorted_segment_sum(dout[0][i], idx[i], x.shape[1]) for i in range(x.shape[0])]
        return ops.stack(dx, axis=0), ops.zeros_like(noise)


sampler_custom_bprop = PairedCase(
    doc="numpy sampling inside construct with a hand-written bprop, checked against torch autograd of gather",
    torch=SamplerPt, mindspore=SamplerMs,
    inputs={"x": uniform(2, 5, low=0.0, high=3.0), "noise": uniform(2, 3, low=0.0, high=1.0)},
    checks=("forward", "backward"), modes=("pynative",),
    skip={"graph": "construct calls numpy on tensor values, which GRAPH mode cannot compile"},
    tags=("bprop", "guide"),
)


# --- Known-bad ports: classic training mistakes that forward-only checks miss. ---

bn_momentum_complement = PairedCase(
    doc="known-bad: BatchNorm momentum copied from torch (0.1); MindSpore's momentum is the complement (0.9)",
    torch=MlpBnPt, mindspore=lambda: MlpBnMs(momentum=0.1), inputs=X,
    checks=("forward", "train"), expect="fail", fails_with="value", diagnosis="batchnorm-momentum", fails_on=("train",),
    tags=("known-bad", "batchnorm"),
)

adamw_as_adamweightdecay = PairedCase(
    doc="known-bad: torch AdamW ported as nn.AdamWeightDecay, which has no bias correction",
    torch=lambda: MlpBnPt(bias_before_bn=False), mindspore=lambda: MlpBnMs(bias_before_bn=False), inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-2),
        mindspore=lambda params: mnn.AdamWeightDecay(params, learning_rate=1e-3, weight_decay=1e-2)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-torch-class", tags=("known-bad", "optimizer"),
)

adam_epsilon_placement = PairedCase(
    doc="known-bad: same Adam eps, different formula: MindSpore adds eps before bias correction",
    torch=lambda: MlpBnPt(bias_before_bn=False), mindspore=lambda: MlpBnMs(bias_before_bn=False), inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.Adam(params, lr=1e-2, eps=1e-3),
        mindspore=lambda params: mnn.Adam(params, learning_rate=1e-2, eps=1e-3)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-update", tags=("known-bad", "optimizer"),
)

# Optimizer ports whose update rule differs although the names match (stage blame identifies each
# side's rule from its first update). Plain Linear layers: no BatchNorm gamma/beta decay filter.
_MLP_PT = lambda: tnn.Sequential(tnn.Linear(4, 6), tnn.Tanh(), tnn.Linear(6, 3))  # noqa: E731
_MLP_MS = lambda: mnn.SequentialCell(mnn.Dense(4, 6), mnn.Tanh(), mnn.Dense(6, 3))  # noqa: E731

sgd_nesterov_dropped = PairedCase(
    doc="known-bad: torch SGD(nesterov=True) ported as Momentum without use_nesterov",
    torch=_MLP_PT, mindspore=_MLP_MS, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True),
        mindspore=lambda params: mnn.Momentum(params, learning_rate=0.1, momentum=0.9)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-update", tags=("known-bad", "optimizer"),
)

sgd_nesterov = PairedCase(
    doc="the correct twin: mindspore.nn.SGD(nesterov=True) steps as torch's Nesterov SGD",
    torch=_MLP_PT, mindspore=_MLP_MS, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True),
        mindspore=lambda params: mnn.SGD(params, learning_rate=0.1, momentum=0.9, nesterov=True)),
    checks=("step",), steps=2, tags=("optimizer",),
)

momentum_use_nesterov_on_cpu = PairedCase(
    doc="known-bad on MindSpore 2.10 CPU (found by stage blame): nn.Momentum(use_nesterov=True) steps as plain"
        " momentum; nn.SGD(nesterov=True) is the port that agrees (sgd_nesterov)",
    torch=_MLP_PT, mindspore=_MLP_MS, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True),
        mindspore=lambda params: mnn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=True)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-update", tags=("known-bad", "optimizer"),
)

rmsprop_tf_style = PairedCase(
    doc="known-bad: torch RMSprop ported as nn.RMSProp, which adds eps inside the square root (TF style)",
    torch=_MLP_PT, mindspore=_MLP_MS, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.RMSprop(params, lr=1e-2, alpha=0.9, eps=1e-2),
        mindspore=lambda params: mnn.RMSProp(params, learning_rate=1e-2, decay=0.9, epsilon=1e-2)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-update", tags=("known-bad", "optimizer"),
)

adagrad_initial_accumulator = PairedCase(
    doc="known-bad: torch Adagrad's accumulator starts at 0, mindspore.nn.Adagrad's at accum=0.1",
    torch=_MLP_PT, mindspore=_MLP_MS, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.Adagrad(params, lr=0.1),
        mindspore=lambda params: mnn.Adagrad(params, learning_rate=0.1)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="optimizer-update", tags=("known-bad", "optimizer"),
)

sgd_weight_decay_filter = PairedCase(
    doc="known-bad: a float weight_decay in MindSpore skips gamma/beta by name; torch decays BatchNorm too",
    torch=MlpBnPt, mindspore=MlpBnMs, inputs=X,
    optimizer=FrameworkPair(
        torch=lambda params: torch.optim.SGD(params, lr=0.1, weight_decay=0.1),
        mindspore=lambda params: mnn.SGD(params, learning_rate=0.1, weight_decay=0.1)),
    checks=("step",), expect="fail", fails_with="value", diagnosis="weight-decay-filter", tags=("known-bad", "optimizer"),
)


def _frozen_bias_linear():
    layer = tnn.Linear(3, 2)
    layer.bias.requires_grad_(False)
    return layer


frozen_on_one_side = PairedCase(
    doc="known-bad: torch freezes the bias (requires_grad=False), the port leaves it trainable",
    torch=_frozen_bias_linear, mindspore=lambda: mnn.Dense(3, 2), inputs={"x": uniform(4, 3)},
    checks=("forward", "backward"), expect="fail", fails_with="structure", tags=("known-bad", "freeze"),
)


class TwoLayerMs(mnn.Cell):
    def __init__(self, stop_hidden=False):
        super().__init__()
        self.first = mnn.Dense(3, 4)
        self.second = mnn.Dense(4, 2)
        self.stop_hidden = stop_hidden

    def construct(self, x):
        h = ops.tanh(self.first(x))
        if self.stop_hidden:
            h = ops.stop_gradient(h)
        return self.second(h)


class TwoLayerPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.first = tnn.Linear(3, 4)
        self.second = tnn.Linear(4, 2)

    def forward(self, x):
        return self.second(torch.tanh(self.first(x)))


stop_gradient_misplaced = PairedCase(
    doc="known-bad: stop_gradient on the hidden layer freezes everything before it; forward still agrees",
    torch=TwoLayerPt, mindspore=lambda: TwoLayerMs(stop_hidden=True), inputs={"x": uniform(5, 3)},
    checks=("forward", "backward"), expect="fail", fails_with="value", fails_on=("backward",),
    tags=("known-bad", "freeze"),
)


class TryExceptMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(3, 2)

    def construct(self, x):
        try:
            return self.fc(x)
        except ValueError:
            return x


graph_syntax_try_except = PairedCase(
    doc="known-bad for GRAPH mode: try/except in construct runs in PYNATIVE but the graph compiler rejects it",
    torch=lambda: tnn.Linear(3, 2), mindspore=TryExceptMs, inputs={"x": uniform(4, 3)},
    weight_map={"weight": "fc.weight", "bias": "fc.bias"}, checks=("forward",), expect="fail", fails_with="graph-compile-error", fails_on=("graph",),
    tags=("known-bad", "graph-mode"),
)
