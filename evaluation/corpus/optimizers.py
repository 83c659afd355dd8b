"""Single-API differences of optimizers: the network is one Linear; the defect is in the update rule."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn

from evaluation.corpus.build import entry
from migcheck import FrameworkPair, uniform


class LinPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tnn.Linear(4, 3)
        self.norm = tnn.LayerNorm(3)

    def forward(self, x):
        return self.norm(self.fc(x))


class LinMs(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(4, 3)
        self.norm = mnn.LayerNorm((3,), epsilon=1e-5)

    def construct(self, x):
        return self.norm(self.fc(x))


X = {"x": uniform(5, 4)}
OPT = ["optimizer"]


def opt_entry(name, source, torch_opt, naive_opt, correct_opt, cause, **kw):
    e = entry(name, "optimizer", source, LinPt, LinMs, LinMs, OPT, [cause], inputs=X, checks=("step",), **kw)
    import dataclasses

    return dataclasses.replace(
        e, naive=dataclasses.replace(e.naive, optimizer=FrameworkPair(torch_opt, naive_opt)),
        correct=dataclasses.replace(e.correct, optimizer=FrameworkPair(torch_opt, correct_opt)))


class TorchStyleRMSProp(mnn.Optimizer):
    """torch.optim.RMSprop's rule (mean square from 0, eps outside the root): nn.RMSProp starts it at 1."""

    def __init__(self, params, learning_rate, alpha=0.99, eps=1e-8):
        super().__init__(learning_rate, params)
        self.alpha, self.eps = alpha, eps
        self.square_avg = self.parameters.clone(prefix="square_avg", init="zeros")

    def construct(self, grads):
        lr = self.get_lr()
        for p, g, s in zip(self.parameters, grads, self.square_avg):
            ops.assign(s, self.alpha * s + (1 - self.alpha) * g * g)
            ops.assign(p, p - lr * g / (ops.sqrt(s) + self.eps))
        return True


def _grouped_decay(params, **kw):
    return mnn.SGD([{"params": list(params), "weight_decay": 0.1}], **kw)


ENTRIES = [
    opt_entry("adam_eps_placement", "Adam",
              lambda p: torch.optim.Adam(p, lr=0.1, eps=1e-3), lambda p: mnn.Adam(p, learning_rate=0.1, eps=1e-3),
              lambda p: mnn.Adam(p, learning_rate=0.1, eps=1e-3 * (1 - 0.999) ** 0.5),  # eps before correction
              "eps"),
    opt_entry("sgd_nesterov_dropped", "Optimizer",
              lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
              lambda p: mnn.SGD(p, learning_rate=0.1, momentum=0.9),
              lambda p: mnn.SGD(p, learning_rate=0.1, momentum=0.9, nesterov=True), "nesterov"),
    opt_entry("rmsprop_decay_default", "RMSProp",
              lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.99, eps=1e-8),
              lambda p: mnn.RMSProp(p, learning_rate=0.01),
              lambda p: TorchStyleRMSProp(p, 0.01), "mean square starts at 1|tf style|rmsprop"),
    opt_entry("adagrad_initial_accumulator", "Adagrad",
              lambda p: torch.optim.Adagrad(p, lr=0.1, eps=1e-10),
              lambda p: mnn.Adagrad(p, learning_rate=0.1),
              lambda p: mnn.Adagrad(p, learning_rate=0.1, accum=1e-20), "accum|initial"),
    opt_entry("sgd_weight_decay_filter", "Optimizer",
              lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.1),
              lambda p: mnn.SGD(p, learning_rate=0.1, weight_decay=0.1),
              lambda p: _grouped_decay(p, learning_rate=0.1), "weight-decay-filter|weight decay|weight_decay"),
]
