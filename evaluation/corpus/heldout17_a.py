"""Held-out set 17, half a: spatial / geometric ops and less common functional APIs (blind; see evaluation/README.md).

Each entry is one difference between torch 2.13 and MindSpore 2.10 (CPU), found by probing the installed versions
or on MindSpore's PyTorch API-difference pages. Single-API entries are family "h17", model blocks "h17-port".
"""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform


# --------------------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------------------

def _aa_bilinear_matrix(n_in: int, n_out: int) -> np.ndarray:
    """torch's antialiased bilinear (triangle filter) resampling weights along one axis, as an (n_out, n_in) matrix."""
    scale = n_in / n_out
    support = max(scale, 1.0)
    inv = 1.0 / max(scale, 1.0)
    m = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        w = np.array([max(0.0, 1.0 - abs((j - center + 0.5) * inv)) for j in range(lo, hi)])
        m[i, lo:hi] = w / w.sum()
    return m.astype(np.float32)


# --------------------------------------------------------------------------------------------------------------
# 1. functional: bilinear downsampling with antialias=True (MindSpore's interpolate has no antialias)
# --------------------------------------------------------------------------------------------------------------

def _aa_torch():
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(2, 3, 1)

        def forward(self, x):
            y = self.conv(x)
            return F.interpolate(y, size=(3, 4), mode="bilinear", align_corners=False, antialias=True)
    return Net()


def _aa_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    mh = ms.Tensor(_aa_bilinear_matrix(8, 3))
    mw_t = ms.Tensor(np.ascontiguousarray(_aa_bilinear_matrix(10, 4).T))

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)

        def construct(self, x):
            y = self.conv(x)
            if correct:
                return ops.matmul(ops.matmul(mh, y), mw_t)
            return ops.interpolate(y, size=(3, 4), mode="bilinear", align_corners=False)
    return Net()


# --------------------------------------------------------------------------------------------------------------
# 2. functional: torch.unique (sorted) -> ops.unique (order of first appearance): class prototypes permuted
# --------------------------------------------------------------------------------------------------------------

def _uq_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(5, 4)

        def forward(self, x, labels):
            f = self.fc(x)
            classes, inverse = torch.unique(labels, sorted=True, return_inverse=True)
            protos = torch.zeros(classes.numel(), f.shape[1], dtype=f.dtype).index_add(0, inverse, f)
            counts = torch.bincount(inverse, minlength=classes.numel()).to(f.dtype).unsqueeze(1)
            return protos / counts
    return Net()


def _uq_ms(correct: bool):
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(5, 4)

        def construct(self, x, labels):
            f = self.fc(x)
            classes, inverse = ops.unique(labels)
            k = classes.shape[0]
            if correct:
                _, perm = ops.sort(classes.astype(np.float32))
                rank = ops.argsort(perm.astype(np.float32))
                inverse = ops.gather(rank, inverse, 0)
            inverse = inverse.astype(np.int32)
            protos = ops.unsorted_segment_sum(f, inverse, k)
            counts = ops.unsorted_segment_sum(ops.ones((f.shape[0], 1), f.dtype), inverse, k)
            return protos / counts
    return Net()


# --------------------------------------------------------------------------------------------------------------
# 3. gradient only: HingeEmbeddingLoss with inputs exactly at the margin
# --------------------------------------------------------------------------------------------------------------

def _hinge_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Linear(4, 3)
            self.loss = tnn.HingeEmbeddingLoss(margin=1.0)

        def forward(self, x, y):
            return self.loss(self.proj(x), y)
    return Net()


def _hinge_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class TorchHinge(mnn.Cell):
        def __init__(self, margin):
            super().__init__()
            self.margin = margin

        def construct(self, d, y):
            clamped = ops.clamp(self.margin - d, min=0.0)
            neg = ops.where(y != 1, clamped, ops.zeros_like(d))
            pos = ops.where(y != -1, d, ops.zeros_like(d))
            return (neg + pos).mean()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Dense(4, 3)
            self.loss = TorchHinge(1.0) if correct else mnn.HingeEmbeddingLoss(margin=1.0)

        def construct(self, x, y):
            return self.loss(self.proj(x), y.astype(ms.float32))
    return Net()


# rows summing to 1 give proj outputs of exactly 0.5 * 1 + 0.5 = 1.0 (= the margin) with constant weights 0.5
_HINGE_X = [[0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.5, -0.5], [1.0, -0.5, 0.25, 0.25], [0.5, 0.5, -0.5, -0.5],
            [1.0, 0.5, 0.25, 0.25]]
