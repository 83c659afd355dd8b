"""Held-out set 12, half a (families h12 / h12-port): single-difference ports found by probing the installed
torch and MindSpore on CPU (constructor defaults side by side, functions run on the same small inputs)."""
from __future__ import annotations

import numpy as np

from migcheck import FrameworkPair, given, integers, uniform

from evaluation.corpus.build import entry

PROBE = "probe:"


# ---------------------------------------------------------------- multi-label loss with per-class weights
def _t_bce_weight():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 3)
            self.loss = torch.nn.BCELoss(weight=torch.tensor([1.0, 2.0, 0.5]))

        def forward(self, x, y):
            return self.loss(torch.sigmoid(self.fc(x)), y)

    return Net()


def _m_bce_weight(broadcast: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(5, 3)
                self.w = ms.Tensor(np.array([1.0, 2.0, 0.5], np.float32))
                self.loss = nn.BCELoss(weight=self.w)

            def construct(self, x, y):
                p = ops.sigmoid(self.fc(x))
                if broadcast:
                    return ops.binary_cross_entropy(p, y, self.w.reshape(1, -1) * ops.ones_like(p), reduction="mean")
                return self.loss(p, y)

        return Net()
    return make


# ---------------------------------------------------------------- class-index loss fed int64 labels
def _t_ce_labels():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 4)
            self.loss = torch.nn.CrossEntropyLoss()

        def forward(self, x, label):
            return self.loss(self.fc(x), label)

    return Net()


def _m_ce_labels(cast: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(5, 4)
                self.loss = nn.CrossEntropyLoss()

            def construct(self, x, label):
                if cast:
                    label = label.astype(ms.int32)
                return self.loss(self.fc(x), label)

        return Net()
    return make


# ---------------------------------------------------------------- clamp(min=0) on zero-padded rows (gradient)
_PADDED = np.array([[0.4, -0.7, 0.9], [0.0, 0.0, 0.0], [-0.3, 0.8, 0.2], [0.0, 0.0, 0.0]], np.float32)


def _t_clamp():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(3, 5, bias=False)
            self.fc2 = torch.nn.Linear(5, 2)

        def forward(self, x):
            return self.fc2(self.fc1(x).clamp(min=0))

    return Net()


def _m_clamp(use_clamp: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(3, 5, has_bias=False)
                self.fc2 = nn.Dense(5, 2)

            def construct(self, x):
                h = self.fc1(x)
                h = ops.clamp(h, min=0.0) if use_clamp else ops.relu(h)
                return self.fc2(h)

        return Net()
    return make


# ---------------------------------------------------------------- NAdam
def _t_mlp():
    import torch

    return torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2))


def _m_mlp():
    import mindspore.nn as nn

    return nn.SequentialCell([nn.Dense(4, 6), nn.Tanh(), nn.Dense(6, 2)])


def _t_nadam(params):
    import torch

    return torch.optim.NAdam(params, lr=0.01)


def _m_nadam_naive(params):
    import mindspore.nn as nn

    return nn.Adam(params, learning_rate=0.01, use_nesterov=True)


def _m_nadam_correct(params):
    from mindspore.experimental.optim import NAdam

    return NAdam(params, lr=0.01)


# ---------------------------------------------------------------- Adagrad with a learning-rate decay
def _t_adagrad(params):
    import torch

    return torch.optim.Adagrad(params, lr=0.1, lr_decay=0.5)


def _m_adagrad_naive(params):
    import mindspore.nn as nn

    return nn.Adagrad(params, accum=0.0, learning_rate=0.1)


def _m_adagrad_correct(params):
    from mindspore.experimental.optim import Adagrad

    return Adagrad(params, lr=0.1, lr_decay=0.5)


# ---------------------------------------------------------------- graph mean aggregation by scatter_reduce
_SEGMENTS = np.array([0, 0, 1, 2, 2, 2], np.int64)


def _t_scatter_mean():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)
            self.head = torch.nn.Linear(3, 2)

        def forward(self, x, seg):
            h = self.fc(x)
            pooled = torch.zeros(4, 3).scatter_reduce(0, seg[:, None].expand(-1, 3), h, "mean")
            return self.head(pooled)

    return Net()


def _m_scatter_mean(count_self: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)
                self.head = nn.Dense(3, 2)

            def construct(self, x, seg):
                h = self.fc(x)
                total = ops.unsorted_segment_sum(h, seg, 4)
                count = ops.unsorted_segment_sum(ops.ones((h.shape[0], 1), h.dtype), seg, 4)
                pooled = total / (count + 1) if count_self else total / ops.clamp(count, min=1.0)
                return self.head(pooled)

        return Net()
    return make


