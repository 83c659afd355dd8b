"""Normalization layers: BatchNorm in eval and train, LayerNorm axes and epsilon, GroupNorm."""
import mindspore.nn as mnn
import mindspore.ops as ops
import torch.nn as tnn

import numpy as np

from migcheck import PairedCase, given, uniform


batchnorm2d = PairedCase(
    doc="BatchNorm2d eval and train: torch momentum 0.1 is MindSpore momentum 0.9; running stats map to moving_*",
    torch=lambda: tnn.BatchNorm2d(4),
    mindspore=lambda: mnn.BatchNorm2d(4, momentum=0.9),
    inputs={"x": uniform(2, 4, 5, 5)},
    tags=("batchnorm",),
)

batchnorm1d_sequence = PairedCase(
    doc="BatchNorm1d on a (batch, channels, length) input, with torch's eps=1e-3 and momentum=0.3 (MindSpore 0.7)",
    torch=lambda: tnn.BatchNorm1d(4, eps=1e-3, momentum=0.3),
    mindspore=lambda: mnn.BatchNorm1d(4, eps=1e-3, momentum=0.7),
    inputs={"x": uniform(2, 4, 6)},
    tags=("batchnorm",),
)

batchnorm_always_batch_stats = PairedCase(
    doc="known-bad: use_batch_statistics=True normalises with batch statistics in eval too; torch uses running stats",
    torch=lambda: tnn.BatchNorm2d(4),
    mindspore=lambda: mnn.BatchNorm2d(4, momentum=0.9, use_batch_statistics=True),
    inputs={"x": uniform(2, 4, 5, 5)},
    expect="fail", fails_with="value", fails_on=("forward", "backward"),
    tags=("batchnorm", "known-bad"),
)

layernorm_last = PairedCase(
    doc="LayerNorm(6) as LayerNorm((6,), epsilon=1e-5): MindSpore's default epsilon is 1e-7; weight/bias -> gamma/beta",
    torch=lambda: tnn.LayerNorm(6),
    mindspore=lambda: mnn.LayerNorm((6,), begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5),
    inputs={"x": uniform(2, 5, 6)},
    tags=("layernorm",),
)

layernorm_two_axes = PairedCase(
    doc="LayerNorm((4, 5)) on a 4-D input: begin_norm_axis=begin_params_axis=2 (the primitive rejects -2: range [-1, rank))",
    torch=lambda: tnn.LayerNorm((4, 5)),
    mindspore=lambda: mnn.LayerNorm((4, 5), begin_norm_axis=2, begin_params_axis=2, epsilon=1e-5),
    inputs={"x": uniform(2, 3, 4, 5)},
    tags=("layernorm",),
)

layernorm_two_axes_not_ported = PairedCase(
    doc="known-bad: LayerNorm((4, 5)) ported without begin_norm_axis/begin_params_axis: MindSpore normalizes from"
        " the last axis and its gamma (4, 5) no longer fits, so it raises; localized to the sub-cell, fix re-run",
    torch=lambda: tnn.LayerNorm((4, 5)),
    mindspore=lambda: mnn.LayerNorm((4, 5), epsilon=1e-5),
    inputs={"x": uniform(2, 3, 4, 5)}, checks=("forward",),
    expect="fail", fails_with="error", diagnosis="layernorm-axes", tags=("layernorm", "known-bad"),
)

layernorm_default_epsilon = PairedCase(
    doc="known-bad: LayerNorm left at MindSpore's epsilon 1e-7 (torch 1e-5); inputs with variance ~1e-6 expose it",
    torch=lambda: tnn.LayerNorm(6),
    mindspore=lambda: mnn.LayerNorm((6,), begin_norm_axis=-1, begin_params_axis=-1),
    inputs={"x": uniform(2, 5, 6, low=-2e-3, high=2e-3)},
    expect="fail", fails_with="value", diagnosis="layernorm-eps",
    tags=("layernorm", "known-bad"),
)


class NoAffineLayerNormMs(mnn.Cell):
    """torch's elementwise_affine=False, written out: ops.layer_norm (LayerNormExt) has no CPU kernel in 2.10."""

    def construct(self, x):
        mean = ops.mean(x, axis=-1, keep_dims=True)
        var = ops.mean(ops.square(x - mean), axis=-1, keep_dims=True)  # biased, as torch's LayerNorm
        return (x - mean) * ops.rsqrt(var + 1e-5)


layernorm_no_affine = PairedCase(
    doc="LayerNorm(elementwise_affine=False) written out with a biased variance (nn.LayerNorm always has gamma/beta)",
    torch=lambda: tnn.LayerNorm(6, elementwise_affine=False),
    mindspore=NoAffineLayerNormMs,
    inputs={"x": uniform(2, 5, 6)},
    tags=("layernorm",),
)

groupnorm = PairedCase(
    doc="GroupNorm(2 groups, 6 channels): weight/bias -> gamma/beta, eps 1e-5 on both sides",
    torch=lambda: tnn.GroupNorm(2, 6),
    mindspore=lambda: mnn.GroupNorm(2, 6),
    inputs={"x": uniform(2, 6, 4, 4)},
    tags=("groupnorm",),
)

# A nearly constant row (variance ~1e-8): LayerNorm divides float32 rounding noise by a tiny standard
# deviation, so torch's own float32 result is ~1e-3 off the exact one (and its input gradient ~1e-2).
# The correct port passes because such failures are re-judged against a float64 re-run of torch
# (migcheck.judging.conditioning); a real epsilon difference still fails, far beyond torch's own error.
_NEAR_CONSTANT = (100.0 + 1e-4 * np.random.default_rng(1).standard_normal((4, 64))).astype(np.float32)

layernorm_near_constant_rows = PairedCase(
    doc="LayerNorm of nearly constant rows: float32 cannot resolve it at the default tolerance; torch's own error"
        " against float64 is the yardstick",
    torch=lambda: tnn.LayerNorm(64), mindspore=lambda: mnn.LayerNorm((64,), epsilon=1e-5),
    inputs={"x": given(_NEAR_CONSTANT)}, checks=("forward", "backward"), tags=("layernorm", "conditioning"),
)

layernorm_near_constant_rows_epsilon = PairedCase(
    doc="known-bad: the same ill-conditioned input with epsilon=1e-3: 26x torch's own error, still a failure",
    torch=lambda: tnn.LayerNorm(64), mindspore=lambda: mnn.LayerNorm((64,), epsilon=1e-3),
    inputs={"x": given(_NEAR_CONSTANT)}, checks=("forward", "backward"), expect="fail", fails_with="value",
    tags=("layernorm", "conditioning", "known-bad"),
)