_HINGE_Y = [[-1, 1, -1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1], [1, -1, 1]]


# --------------------------------------------------------------------------------------------------------------
# 4. loss layer: CTCLoss fed concatenated 1-D targets (MindSpore needs padded (N, S) targets) -- raises
# --------------------------------------------------------------------------------------------------------------

_CTC_TARGET_LENGTHS = (3, 2)


def _ctc_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(6, 5)
            self.ctc = tnn.CTCLoss(blank=0)

        def forward(self, x, targets):
            lp = self.fc(x).log_softmax(-1)
            n = lp.shape[1]
            return self.ctc(lp, targets, torch.full((n,), lp.shape[0], dtype=torch.long),
                            torch.tensor(_CTC_TARGET_LENGTHS, dtype=torch.long))
    return Net()


def _ctc_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    lengths = ms.Tensor(np.array(_CTC_TARGET_LENGTHS, np.int64))
    width = max(_CTC_TARGET_LENGTHS)
    starts = np.cumsum((0,) + _CTC_TARGET_LENGTHS[:-1])
    pad_index = ms.Tensor(np.array([[s + min(j, n - 1) for j in range(width)]
                                    for s, n in zip(starts, _CTC_TARGET_LENGTHS)], np.int64))

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(6, 5)
            self.ctc = mnn.CTCLoss(blank=0)
            self.log_softmax = mnn.LogSoftmax(-1)

        def construct(self, x, targets):
            lp = self.log_softmax(self.fc(x))
            n = lp.shape[1]
            input_lengths = ops.full((n,), lp.shape[0], dtype=ms.int64)
            if correct:
                targets = ops.gather(targets, pad_index, 0)
            return self.ctc(lp, targets, input_lengths, lengths)
    return Net()


# --------------------------------------------------------------------------------------------------------------
# 5. loss layer: CosineEmbeddingLoss with all-zero (masked) embeddings
# --------------------------------------------------------------------------------------------------------------

def _cel_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(5, 4)
            self.loss = tnn.CosineEmbeddingLoss(margin=0.2)

        def forward(self, a, b, y, keep):
            e1 = self.fc(a) * keep.unsqueeze(1)
            e2 = self.fc(b)
            return self.loss(e1, e2, y)
    return Net()


def _cel_ms(correct: bool):
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class TorchCosineEmbeddingLoss(mnn.Cell):
        def __init__(self, margin):
            super().__init__()
            self.margin = margin

        def construct(self, e1, e2, y):
            eps = 1e-12
            prod = (e1 * e2).sum(1)
            cos = prod / ops.sqrt(((e1 * e1).sum(1) + eps) * ((e2 * e2).sum(1) + eps))
            zeros = ops.zeros_like(cos)
            pos = ops.where(y == 1, 1.0 - cos, zeros)
            neg = ops.where(y == -1, ops.clamp(cos - self.margin, min=0.0), zeros)
            return (pos + neg).mean()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(5, 4)
            self.loss = TorchCosineEmbeddingLoss(0.2) if correct else mnn.CosineEmbeddingLoss(margin=0.2)

        def construct(self, a, b, y, keep):
            e1 = self.fc(a) * keep.expand_dims(1)
            e2 = self.fc(b)
            return self.loss(e1, e2, y)
    return Net()


# --------------------------------------------------------------------------------------------------------------
# 6. loss layer: MultiLabelMarginLoss -> nn.MultilabelMarginLoss (no CPU kernel) -- raises
# --------------------------------------------------------------------------------------------------------------

def _mlm_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tnn.Linear(5, 4)
            self.loss = tnn.MultiLabelMarginLoss()

        def forward(self, x, target):
            return self.loss(self.fc(x), target)
    return Net()


def _mlm_ms(correct: bool):
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class TorchMultiLabelMargin(mnn.Cell):
        def construct(self, x, target):
            c = x.shape[1]
            valid = ops.cumprod((target != -1).astype(x.dtype), 1)          # labels before the first -1
            idx = ops.clamp(target, min=0)
            is_target = (ops.one_hot(idx, c, 1.0, 0.0) * valid.expand_dims(2)).sum(1)
            is_target = ops.clamp(is_target, max=1.0)
            x_t = ops.gather_elements(x, 1, idx)
            hinge = ops.relu(1.0 - (x_t.expand_dims(2) - x.expand_dims(1)))
            w = valid.expand_dims(2) * (1.0 - is_target).expand_dims(1)
            return ((hinge * w).sum((1, 2)) / c).mean()

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = mnn.Dense(5, 4)
            self.loss = TorchMultiLabelMargin() if correct else mnn.MultilabelMarginLoss()

        def construct(self, x, target):
            return self.loss(self.fc(x), target)
    return Net()


