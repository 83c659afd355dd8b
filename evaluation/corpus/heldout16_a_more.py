"""Held-out set 16, half a (continued): layers and losses inside small nets, gradient-only entries, the optimizer."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from migcheck.specs import given, uniform

PROBE = "probe:"

_MASKED_INF = r"(-\s?inf\b|\binf(inity)?\b|-?\b1e9\b|\bfinite\b)"

# ---------------------------------------------------------------------------------------------------------
# 5. An embedding whose padding row is the last one, named with a negative index.
def _emb_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(10, 6, padding_idx=-1)
            self.out = torch.nn.Linear(6, 3)

        def forward(self, ids):
            return self.out(self.emb(ids).mean(dim=1))

    return Net()


def _emb_ms(fixed):
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6, padding_idx=9 if fixed else -1)
            self.out = nn.Dense(6, 3)

        def construct(self, ids):
            return self.out(self.emb(ids).mean(axis=1))

    return Net()


_EMB_IDS = np.array([[1, 4, 9, 9], [2, 3, 5, 9], [0, 7, 8, 6]], dtype=np.int32)


# ---------------------------------------------------------------------------------------------------------
# 6. Averaged SGD built with the optimizer's own defaults.
def _asgd_net_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(5, 8)
            self.fc2 = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(torch.tanh(self.fc1(x)))

    return Net()


def _asgd_net_ms():
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(5, 8)
            self.fc2 = nn.Dense(8, 2)

        def construct(self, x):
            return self.fc2(ops.tanh(self.fc1(x)))

    return Net()


def _asgd_pair(fixed):
    from migcheck import FrameworkPair

    def torch_opt(params):
        import torch

        return torch.optim.ASGD(params)

    def ms_opt(params):
        from mindspore import nn

        return nn.ASGD(params, learning_rate=0.01) if fixed else nn.ASGD(params)

    return FrameworkPair(torch=torch_opt, mindspore=ms_opt)


def _mse_pair():
    from migcheck import FrameworkPair

    def torch_loss():
        import torch

        return torch.nn.MSELoss()

    def ms_loss():
        from mindspore import nn

        return nn.MSELoss()

    return FrameworkPair(torch=torch_loss, mindspore=ms_loss)




def _optimizer_entry():
    import dataclasses

    e = entry("h16a_asgd_default_learning_rate", "h16", PROBE + "torch.optim.ASGD vs nn.ASGD defaults",
              _asgd_net_torch, _asgd_net_ms, _asgd_net_ms, ("optimizer",), ("learning_rate|lr|0.01|ASGD",),
              inputs={"x": uniform(6, 5), "y": uniform(6, 2)}, targets=("y",), loss=_mse_pair(),
              optimizer=_asgd_pair(True), steps=2, checks=("step",),
              cause_pattern=r"\b(learning_rate|lr)\b[^.]*\b0?\.01\b|\b0?\.01\b[^.]*\b(learning_rate|lr)\b|\b(learning_rate|lr)\b[^.]*\b0?\.1\b")
    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, optimizer=_asgd_pair(False)))



# ---------------------------------------------------------------------------------------------------------
# 7. A sub-cell offset taken by casting coordinates to an integer (keypoint/grid decoding).
def _offset_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.coord = torch.nn.Linear(5, 4)
            self.head = torch.nn.Linear(8, 3)

        def forward(self, x):
            c = 4.0 * self.coord(x)                 # coordinates in cells
            cell = c.long()                         # integer cell index
            offset = c - cell.float()               # position inside the cell
            return self.head(torch.cat([offset, cell.float() * 0.25], dim=-1))

    return Net()


def _offset_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.coord = nn.Dense(5, 4)
            self.head = nn.Dense(8, 3)

        def construct(self, x):
            c = 4.0 * self.coord(x)
            cell = c.astype(ms.int64)
            if fixed:
                cell = ops.stop_gradient(cell)
            offset = c - cell.astype(ms.float32)
            return self.head(ops.cat([offset, cell.astype(ms.float32) * 0.25], axis=-1))

    return Net()


# ---------------------------------------------------------------------------------------------------------
# 8. A frame-validity mask taken from the features themselves with a bool cast (masked mean pooling).
_FRAMES_IN = np.random.RandomState(16).uniform(-1.0, 1.0, size=(3, 6, 4)).astype(np.float32)
_FRAMES_IN[0, 4:] = 0.0
_FRAMES_IN[1, 2:] = 0.0


def _pool_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(4, 5)
            self.cls = torch.nn.Linear(5, 2)

        def forward(self, feats):
            valid = feats.abs().sum(dim=-1).bool().float()            # (B, L): 1 for real frames
            h = torch.tanh(self.enc(feats)) * valid.unsqueeze(-1)
            pooled = h.sum(dim=1) / valid.sum(dim=1, keepdim=True)
            return self.cls(pooled)

    return Net()


def _pool_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(4, 5)
            self.cls = nn.Dense(5, 2)

        def construct(self, feats):
            valid = feats.abs().sum(axis=-1).astype(ms.bool_)
            if fixed:
                valid = ops.stop_gradient(valid)
            valid = valid.astype(ms.float32)
            h = ops.tanh(self.enc(feats)) * valid.unsqueeze(-1)
            pooled = h.sum(axis=1) / valid.sum(axis=1, keepdims=True)
            return self.cls(pooled)

    return Net()


# ---------------------------------------------------------------------------------------------------------
# 9. Cross-entropy over logits whose invalid classes (actions, vocabulary entries) are masked with -inf.
_ALLOWED = np.array([[1, 0, 1, 1, 0], [1, 1, 0, 1, 1], [0, 1, 1, 0, 1], [1, 1, 1, 1, 0], [0, 0, 1, 1, 1],
                     [1, 0, 0, 1, 1]], dtype=bool)
_TARGET = np.array([0, 4, 2, 1, 3, 0], dtype=np.int64)


def _masked_ce_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = torch.nn.Linear(6, 5)
            self.loss = torch.nn.CrossEntropyLoss()

        def forward(self, x, allowed, target):
            logits = self.policy(x).masked_fill(~allowed, float("-inf"))
            return self.loss(logits, target)

    return Net()


def _masked_ce_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.policy = nn.Dense(6, 5)
            self.loss = nn.CrossEntropyLoss()

        def construct(self, x, allowed, target):
            if fixed:
                logits = ops.masked_fill(self.policy(x), ~allowed, -1e9)
            else:
                logits = ops.masked_fill(self.policy(x), ~allowed, float("-inf"))
            return self.loss(logits, target.astype(ms.int32))

    return Net()


# ---------------------------------------------------------------------------------------------------------
# 11. A pointer network choosing among padded candidate slots: padded slots get -inf scores, the NLL loss cell.
_SLOTS = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=bool)
_CHOICE = np.array([2, 4, 0, 3], dtype=np.int64)


def _pointer_torch():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.query = torch.nn.Linear(3, 4)
            self.key = torch.nn.Linear(3, 4)
            self.loss = torch.nn.NLLLoss()

        def forward(self, cands, slots, choice):
            q = self.query(cands.mean(dim=1, keepdim=True))              # (B, 1, 4)
            scores = (q * self.key(cands)).sum(-1)                        # (B, S)
            scores = scores.masked_fill(~slots, float("-inf"))
            return self.loss(torch.log_softmax(scores, dim=-1), choice)

    return Net()


def _pointer_ms(fixed):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.query = nn.Dense(3, 4)
            self.key = nn.Dense(3, 4)
            self.loss = nn.NLLLoss()

        def construct(self, cands, slots, choice):
            q = self.query(cands.mean(axis=1, keep_dims=True))
            scores = (q * self.key(cands)).sum(-1)
            scores = ops.masked_fill(scores, ~slots, -1e9 if fixed else float("-inf"))
            return self.loss(ops.log_softmax(scores, axis=-1), choice.astype(ms.int32))

    return Net()


def _grad_only(e):
    """The naive port computes the same forward; it fails on the backward check only."""
    import dataclasses

    return dataclasses.replace(e, naive=dataclasses.replace(e.naive, fails_on=("backward",)))


_CAST_PATTERN = (r"\b(cast|astype|int64|int32|integer|bool|long)\b[^.]*\b(stop_gradient|gradient|grad|differentiable|detach)"
                 r"|\b(stop_gradient|gradient|grad|detach)\b[^.]*\b(cast|astype|int64|int32|integer|bool|long)\b")

ENTRIES = [
    entry("h16a_embedding_last_row_negative_padding_idx_raises", "h16", PROBE + "nn.Embedding padding_idx=-1",
          _emb_torch, lambda: _emb_ms(False), lambda: _emb_ms(True),
          ("emb",), ("padding_idx|negative|Embedding",),
          inputs={"ids": given(_EMB_IDS)}, fails_with="error",
          cause_pattern=r"\bpadding_idx\b[^.]*(-\s?1\b|\bnegative\b|\b9\b|num_embeddings|vocab)|\b(negative|-1)\b[^.]*\bpadding_idx\b"),
    _optimizer_entry(),
    entry("h16a_action_masked_logits_cross_entropy_loss_neg_inf_nan", "h16", PROBE + "nn.CrossEntropyLoss with -inf logits",
          _masked_ce_torch, lambda: _masked_ce_ms(False), lambda: _masked_ce_ms(True),
          ("loss",), ("CrossEntropyLoss|-inf|NaN|mask",),
          inputs={"x": uniform(6, 6), "allowed": given(_ALLOWED), "target": given(_TARGET)}, fails_with="nonfinite",
          cause_pattern=r"\bcross_?entropy(_?loss)?\b[^.]*" + _MASKED_INF + r"|" + _MASKED_INF + r"[^.]*\bcross_?entropy(_?loss)?\b"),
    entry("h16a_pointer_padded_slots_nllloss_neg_inf_log_probs_nan", "h16", PROBE + "nn.NLLLoss with -inf log-probabilities",
          _pointer_torch, lambda: _pointer_ms(False), lambda: _pointer_ms(True),
          ("loss",), ("NLLLoss|-inf|NaN|mask",),
          inputs={"cands": uniform(4, 5, 3), "slots": given(_SLOTS), "choice": given(_CHOICE)}, fails_with="nonfinite",
          cause_pattern=r"\bnll_?loss\b[^.]*" + _MASKED_INF + r"|" + _MASKED_INF + r"[^.]*\bnll_?loss\b"),
]

ENTRIES += [
    _grad_only(entry("h16a_cell_offset_integer_cast_passes_gradient", "h16", PROBE + "Tensor.long() vs astype(int64) in backward",
          _offset_torch, lambda: _offset_ms(False), lambda: _offset_ms(True),
          ("after:coord",), ("astype|cast|int64|stop_gradient|gradient",),
          inputs={"x": uniform(6, 5)}, checks=("forward", "backward"), cause_pattern=_CAST_PATTERN)),
    _grad_only(entry("h16a_feature_validity_bool_cast_passes_gradient", "h16", PROBE + "Tensor.bool() vs astype(bool_) in backward",
          _pool_torch, lambda: _pool_ms(False), lambda: _pool_ms(True),
          ("after:enc",), ("astype|cast|bool|stop_gradient|gradient",),
          inputs={"feats": given(_FRAMES_IN)}, checks=("forward", "backward"), cause_pattern=_CAST_PATTERN)),
]
