"""Held-out set 21, half b: single-API entries (a fused-activation kernel, two gradient-only entries, two functional
ops). The recommendation / graph / tabular / LLM model blocks are in heldout21_b_ports.py.

Written blind: without reading migcheck's localization, mapping, judging or running code.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

import mindspore as ms
import mindspore.nn as mnn
from mindspore import Tensor, ops

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

FAMILY = "h21"


# --- 1. Phi-3 style fused gate_up MLP: ops.swiglu has no CPU kernel (error) ------------------------------------------

class FusedGateUpMlpPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.gate_up_proj = tnn.Linear(8, 24, bias=False)
        self.down_proj = tnn.Linear(12, 8, bias=False)

    def forward(self, x):
        gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        return self.down_proj(up * F.silu(gate))


class FusedGateUpMlpMs(mnn.Cell):
    def __init__(self, fused_kernel):
        super().__init__()
        self.fused_kernel = fused_kernel
        self.gate_up_proj = mnn.Dense(8, 24, has_bias=False)
        self.down_proj = mnn.Dense(12, 8, has_bias=False)

    def construct(self, x):
        h = self.gate_up_proj(x)
        if self.fused_kernel:
            act = ops.swiglu(h, -1)
        else:
            gate, up = ops.chunk(h, 2, -1)
            act = up * ops.silu(gate)
        return self.down_proj(act)


# --- 2. BPR ranking loss: the nn.LogSigmoid cell's backward underflows for badly ranked pairs (gradient only) -----

class BprLossPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.act = tnn.LogSigmoid()

    def forward(self, pos_score, neg_score):
        return -self.act(pos_score - neg_score)


class BprLossMs(mnn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.use_cell = cell
        self.act = mnn.LogSigmoid()

    def construct(self, pos_score, neg_score):
        diff = pos_score - neg_score
        if self.use_cell:
            return -self.act(diff)
        return -ops.logsigmoid(diff)


# --- 3. Two-tower retrieval: F.normalize of a user tower whose history is empty (zero rows; gradient only) -------

_HIST = np.array([[0.4, -0.2, 0.9, 0.1, -0.7, 0.3],
                  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                  [-0.5, 0.8, 0.2, -0.1, 0.6, -0.4],
                  [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                  [0.3, 0.1, -0.6, 0.7, 0.2, 0.5]], dtype=np.float32)


class UserTowerPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.user_proj = tnn.Linear(6, 4, bias=False)

    def forward(self, history, item):
        user = F.normalize(self.user_proj(history), dim=-1)
        return (user * item).sum(-1)


class UserTowerMs(mnn.Cell):
    def __init__(self, via_norm):
        super().__init__()
        self.via_norm = via_norm
        self.user_proj = mnn.Dense(6, 4, has_bias=False)

    def construct(self, history, item):
        user = self.user_proj(history)
        if self.via_norm:
            user = user / ops.clamp(user.norm(dim=-1, keepdim=True), min=1e-12)
        else:
            user = user * ops.rsqrt(ops.maximum((user * user).sum(-1, keepdims=True), 1e-24))
        return (user * item).sum(-1)


# --- 4. GNN multiplicative aggregation: empty segments of ops.unsorted_segment_prod hold 1 ------------------------

_SRC = np.array([0, 1, 2, 3, 0, 2], dtype=np.int64)
_DST = np.array([1, 0, 1, 2, 2, 0], dtype=np.int64)  # nodes 3 and 4 receive no message


class MulAggregationPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.lin = tnn.Linear(4, 4)

    def forward(self, x, src, dst):
        msg = self.lin(x)[src]
        out = torch.zeros(x.shape[0], msg.shape[1], dtype=msg.dtype)
        return out.scatter_reduce(0, dst[:, None].expand(-1, msg.shape[1]), msg, "prod", include_self=False)


class MulAggregationMs(mnn.Cell):
    def __init__(self, masked):
        super().__init__()
        self.masked = masked
        self.lin = mnn.Dense(4, 4)

    def construct(self, x, src, dst):
        msg = ops.gather(self.lin(x), src, 0)
        seg = dst.astype(ms.int32)
        n = x.shape[0]
        out = ops.unsorted_segment_prod(msg, seg, n)
        if self.masked:
            count = ops.unsorted_segment_sum(ops.ones((msg.shape[0], 1), ms.float32), seg, n)
            out = ops.where(count > 0, out, ops.zeros_like(out))
        return out


# --- 5. Numeric-feature RBF expansion: centres from a float-step arange ------------------------------------------

class RbfExpansionPt(tnn.Module):
    def __init__(self):
        super().__init__()
        self.proj = tnn.Linear(3, 1)

    def forward(self, x):
        centres = torch.arange(0.0, 2.1, 0.7)
        return torch.exp(-(self.proj(x) - centres) ** 2 / 0.5)


class RbfExpansionMs(mnn.Cell):
    def __init__(self, ops_arange):
        super().__init__()
        self.ops_arange = ops_arange
        self.proj = mnn.Dense(3, 1)

    def construct(self, x):
        if self.ops_arange:
            centres = ops.arange(0.0, 2.1, 0.7)
        else:
            centres = Tensor(np.arange(0.0, 2.1, 0.7), ms.float32)
        return ops.exp(-(self.proj(x) - centres) ** 2 / 0.5)


def _grad_only(e):
    """The naive port's forward agrees; only its backward is expected to fail."""
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