# --------------------------------------------------------------------------------------------------------------

ENTRIES = [
    entry("h17a_bilinear_downsample_antialias_not_in_ops_interpolate", "h17",
          "probe:F.interpolate(mode='bilinear', antialias=True) vs ops.interpolate (no antialias argument)",
          _aa_torch, lambda: _aa_ms(False), lambda: _aa_ms(True), ("after:conv",), ("antialias",),
          inputs={"x": uniform(2, 2, 8, 10)},
          cause_pattern=r"\banti-?alias(ing|ed)?\b"),
    entry("h17a_class_prototypes_torch_unique_sorted_as_ops_unique_appearance_order", "h17",
          "probe:torch.unique(sorted=True, return_inverse=True) vs ops.unique (first-appearance order)",
          _uq_torch, lambda: _uq_ms(False), lambda: _uq_ms(True), ("after:fc",), ("unique|sorted|order",),
          inputs={"x": uniform(8, 5), "labels": given([2, 0, 3, 0, 1, 2, 3, 1], dtype="int64")},
          cause_pattern=r"\bunique\b[^.]*\b(sort|sorted|sorts|ascending|order|ordering|ordered)\b"
                        r"|\b(sort|sorted|ascending|order|ordering|ordered)\b[^.]*\bunique\b"),
    entry("h17a_hinge_embedding_loss_gradient_at_margin_halved", "h17",
          "probe:nn.HingeEmbeddingLoss gradient where margin - x == 0 (torch clamp_min passes it, MindSpore splits it)",
          _hinge_torch, lambda: _hinge_ms(False), lambda: _hinge_ms(True), ("loss",),
          ("margin|gradient|maximum|clamp",),
          inputs={"x": given(_HINGE_X, dtype="float32"), "y": given(_HINGE_Y, dtype="int64")},
          checks=("forward", "backward"), fails_on=("backward",), weights=0.5,
          cause_pattern=r"\b(gradient|subgradient|grad)\b[^.]*\b(margin|boundary|kink|tie|ties)\b"
                        r"|\b(margin|boundary|kink|tie|ties)\b[^.]*\b(gradient|subgradient|grad)\b"
                        r"|\bmaximum\b[^.]*\b(split|splits|half|halves|0\.5)\b"),
    entry("h17a_ctc_loss_concatenated_1d_targets_raises", "h17", "CTCLoss",
          _ctc_torch, lambda: _ctc_ms(False), lambda: _ctc_ms(True), ("ctc",), ("targets|padded|2-D",),
          inputs={"x": uniform(8, 2, 6), "targets": given([1, 2, 2, 3, 4], dtype="int64")},
          fails_with="error",
          cause_pattern=r"\btargets?\b[^.]*\b(2-?d|two-dimensional|padded|pad|\(n,\s*s\)|concatenated|1-?d"
                        r"|one-dimensional|dim)\b"),
    entry("h17a_cosine_embedding_loss_zero_masked_rows_nan", "h17",
          "probe:nn.CosineEmbeddingLoss with an all-zero embedding row (torch adds eps 1e-12 to the squared norms)",
          _cel_torch, lambda: _cel_ms(False), lambda: _cel_ms(True), ("loss",), ("zero|norm|eps|nan",),
          inputs={"a": uniform(6, 5), "b": uniform(6, 5), "y": given([1, 1, -1, -1, 1, -1], dtype="int64"),
                  "keep": given([1.0, 0.0, 1.0, 1.0, 0.0, 1.0], dtype="float32")},
          fails_with="nonfinite",
          cause_pattern=r"\b(zero|zero-norm|all-zero|zeroed)\b[^.]*\b(vectors?|norms?|rows?|embeddings?|magnitudes?)\b"
                        r"|\b(eps|epsilon)\b[^.]*\b1e-12\b|\b(divid\w*|division)\b[^.]*\bzero\b"),
    entry("h17a_multilabel_margin_loss_no_cpu_kernel_raises", "h17", "MultiLabelMarginLoss",
          _mlm_torch, lambda: _mlm_ms(False), lambda: _mlm_ms(True), ("loss",), ("MultilabelMarginLoss|cpu",),
          inputs={"x": uniform(4, 5), "target": given([[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3], [2, -1, 1, 1]],
                                                      dtype="int64")},
          fails_with="error",
          cause_pattern=r"\bmulti_?label_?margin_?loss\b[^.]*\b(cpu|kernel|int32|unsupported|not supported)\b"
                        r"|\b(cpu|kernel|int32|unsupported)\b[^.]*\bmulti_?label_?margin_?loss\b"),
]