# ---------------------------------------------------------------- encoder over padded token sequences
_PAD = np.array([[False, False, False, True], [False, False, True, True]])


def _t_encoder():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, 1)

        def forward(self, x, pad):
            return self.encoder(x, src_key_padding_mask=pad)

    return Net()


def _m_encoder(zero_padded: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, 1)

            def construct(self, x, pad):
                out = self.encoder(x, src_key_padding_mask=pad)
                if zero_padded:
                    out = ops.masked_fill(out, pad.expand_dims(-1), 0.0)
                return out

        return Net()
    return make


def _encoder_names(name: str):
    leaf_map = {"weight": "gamma", "bias": "beta"}
    name = name.replace(".linear1.", ".dense1.").replace(".linear2.", ".dense2.")
    for norm in (".norm1.", ".norm2."):
        if norm in name:
            head, leaf = name.rsplit(".", 1)
            return f"{head}.{leaf_map[leaf]}"
    return name


# ---------------------------------------------------------------- instance norm (no MindSpore CPU kernel) substituted
def _t_instnorm():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 4, 1)
            self.norm = torch.nn.InstanceNorm2d(4, affine=True)
            self.head = torch.nn.Conv2d(4, 2, 1)

        def forward(self, x):
            return self.head(torch.relu(self.norm(self.conv(x))))

    return Net()


def _m_instnorm(groups: int):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(2, 4, 1, has_bias=True)
                self.norm = nn.GroupNorm(groups, 4, eps=1e-5)
                self.head = nn.Conv2d(4, 2, 1, has_bias=True)

            def construct(self, x):
                return self.head(ops.relu(self.norm(self.conv(x))))

        return Net()
    return make


# ---------------------------------------------------------------- contrastive positives: diagonal of a similarity matrix
def _t_diag():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fa = torch.nn.Linear(4, 3)
            self.fb = torch.nn.Linear(4, 3)

        def forward(self, a, b):
            sim = self.fa(a) @ self.fb(b).t()
            return torch.logsumexp(sim, 1) - torch.diag(sim)

    return Net()


