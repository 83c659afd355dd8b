"""Held-out set 10, half a (family h10): single differences inside small nets, each naive port with ONE difference
from torch named by MindSpore's API-difference notes or a probe of torch 2.13 / MindSpore 2.10 on CPU; written blind
(without reading migcheck's localization, mapping, judging or running code, or the other entries' causes)."""
from __future__ import annotations

import numpy as np

from migcheck import given, integers, uniform

from evaluation.corpus.build import entry

FAMILY = "h10"


# ---------------------------------------------------------------- layers and losses

def _t_ce_weight():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(6, 5)
            self.loss = torch.nn.CrossEntropyLoss(weight=torch.tensor([0.2, 1.0, 3.0, 0.5, 2.0]))
            # fixed class weights, not state: kept out of the state dict as the port keeps them out of its parameters
            del self.loss._buffers["weight"]
            self.loss.register_buffer("weight", torch.tensor([0.2, 1.0, 3.0, 0.5, 2.0]), persistent=False)

        def forward(self, x, y):
            return self.loss(self.fc(x), y)

    return Net()


def _m_ce_weight(weighted: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(6, 5)
                if weighted:
                    self.loss = nn.CrossEntropyLoss(weight=ms.Tensor(np.array([0.2, 1.0, 3.0, 0.5, 2.0], np.float32)))
                else:
                    self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

            def construct(self, x, y):
                return self.loss(self.fc(x), y.astype(ms.int32))

        return Net()
    return make


def _t_triplet():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Linear(6, 4)
            self.loss = torch.nn.TripletMarginLoss(margin=0.5)

        def forward(self, a, p, n):
            return self.loss(self.embed(a), self.embed(p), self.embed(n))

    return Net()


def _m_triplet(manual: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.embed = nn.Dense(6, 4)
                self.loss = None if manual else nn.TripletMarginLoss(margin=0.5)

            def _dist(self, x, y):
                # torch's pairwise_distance: || x - y + eps ||_2 with eps=1e-6
                return ops.sqrt(ops.sum((x - y + 1e-6) ** 2, dim=-1))

            def construct(self, a, p, n):
                ea, ep, en = self.embed(a), self.embed(p), self.embed(n)
                if self.loss is not None:
                    return self.loss(ea, ep, en)
                return ops.mean(ops.relu(self._dist(ea, ep) - self._dist(ea, en) + 0.5))

        return Net()
    return make


def _t_gelu_prim():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 8)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    return Net()


def _m_gelu_prim(functional: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(6, 8)
                self.act = None if functional else ops.GeLU()
                self.fc2 = nn.Dense(8, 3)

            def construct(self, x):
                h = self.fc1(x)
                h = ops.gelu(h, approximate="none") if self.act is None else self.act(h)
                return self.fc2(h)

        return Net()
    return make


def _t_logsoftmax3d():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)
            self.logp = torch.nn.LogSoftmax()        # no dim: torch picks dim 0 for a 3-D input (deprecated rule)

        def forward(self, x):
            return self.logp(self.fc(x))

    return Net()


def _m_logsoftmax3d(axis0: bool):
    def make():
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 5)
                self.logp = nn.LogSoftmax(axis=0) if axis0 else nn.LogSoftmax()

            def construct(self, x):
                return self.logp(self.fc(x))

        return Net()
    return make


def _t_topk():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(5, 3)

        def forward(self, x):                      # x: (B, 5 instances, 5 features)
            h = self.fc(x)
            top = torch.topk(h, 2, dim=1).values    # top-2 instances per feature (top-k MIL pooling)
            return self.head(top.mean(dim=1))

    return Net()