# --------------------------------------------------------------------------------------------------------------
# 7. functional: Tensor.index_add(..., alpha=) -> ops.index_add (no alpha argument)
# --------------------------------------------------------------------------------------------------------------

_STEP = 0.1


def _ia_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.msg = tnn.Linear(4, 4)

        def forward(self, x, nodes, dst):
            return nodes.index_add(0, dst, self.msg(x), alpha=_STEP)
    return Net()


def _ia_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.msg = mnn.Dense(4, 4)

        def construct(self, x, nodes, dst):
            m = self.msg(x)
            if correct:
                m = m * _STEP
            return ops.index_add(nodes, dst.astype(ms.int32), m, 0)
    return Net()


# --------------------------------------------------------------------------------------------------------------
# 8. layer: nn.Upsample(scale_factor=0.7) -> nn.Upsample(..., recompute_scale_factor=True)
# --------------------------------------------------------------------------------------------------------------

def _up_torch():
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(2, 3, 1)
            self.up = tnn.Upsample(scale_factor=0.7, mode="nearest")

        def forward(self, x):
            return self.up(self.conv(x))
    return Net()


def _up_ms(correct: bool):
    import mindspore.mint.nn.functional as MF
    import mindspore.nn as mnn

    class TorchScaleNearest(mnn.Cell):
        def construct(self, x):
            return MF.interpolate(x, scale_factor=0.7, mode="nearest")

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mnn.Conv2d(2, 3, 1, has_bias=True)
            self.up = (TorchScaleNearest() if correct
                       else mnn.Upsample(scale_factor=0.7, mode="nearest", recompute_scale_factor=True))

        def construct(self, x):
            return self.up(self.conv(x))
    return Net()


ENTRIES += [
    entry("h17a_graph_euler_step_index_add_alpha_dropped_in_ops_index_add", "h17",
          "probe:Tensor.index_add(dim, index, source, alpha=) vs ops.index_add(x, indices, y, axis) (no alpha)",
          _ia_torch, lambda: _ia_ms(False), lambda: _ia_ms(True), ("after:msg",), ("alpha|index_add",),
          inputs={"x": uniform(6, 4), "nodes": uniform(3, 4), "dst": given([0, 2, 1, 0, 2, 2], dtype="int64")},
          cause_pattern=r"\balpha\b[^.]*\b(0?\.1|dropped|missing|ignored|lost|scal\w*)\b"
                        r"|\b(scal\w*|multipl\w*)\b[^.]*\b(by\s+)?0?\.1\b"),
    entry("h17a_upsample_fractional_scale_nearest_recompute_scale_factor", "h17", "Upsample",
          _up_torch, lambda: _up_ms(False), lambda: _up_ms(True), ("up",), ("recompute_scale_factor|scale_factor",),
          inputs={"x": uniform(1, 2, 9, 9)},
          cause_pattern=r"\brecompute_scale_factor\b|\bscale_factor\b[^.]*\b(recomput\w*|coordinates?|1\s*/\s*0\.7)\b"
                        r"|\bmint\.nn\.functional\.interpolate\b"),
]


# --------------------------------------------------------------------------------------------------------------
# 9. functional: torch.xlogy(p, p) for the entropy of a masked softmax (exact zeros) -> ops.xlogy (0 * log 0 = nan)
# --------------------------------------------------------------------------------------------------------------

def _xl_torch():
    import torch
    import torch.nn as tnn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.score = tnn.Linear(5, 6)

        def forward(self, x, keep):
            s = self.score(x).masked_fill(~keep, float("-inf"))
            p = torch.softmax(s, -1)
            return torch.cat([p, -torch.xlogy(p, p).sum(-1, keepdim=True)], -1)
    return Net()