ENTRIES = [
    entry("h21b_phi3_mlp_fused_gate_up_ops_swiglu_no_cpu_kernel_raises", FAMILY,
          "probe:mindspore.ops.swiglu on CPU (kernel Swiglu unregistered)",
          FusedGateUpMlpPt, lambda: FusedGateUpMlpMs(True), lambda: FusedGateUpMlpMs(False),
          ("after:gate_up_proj",), ("swiglu|no CPU kernel|chunk then silu",),
          inputs={"x": uniform(2, 3, 8)}, fails_with="error",
          cause_pattern=r"\bswiglu\b(?:[^.]|\.(?=\w))*\b(cpu|kernel|unregistered|unsupported|not supported|not available)\b"
                        r"|\b(cpu|kernel)\b(?:[^.]|\.(?=\w))*\bswiglu\b"
                        r"|\b(chunk|split)\b(?:[^.]|\.(?=\w))*\bsilu\b|\bsilu\b(?:[^.]|\.(?=\w))*\b(chunk|split)\b"),
    _grad_only(entry("h21b_bpr_loss_logsigmoid_cell_backward_badly_ranked_pairs", FAMILY,
          "probe:mindspore.nn.LogSigmoid backward for inputs between -88 and -50",
          BprLossPt, lambda: BprLossMs(True), lambda: BprLossMs(False),
          ("act",), ("LogSigmoid cell|backward|gradient|ops.logsigmoid",),
          inputs={"pos_score": uniform(16, low=-42.0, high=-28.0), "neg_score": uniform(16, low=28.0, high=42.0)},
          checks=("forward", "backward"),
          cause_pattern=r"\bLogSigmoid\b(?:[^.]|\.(?=\w))*\b(backward|gradients?|grad|bprop|underflow\w*)\b"
                        r"|\b(backward|gradients?|grad|bprop)\b(?:[^.]|\.(?=\w))*\bLogSigmoid\b"
                        r"|\bops\.logsigmoid\b|\bsoftplus\b")),
    _grad_only(entry("h21b_two_tower_user_normalize_tensor_norm_empty_history_gradient", FAMILY,
          "probe:mindspore Tensor.norm backward at an all-zero row (F.normalize of an empty-history user)",
          UserTowerPt, lambda: UserTowerMs(True), lambda: UserTowerMs(False),
          ("after:user_proj",), ("norm|zero row|gradient|L2Normalize",),
          inputs={"history": given(_HIST), "item": uniform(5, 4)},
          checks=("forward", "backward"), fails_with="nonfinite",
          cause_pattern=r"\bL2Normalize\b|\bl2_normalize\b"
                        r"|\bnorm\b(?:[^.]|\.(?=\w))*\b(zero|all-zero|0)\b(?:[^.]|\.(?=\w))*\b(nan|gradients?|backward|grad)\b"
                        r"|\b(nan|gradients?|backward|grad)\b(?:[^.]|\.(?=\w))*\b(zero|all-zero)\b(?:[^.]|\.(?=\w))*\bnorm\b")),
    entry("h21b_graph_mul_aggregation_segment_prod_isolated_node_one", FAMILY,
          "probe:mindspore.ops.unsorted_segment_prod empty segments vs torch scatter_reduce prod include_self=False",
          MulAggregationPt, lambda: MulAggregationMs(False), lambda: MulAggregationMs(True),
          ("after:lin",), ("unsorted_segment_prod|empty segment|isolated node|1 instead of 0",),
          inputs={"x": uniform(5, 4), "src": given(_SRC), "dst": given(_DST)},
          cause_pattern=r"\b(unsorted_)?segment_prod\b(?:[^.]|\.(?=\w))*\b(empty|isolated|1|one|identity|0|zero)\b"
                        r"|\b(empty|isolated)\b(?:[^.]|\.(?=\w))*\b(unsorted_)?segment_prod\b|\binclude_self\b"),
    entry("h21b_functional_rbf_centres_ops_arange_float_step_length", FAMILY,
          "probe:mindspore.ops.arange(0.0, 2.1, 0.7) length vs torch.arange",
          RbfExpansionPt, lambda: RbfExpansionMs(True), lambda: RbfExpansionMs(False),
          ("after:proj",), ("arange|float step|length|element count",),
          inputs={"x": uniform(4, 3)}, fails_with="shape",
          cause_pattern=r"\barange\b(?:[^.]|\.(?=\w))*\b(length|size|elements?|count|float32|float64|double|round\w*|end|3|4)\b"
                        r"|\blinspace\b"),
]