def _m_topk(transposed: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(5, 5)
                self.head = nn.Dense(5, 3)
                self.topk = ops.TopK(sorted=True)

            def construct(self, x):
                h = self.fc(x)
                if transposed:
                    top, _ = self.topk(h.swapaxes(1, 2), 2)     # ops.TopK works on the last axis
                else:
                    top, _ = self.topk(h, 2)
                return self.head(top.mean(axis=-1))

        return Net()
    return make


def _t_focal():
    import torch
    import torch.nn.functional as F

    class SigmoidFocalLoss(torch.nn.Module):
        """RetinaNet's classification loss as torchvision.ops.sigmoid_focal_loss computes it (alpha=0.25, gamma=2,
        per-class sigmoid), mean reduction."""

        def forward(self, logits, targets):
            p = torch.sigmoid(logits)
            ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
            p_t = p * targets + (1 - p) * (1 - targets)
            loss = ce * (1 - p_t) ** 2
            return (0.25 * targets + 0.75 * (1 - targets)) * loss

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.cls = torch.nn.Linear(6, 4)
            self.loss = SigmoidFocalLoss()

        def forward(self, x, y):
            return self.loss(self.cls(x), y).mean()

    return Net()


def _m_focal(sigmoid: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class SigmoidFocalLoss(nn.Cell):
            def construct(self, logits, targets):
                p = ops.sigmoid(logits)
                ce = ops.binary_cross_entropy_with_logits(logits, targets, reduction="none")
                p_t = p * targets + (1 - p) * (1 - targets)
                loss = ce * (1 - p_t) ** 2
                return (0.25 * targets + 0.75 * (1 - targets)) * loss

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cls = nn.Dense(6, 4)
                self.loss = SigmoidFocalLoss() if sigmoid else nn.FocalLoss(gamma=2.0, reduction="none")
                self.sigmoid = sigmoid

            def construct(self, x, y):
                logits = self.cls(x)
                if self.sigmoid:
                    return self.loss(logits, y).mean()
                return self.loss(logits, y.astype(ms.int32)).mean()

        return Net()
    return make


_FOCAL_Y = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]], np.float32)


# ---------------------------------------------------------------- functional ops in forward / construct

def _t_layer_norm_fn():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(6, 8)
            self.ln_w = torch.nn.Parameter(torch.ones(8))
            self.ln_b = torch.nn.Parameter(torch.zeros(8))
            self.out = torch.nn.Linear(8, 3)

        def forward(self, x):
            h = F.layer_norm(self.proj(x), (8,), self.ln_w, self.ln_b, eps=1e-5)
            return self.out(h)

    return Net()


def _m_layer_norm_fn(last_axis: bool):
    def make():
        import mindspore as ms
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = nn.Dense(6, 8)
                self.ln_w = ms.Parameter(ms.Tensor(np.ones(8, np.float32)), name="ln_w")
                self.ln_b = ms.Parameter(ms.Tensor(np.zeros(8, np.float32)), name="ln_b")
                self.norm_op = (ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5) if last_axis
                                else ops.LayerNorm())
                self.out = nn.Dense(8, 3)

            def construct(self, x):
                h, _, _ = self.norm_op(self.proj(x), self.ln_w, self.ln_b)
                return self.out(h)

        return Net()
    return make


def _t_sort():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(5, 3)

        def forward(self, x):                     # x: (B, 5 slots, 5 features)
            h = self.fc(x)
            ranked, _ = torch.sort(h, dim=1, descending=True)   # order statistics over the slots
            return self.head(ranked)

    return Net()


