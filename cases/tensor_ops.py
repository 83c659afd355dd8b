"""Tensor functions: reductions, indexing, sorting and rounding, torch.* vs mindspore.ops."""
import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn

from migcheck import PairedCase, given, integers, mask, uniform


class CumsumPt(tnn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=1)


class CumsumMs(mnn.Cell):
    def construct(self, x):
        return ops.cumsum(x, axis=1)


cumsum = PairedCase(
    doc="torch.cumsum(dim=1) is ops.cumsum(axis=1)",
    torch=CumsumPt, mindspore=CumsumMs, inputs={"x": uniform(2, 6, 3)}, tags=("ops",),
)


class ArgmaxPt(tnn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1)


class ArgmaxMs(mnn.Cell):
    def construct(self, x):
        return ops.argmax(x, dim=-1)


argmax = PairedCase(
    doc="argmax over the last axis: integer output compared exactly; forward only (nothing to differentiate)",
    torch=ArgmaxPt, mindspore=ArgmaxMs, inputs={"x": uniform(2, 4, 6)},
    checks=("forward",), tags=("ops", "integer"),
)


class TopkPt(tnn.Module):
    def forward(self, x):
        values, indices = torch.topk(x, 3, dim=-1)
        return values, indices


class TopkMs(mnn.Cell):
    def construct(self, x):
        values, indices = ops.topk(x, 3, dim=-1)
        return values, indices


topk = PairedCase(
    doc="topk(3) values and indices: MindSpore's indices are int32 (torch int64); values carry the gradient",
    torch=TopkPt, mindspore=TopkMs, inputs={"x": uniform(2, 4, 6)}, tags=("ops", "integer"),
)


class GatherPt(tnn.Module):
    def forward(self, x, index):
        return torch.gather(x, 1, index)


class GatherMs(mnn.Cell):
    def construct(self, x, index):
        return ops.gather_elements(x, 1, index)


gather_elements = PairedCase(
    doc="torch.gather(x, dim, index) is ops.gather_elements (ops.gather is index_select-like)",
    torch=GatherPt, mindspore=GatherMs,
    inputs={"x": uniform(2, 5, 3), "index": integers(2, 4, 3, high=5)}, tags=("ops", "indexing"),
)


class IndexSelectPt(tnn.Module):
    def forward(self, x, index):
        return torch.index_select(x, 1, index)


class IndexSelectMs(mnn.Cell):
    def construct(self, x, index):
        return ops.gather(x, index, 1)


index_select = PairedCase(
    doc="torch.index_select(x, 1, idx) is ops.gather(x, idx, axis=1), with repeated indices",
    torch=IndexSelectPt, mindspore=IndexSelectMs,
    inputs={"x": uniform(2, 5, 3), "index": given(np.array([4, 0, 4, 2], np.int64))}, tags=("ops", "indexing"),
)


class RoundPt(tnn.Module):
    def forward(self, x):
        return torch.round(x)


class RoundMs(mnn.Cell):
    def construct(self, x):
        return ops.round(x)


round_half_even = PairedCase(
    doc="round: both round halves to even (0.5 -> 0, 2.5 -> 2, -1.5 -> -2); zero gradient on both sides",
    torch=RoundPt, mindspore=RoundMs,
    inputs={"x": given(np.array([[0.5, 1.5, 2.5, -0.5, -1.5, -2.5], [0.49, 0.51, 3.5, -3.5, 1.2, -0.7]], np.float32))},
    checks=("forward", "backward"), tags=("ops",),
)


class VariancePt(tnn.Module):
    def forward(self, x):
        return torch.var(x, dim=-1), torch.std(x, dim=-1)


class VarianceMs(mnn.Cell):
    def __init__(self, ddof=1):
        super().__init__()
        self.ddof = ddof

    def construct(self, x):
        return ops.var(x, axis=-1, ddof=self.ddof), ops.std(x, axis=-1, ddof=self.ddof)


variance_unbiased = PairedCase(
    doc="torch.var/std are unbiased by default: ops.var/std need ddof=1 (their default is ddof=0)",
    torch=VariancePt, mindspore=VarianceMs, inputs={"x": uniform(2, 3, 6)}, tags=("ops", "reduction"),
)

variance_default_ddof = PairedCase(
    doc="known-bad: ops.var/ops.std left at ddof=0 (population) against torch's unbiased var/std",
    torch=VariancePt, mindspore=lambda: VarianceMs(ddof=0), inputs={"x": uniform(2, 3, 6)},
    checks=("forward", "backward"), expect="fail", fails_with="value", tags=("ops", "reduction", "known-bad"),
)


class MaskedFillPt(tnn.Module):
    def forward(self, x, keep):
        scores = x.masked_fill(~keep, -1e4)
        return torch.softmax(scores, dim=-1)


class MaskedFillMs(mnn.Cell):
    def construct(self, x, keep):
        scores = ops.masked_fill(x, ops.logical_not(keep), -1e4)
        return ops.softmax(scores, axis=-1)


masked_fill_softmax = PairedCase(
    doc="attention-style masking: masked_fill with a boolean mask, then softmax over the last axis",
    torch=MaskedFillPt, mindspore=MaskedFillMs,
    inputs={"x": uniform(2, 3, 6), "keep": mask(2, 3, 6, p=0.7)}, tags=("ops", "mask"),
)


class BmmPermutePt(tnn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b.permute(0, 2, 1)).reshape(2, -1)


class BmmPermuteMs(mnn.Cell):
    def construct(self, a, b):
        return ops.bmm(a, ops.transpose(b, (0, 2, 1))).reshape(2, -1)


bmm_permute = PairedCase(
    doc="bmm with permute(0, 2, 1) as ops.transpose(b, (0, 2, 1)) and a reshape with -1",
    torch=BmmPermutePt, mindspore=BmmPermuteMs,
    inputs={"a": uniform(2, 3, 4), "b": uniform(2, 5, 4)}, tags=("ops", "matmul"),
)


class ClampWherePt(tnn.Module):
    def forward(self, x):
        return torch.where(x > 0, torch.clamp(x, max=0.5), x * 0.1)


class ClampWhereMs(mnn.Cell):
    def construct(self, x):
        return ops.where(x > 0, ops.clamp(x, max=0.5), x * 0.1)


clamp_where = PairedCase(
    doc="torch.clamp(max=) and torch.where vs ops.clamp and ops.where; gradient is zero above the clamp",
    torch=ClampWherePt, mindspore=ClampWhereMs, inputs={"x": uniform(2, 8)}, tags=("ops",),
)


class SortPt(tnn.Module):
    def forward(self, x):
        values, indices = torch.sort(x, dim=1, descending=True)
        return values, indices


class SortMs(mnn.Cell):
    def construct(self, x):
        values, indices = ops.sort(x, axis=1, descending=True)
        return values, indices.astype(ms.int64)


sort_descending = PairedCase(
    doc="descending sort along dim 1: values differentiable, indices cast to int64 as torch returns",
    torch=SortPt, mindspore=SortMs, inputs={"x": uniform(2, 6, 3)}, tags=("ops", "integer"),
)