def _m_diag(extract: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fa = nn.Dense(4, 3)
                self.fb = nn.Dense(4, 3)

            def construct(self, a, b):
                sim = ops.matmul(self.fa(a), self.fb(b).T)
                pos = ops.diagonal(sim) if extract else ops.diag(sim)
                return ops.logsumexp(sim, 1) - pos

        return Net()
    return make


ENTRIES = [
    entry("h12a_bceloss_class_weight_vector_not_broadcast", "h12", PROBE + "nn.BCELoss(weight=(C,)) on (N,C) probabilities",
          _t_bce_weight, _m_bce_weight(False), _m_bce_weight(True), ("loss",),
          ("BCELoss weight|broadcast|per-class weight",),
          inputs={"x": uniform(4, 5), "y": uniform(4, 3, low=0.0, high=1.0)}, weight_map={"loss.weight": None},
          cause_pattern=r"\bweight\b[^.]*\b(broadcast\w*|expand\w*|shape|full[- ]shape|per[- ]class|same shape)\b"
                        r"|\bbroadcast_to\b|\bbroadcast\w*\b[^.]*\bweight\b"),
    entry("h12a_cross_entropy_loss_int64_class_labels_raises", "h12", PROBE + "nn.CrossEntropyLoss with int64 targets",
          _t_ce_labels, _m_ce_labels(False), _m_ce_labels(True), ("loss",),
          ("labels int32|int64 target|dtype",),
          inputs={"x": uniform(4, 5), "label": integers(4, high=4)}, fails_with="error",
          cause_pattern=r"\bint32\b|\bint64\b[^.]*\b(label|target)s?\b|\b(label|target)s?\b[^.]*\bint64\b"),
    entry("h12a_clamp_min_zero_as_relu_zero_rows_input_gradient", "h12", PROBE + "torch.clamp(min=0) vs ops.relu gradient at 0",
          _t_clamp, _m_clamp(False), _m_clamp(True), ("after:fc1",),
          ("clamp|relu|gradient at zero",),
          inputs={"x": given(_PADDED)}, checks=("forward", "backward"),
          cause_pattern=r"\bclamp\b|\bclip\w*\b|\brelu\b[^.]*\b(gradient|zero|0)\b"),
    entry("h12a_nadam_as_adam_use_nesterov", "h12", PROBE + "torch.optim.NAdam vs mindspore.nn.Adam(use_nesterov=True)",
          _t_mlp, _m_mlp, _m_mlp, ("optimizer",),
          ("NAdam|use_nesterov|momentum_decay",),
          inputs={"x": uniform(3, 4)}, checks=("step",), steps=3,
          cause_pattern=r"\bNAdam\b|\bmomentum_decay\b|\buse_nesterov\b"),
    entry("h12a_diag_of_similarity_matrix_as_ops_diag", "h12", PROBE + "torch.diag(2-D) vs mindspore.ops.diag(2-D)",
          _t_diag, _m_diag(False), _m_diag(True), ("after:fa",),
          ("diag|diagonal",),
          inputs={"a": uniform(4, 4), "b": uniform(4, 4)}, fails_with="shape",
          cause_pattern=r"\bdiagonal\b|\bdiag_part\b|\bdiag\b[^.]*\b(2-?D|matrix|extract\w*|construct\w*|build\w*)\b"),
]

ENTRIES.append(entry(
    "h12a_scatter_reduce_mean_include_self_as_segment_mean", "h12",
    PROBE + "Tensor.scatter_reduce(reduce='mean') (include_self default) vs mindspore.ops.unsorted_segment_sum",
    _t_scatter_mean, _m_scatter_mean(False), _m_scatter_mean(True), ("after:fc",), ("include_self|scatter_reduce mean",),
    inputs={"x": uniform(6, 4), "seg": given(_SEGMENTS)},
    cause_pattern=r"\binclude_self\b|\bcount\s*\+\s*1\b|\b(initial|self|existing|destination)\b[^.]*\b(value|zeros?)\b[^.]*"
                  r"\b(mean|average|count\w*)\b"))
ENTRIES.append(entry(
    "h12a_transformer_encoder_padding_mask_fast_path_zeros", "h12",
    PROBE + "torch.nn.TransformerEncoder(enable_nested_tensor=True) in eval with src_key_padding_mask",
    _t_encoder, _m_encoder(False), _m_encoder(True), ("encoder",), ("nested tensor|padded positions zero",),
    inputs={"x": uniform(2, 4, 8), "pad": given(_PAD)}, weight_map=_encoder_names, checks=("forward",),
    cause_pattern=r"\benable_nested_tensor\b|\bnested[_ ]tensor\b|\bfast[_ ]path\b"
                  r"|\bpad(ded|ding)?\b[^.]*\bpositions?\b[^.]*\bzero(s|ed)?\b"))
ENTRIES.append(entry(
    "h12a_instancenorm_substituted_by_single_group_groupnorm", "h12",
    PROBE + "nn.InstanceNorm2d has no MindSpore CPU kernel; nn.GroupNorm(num_groups, num_channels) stands in",
    _t_instnorm, _m_instnorm(1), _m_instnorm(4), ("norm",), ("num_groups|InstanceNorm|per-channel",),
    inputs={"x": uniform(2, 2, 3, 3)},
    cause_pattern=r"\bnum_groups\b[^.]*\b(4|num_channels|channels)\b|\bGroupNorm\(\s*4\s*,\s*4\b"
                  r"|\bInstanceNorm\w*\b|\bper[- ](channel|instance)\b|\bgroups?\b[^.]*\bchannels?\b"))
ENTRIES.append(entry(
    "h12a_adagrad_lr_decay_dropped_in_nn_adagrad", "h12", PROBE + "torch.optim.Adagrad(lr_decay=) vs mindspore.nn.Adagrad",
    _t_mlp, _m_mlp, _m_mlp, ("optimizer",), ("lr_decay|learning-rate decay",),
    inputs={"x": uniform(3, 4)}, checks=("step",), steps=3,
    cause_pattern=r"\blr_decay\b|\b(learning[- ]rate|lr)\b[^.]*\bdecay\b[^.]*\b0\.5\b"))

# the optimizer entries differ only in the optimizer, not the network; the gradient entry fails on backward only
import dataclasses as _dc  # noqa: E402

for _i, _e in enumerate(ENTRIES):
    if _e.name == "h12a_clamp_min_zero_as_relu_zero_rows_input_gradient":
        ENTRIES[_i] = _dc.replace(_e, naive=_dc.replace(_e.naive, fails_on=("backward",)))
_OPTIMIZERS = {"h12a_nadam_as_adam_use_nesterov": (_t_nadam, _m_nadam_naive, _m_nadam_correct),
               "h12a_adagrad_lr_decay_dropped_in_nn_adagrad": (_t_adagrad, _m_adagrad_naive, _m_adagrad_correct)}
for _i, _e in enumerate(ENTRIES):
    if _e.name in _OPTIMIZERS:
        _t, _n, _c = _OPTIMIZERS[_e.name]
        ENTRIES[_i] = _dc.replace(_e, naive=_dc.replace(_e.naive, optimizer=FrameworkPair(_t, _n)),
                                  correct=_dc.replace(_e.correct, optimizer=FrameworkPair(_t, _c)))