def _m_sort(axis1: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(5, 5)
                self.head = nn.Dense(5, 3)
                self.sort = ops.Sort(axis=1, descending=True) if axis1 else ops.Sort(descending=True)

            def construct(self, x):
                h = self.fc(x)
                ranked, _ = self.sort(h)
                return self.head(ranked)

        return Net()
    return make


def _t_pad_value():
    import torch
    import torch.nn.functional as F

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv1d(2, 3, 1)
            self.conv2 = torch.nn.Conv1d(3, 2, 3)

        def forward(self, x):
            h = F.pad(self.conv1(x), (2, 0), value=1.0)   # left pad with a constant 1
            return self.conv2(h)

    return Net()


def _m_pad_value(functional: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv1d(2, 3, 1, has_bias=True, pad_mode="valid")
                self.conv2 = nn.Conv1d(3, 2, 3, has_bias=True, pad_mode="valid")
                self.pad = None if functional else ops.Pad(((0, 0), (0, 0), (2, 0)))

            def construct(self, x):
                h = self.conv1(x)
                h = ops.pad(h, (2, 0), value=1.0) if self.pad is None else self.pad(h)
                return self.conv2(h)

        return Net()
    return make


# ---------------------------------------------------------------- gradient only

def _t_cos_emb():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.loss = torch.nn.CosineEmbeddingLoss(margin=0.6, reduction="none")

        def forward(self, a, b, y):
            return self.loss(a, b, y)

    return Net()


def _m_cos_emb(manual: bool):
    def make():
        import mindspore.nn as nn
        import mindspore.ops as ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.loss = None if manual else nn.CosineEmbeddingLoss(margin=0.6, reduction="none")

            def construct(self, a, b, y):
                if self.loss is not None:
                    return self.loss(a, b, y)
                cos = ops.sum(a * b, dim=-1) / ops.sqrt(ops.sum(a * a, dim=-1) * ops.sum(b * b, dim=-1) + 1e-12)
                neg = ops.clamp(cos - 0.6, min=0.0)      # clamp passes the gradient at the bound, as torch does
                return ops.where(y > 0, 1.0 - cos, neg)

        return Net()
    return make


_COS_A = np.array([[1.0, 0.0], [0.0, 2.0], [0.3, -0.7], [0.5, 0.5]], np.float32)
_COS_B = np.array([[0.6, 0.8], [1.6, 1.2], [0.9, 0.2], [-0.4, 0.8]], np.float32)
_COS_Y = np.array([-1.0, -1.0, 1.0, -1.0], np.float32)


ENTRIES = [
    entry("h10a_cross_entropy_class_weight_lost_sparse_softmax_ce", FAMILY, "CrossEntropyLoss", _t_ce_weight,
          _m_ce_weight(False), _m_ce_weight(True), ("loss",), ("weight|class weight|CrossEntropyLoss",),
          inputs={"x": uniform(6, 6), "y": integers(6, high=5)},
          cause_pattern=r"\b(?:class[ _-]?)?weights?\b[^.\n]*\b(?:CrossEntropyLoss|cross_entropy|lost|missing|dropped|"
                        r"ignored)\b|\bCrossEntropyLoss\([^)]*\bweight\s*=|\bweight\s*=\s*(?:ms\.|mindspore\.)?Tensor"),
    entry("h10a_triplet_margin_loss_no_cpu_kernel_raises", FAMILY, "TripletMarginLoss", _t_triplet,
          _m_triplet(False), _m_triplet(True), ("loss",), ("TripletMarginLoss|kernel|CPU",),
          inputs={"a": uniform(5, 6), "p": uniform(5, 6), "n": uniform(5, 6)}, fails_with="error",
          cause_pattern=r"\bTripletMarginLoss\b[^.\n]*\b(?:CPU|kernel|unsupported|not supported)\b|"
                        r"\b(?:CPU|kernel|unsupported)\b[^.\n]*\bTripletMarginLoss\b"),
    entry("h10a_sigmoid_focal_loss_ported_as_nn_focalloss", FAMILY,
          "model:RetinaNet sigmoid focal loss (torchvision.ops.sigmoid_focal_loss); probe: mindspore.nn.FocalLoss",
          _t_focal, _m_focal(False), _m_focal(True), ("loss",), ("FocalLoss|sigmoid|softmax|alpha",),
          inputs={"x": uniform(6, 6), "y": given(_FOCAL_Y)},
          cause_pattern=r"\bFocalLoss\b[^.\n]*\b(?:softmax|sigmoid|alpha)\b|"
                        r"\b(?:softmax|log_softmax)\b[^.\n]*\bsigmoid\b|\bsigmoid\b[^.\n]*\b(?:softmax|FocalLoss)\b|"
                        r"\bsigmoid_focal_loss\b|\bbinary_cross_entropy_with_logits\b"),
    entry("h10a_gelu_module_as_ops_gelu_primitive", FAMILY, "probe: nn.GELU vs ops.GeLU()", _t_gelu_prim,
          _m_gelu_prim(False), _m_gelu_prim(True), ("act",), ("GeLU|approximate|tanh",),
          inputs={"x": uniform(4, 6, low=-3.0, high=3.0)},
          cause_pattern=r"\bapproximate\s*=\s*(?:'none'|\"none\"|False)|"
                        r"\b(?:tanh|approximat\w*)\b[^.\n]*\b(?:GeLU|gelu|GELU)\b|"
                        r"\b(?:GeLU|gelu|GELU)\b[^.\n]*\b(?:tanh|approximat\w*|erf)\b"),
    entry("h10a_logsoftmax_implicit_dim_on_3d_input", FAMILY, "probe: nn.LogSoftmax() without dim on 3-D input",
          _t_logsoftmax3d, _m_logsoftmax3d(False), _m_logsoftmax3d(True), ("logp",), ("axis|dim|LogSoftmax",),
          inputs={"x": uniform(3, 4, 4)},
          cause_pattern=r"\baxis\s*=\s*0\b|\b(?:dim|axis)\b[^.\n]*\b0\b[^.\n]*\b(?:LogSoftmax|log_softmax)\b|"
                        r"\b(?:LogSoftmax|log_softmax)\b[^.\n]*\b(?:dim|axis)\b[^.\n]*\b0\b"),
    entry("h10a_topk_dim1_as_ops_topk_primitive_last_axis", FAMILY, "probe: torch.topk(dim=1) vs ops.TopK()", _t_topk,
          _m_topk(False), _m_topk(True), ("after:fc",), ("TopK|axis|dim",), inputs={"x": uniform(3, 5, 5)},
          cause_pattern=r"\b(?:TopK|topk)\b[^.\n]*\b(?:dim|axis|last|swapaxes|transpose)\b|"
                        r"\bswapaxes\(\s*1\s*,\s*2\s*\)|\b(?:dim|axis)\s*=\s*1\b"),
    entry("h10a_functional_layer_norm_as_ops_layernorm_default_axes", FAMILY, "probe: F.layer_norm vs ops.LayerNorm()",
          _t_layer_norm_fn, _m_layer_norm_fn(False), _m_layer_norm_fn(True), ("after:proj",),
          ("begin_norm_axis|LayerNorm|epsilon",), inputs={"x": uniform(2, 3, 6)}, fails_with="error",
          cause_pattern=r"\bbegin_norm_axis\b|\bbegin_params_axis\b|\bLayerNorm\([^)]*(?:axis|-1)"),
    entry("h10a_sort_dim1_as_ops_sort_default_last_axis", FAMILY, "probe: torch.sort(dim=1) vs ops.Sort()", _t_sort,
          _m_sort(False), _m_sort(True), ("after:fc",), ("axis|dim|Sort",), inputs={"x": uniform(3, 5, 5)},
          cause_pattern=r"\bSort\b[^.\n]*\baxis\s*=?\s*1\b|\baxis\s*=\s*1\b|\b(?:sort|Sort)\b[^.\n]*\b(?:dim|axis)\b"
                        r"[^.\n]*\b(?:1|last|-1)\b"),
    entry("h10a_pad_constant_value_as_ops_pad_primitive_zeros", FAMILY, "pad", _t_pad_value, _m_pad_value(False),
          _m_pad_value(True), ("after:conv1",), ("pad value|constant|ops.Pad",), inputs={"x": uniform(2, 2, 6)},
          cause_pattern=r"\bvalue\s*=\s*1(?:\.0*)?\b|\b(?:pad(?:ding)? value|constant value|fill value)\b[^.\n]*\b"
                        r"(?:1(?:\.0*)?|zero|0)\b|\bops\.Pad\b[^.\n]*\b(?:zero|value|constant)"),
    entry("h10a_cosine_embedding_loss_gradient_at_margin", FAMILY,
          "probe: CosineEmbeddingLoss backward at cos == margin",
          _t_cos_emb, _m_cos_emb(False), _m_cos_emb(True), ("loss",), ("margin|CosineEmbeddingLoss|gradient",),
          inputs={"a": given(_COS_A), "b": given(_COS_B), "y": given(_COS_Y)}, checks=("forward", "backward"),
          fails_on=("backward",),
          cause_pattern=r"\bCosineEmbeddingLoss\b[^.\n]*\b(?:margin|gradient|tie|half|kink|boundary)\b|"
                        r"\bmargin\b[^.\n]*\b(?:gradient|tie|half|kink|boundary)\b|"
                        r"\b(?:maximum|max)\b[^.\n]*\b(?:tie|half)\b"),
]