def _xl_ms(correct: bool):
    import mindspore.nn as mnn
    import mindspore.ops as ops

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.score = mnn.Dense(5, 6)

        def construct(self, x, keep):
            s = ops.masked_fill(self.score(x), ~keep, float("-inf"))
            p = ops.softmax(s, -1)
            if correct:
                plogp = ops.where(p > 0, p * ops.log(ops.where(p > 0, p, ops.ones_like(p))), ops.zeros_like(p))
            else:
                plogp = ops.xlogy(p, p)
            return ops.cat([p, -plogp.sum(-1, keepdims=True)], -1)
    return Net()


_KEEP = [[True, False, True, True, False, True], [False, True, True, False, True, True],
         [True, True, False, True, True, False], [True, False, False, True, True, True]]


# --------------------------------------------------------------------------------------------------------------
# 10. functional: volumetric grid_sample(mode="nearest") at half-voxel sample points (rounding of ties)
# --------------------------------------------------------------------------------------------------------------

def _gs3_torch():
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = tnn.Conv3d(2, 3, 1)

        def forward(self, x, grid):
            return F.grid_sample(torch.relu(self.proj(x)), grid, mode="nearest", padding_mode="border",
                                 align_corners=False)
    return Net()


def _gs3_ms(correct: bool):
    import mindspore as ms
    import mindspore.nn as mnn
    import mindspore.ops as ops

    def nearest3d(v, grid):
        n, c, d, h, w = v.shape
        od, oh, ow = grid.shape[1], grid.shape[2], grid.shape[3]

        def index(g, size):   # unnormalize (align_corners=False), border clamp, round half to even
            return ops.round(ops.clamp(((g + 1.0) * size - 1.0) / 2.0, 0.0, size - 1.0))
        ix, iy, iz = index(grid[..., 0], w), index(grid[..., 1], h), index(grid[..., 2], d)
        flat = ((iz * h + iy) * w + ix).astype(ms.int32).reshape(n, 1, od * oh * ow)
        flat = ops.broadcast_to(flat, (n, c, od * oh * ow))
        return ops.gather_elements(v.reshape(n, c, d * h * w), 2, flat).reshape(n, c, od, oh, ow)

    class Net(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = mnn.Conv3d(2, 3, 1, has_bias=True)

        def construct(self, x, grid):
            v = ops.relu(self.proj(x))
            if correct:
                return nearest3d(v, grid)
            return ops.grid_sample(v, grid, mode="nearest", padding_mode="border", align_corners=False)
    return Net()


def _half_voxel_grid() -> list:
    """Sample points on the 4x4x4 volume at voxel-centre midpoints (x.5 in voxel units): (k + 0.5) voxels."""
    rs = np.random.RandomState(17)
    k = rs.randint(0, 3, size=(2, 2, 3, 3, 3))           # tie between voxel k and k + 1
    unnorm = k + 0.5
    return ((2.0 * unnorm + 1.0) / 4.0 - 1.0).astype(np.float32).tolist()


ENTRIES += [
    entry("h17a_masked_attention_entropy_xlogy_zero_probability_nan", "h17",
          "probe:torch.xlogy(0, 0) == 0 vs ops.xlogy(0, 0) == nan",
          _xl_torch, lambda: _xl_ms(False), lambda: _xl_ms(True), ("after:score",), ("xlogy|zero|nan",),
          inputs={"x": uniform(4, 5), "keep": given(_KEEP)},
          fails_with="nonfinite",
          cause_pattern=r"\bxlogy\b[^.]*\b(0|zero|zeros|nan)\b|\b(0|zero)\s*\*\s*log\s*\(?\s*0\b"
                        r"|\b(0|zero|zeros|nan)\b[^.]*\bxlogy\b"),
    entry("h17a_volumetric_grid_sample_nearest_half_voxel_tie_rounding", "h17",
          "probe:F.grid_sample(mode='nearest') on 5-D input at half-voxel points vs ops.grid_sample",
          _gs3_torch, lambda: _gs3_ms(False), lambda: _gs3_ms(True), ("after:proj",), ("nearest|round|tie",),
          inputs={"x": uniform(2, 2, 4, 4, 4), "grid": given(_half_voxel_grid(), dtype="float32")},
          cause_pattern=r"\b(round\w*|rint|nearbyint)\b[^.]*\b(half|ties?|even|halfway|0?\.5)\b"
                        r"|\bhalf[- ]to[- ]even\b"
                        r"|\b(ties?|halfway|half-voxel|half-pixel)\b[^.]*\b(round\w*|nearest)\b"),
]
