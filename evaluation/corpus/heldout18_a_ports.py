"""Held-out set 18, half a: more functional entries and two small model blocks (blind; see README)."""
from __future__ import annotations

import numpy as np

from evaluation.corpus.build import entry
from evaluation.corpus.heldout18_a import NAN, _inputs, _nanrx
from migcheck.specs import given, uniform

H = "h18"
P = "h18-port"
INF = float("inf")

_RNG = np.random.default_rng(1809)


def _torch():
    import torch
    return torch


# ---- 9. torch.topk over features with NaN-marked slots ---------------------------------------------
def _t_topk():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(2, 2)

        def forward(self, x, obs):
            h = self.enc(x).masked_fill(~obs, NAN)
            top = torch.topk(h, 2, dim=-1).values
            return self.head(torch.nan_to_num(top, nan=5.0))
    return Net()


def _m_topk(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(5, 5)
            self.head = nn.Dense(2, 2)

        def construct(self, x, obs):
            h = ops.masked_fill(self.enc(x), ops.logical_not(obs), NAN)
            if correct:
                top = ops.topk(ops.where(ops.isnan(h), ops.full_like(h, INF), h), 2, dim=-1)[0]
                top = ops.where(ops.isinf(top), ops.full_like(top, NAN), top)
            else:
                top = ops.topk(h, 2, dim=-1)[0]
            return self.head(ops.nan_to_num(top, nan=5.0))
    return Net()


# ---- 10. torch.argmax picks the NaN-marked slot -----------------------------------------------------
def _t_argmax():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.score = torch.nn.Linear(5, 5)
            self.head = torch.nn.Linear(5, 3)

        def forward(self, x, obs):
            s = self.score(x).masked_fill(~obs, NAN)
            pick = torch.nn.functional.one_hot(torch.argmax(s, dim=-1), 5).float()
            return self.head(pick * x)
    return Net()


def _m_argmax(correct):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.score = nn.Dense(5, 5)
            self.head = nn.Dense(5, 3)

        def construct(self, x, obs):
            s = ops.masked_fill(self.score(x), ops.logical_not(obs), NAN)
            if correct:
                s = ops.where(ops.isnan(s), ops.full_like(s, INF), s)
            pick = ops.one_hot(ops.argmax(s, dim=-1), 5).astype(ms.float32)
            return self.head(pick * x)
    return Net()


# ---- 12. block: patch embedding with a learned token for patches that miss a reading -----------------
_PV = np.round(_RNG.uniform(-2.0, 2.0, size=(2, 4, 6)), 3).astype("float32")
_PO = np.ones((2, 4, 6), dtype=bool)
_PO[0, 1, 3] = _PO[1, 0, 0] = _PO[1, 2, 5] = _PO[1, 3, 1] = False


def _t_patch():
    torch = _torch()

    class PatchEmbed(torch.nn.Module):
        """Patch summary = (max, mean) of each patch; a patch missing a reading gets a learned token."""
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(2, 8)
            self.mask_token = torch.nn.Parameter(torch.linspace(-0.5, 0.5, 8))
            self.norm = torch.nn.LayerNorm(8)
            self.out = torch.nn.Linear(8, 4)

        def forward(self, values, observed):
            v = values.masked_fill(~observed, NAN)
            peak = v.max(dim=-1).values
            mean = torch.nan_to_num(v, nan=0.0).mean(dim=-1)
            z = self.proj(torch.stack([peak, mean], dim=-1))
            z = torch.where(torch.isnan(z), self.mask_token.expand_as(z), z)
            return self.out(torch.nn.functional.gelu(self.norm(z)))
    return PatchEmbed()


def _m_patch(correct):
    import mindspore as ms
    from mindspore import nn, ops, Parameter

    class PatchEmbed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = nn.Dense(2, 8)
            self.mask_token = Parameter(ms.Tensor(np.linspace(-0.5, 0.5, 8).astype("float32")), name="mask_token")
            self.norm = nn.LayerNorm((8,), epsilon=1e-5)
            self.out = nn.Dense(8, 4)

        def construct(self, values, observed):
            v = ops.masked_fill(values, ops.logical_not(observed), NAN)
            peak = v.max(axis=-1)
            if correct:
                peak = ops.where(ops.isnan(v).any(-1), ops.full_like(peak, NAN), peak)
            mean = ops.nan_to_num(v, nan=0.0).mean(axis=-1)
            z = self.proj(ops.stack([peak, mean], axis=-1))
            z = ops.where(ops.isnan(z), self.mask_token.expand_as(z), z)
            return self.out(ops.gelu(self.norm(z), approximate="none"))
    return PatchEmbed()


# ---- 13. block: sensor front end, outlier clipping then learned imputation -----------------------------
_SV = np.round(_RNG.uniform(-8.0, 8.0, size=(4, 6)), 3).astype("float32")
_SO = np.ones((4, 6), dtype=bool)
_SO[0, 2] = _SO[1, 0] = _SO[2, 5] = _SO[3, 3] = False


def _t_sensor():
    torch = _torch()

    class SensorFrontEnd(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fill = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 6))
            self.fc1 = torch.nn.Linear(6, 8)
            self.fc2 = torch.nn.Linear(8, 3)

        def forward(self, values, observed):
            v = values.masked_fill(~observed, NAN)
            v = torch.clip(v, -5.0, 5.0)
            v = torch.where(torch.isnan(v), self.fill.expand_as(v), v)
            return self.fc2(torch.tanh(self.fc1(v)))
    return SensorFrontEnd()


def _m_sensor(correct):
    import mindspore as ms
    from mindspore import nn, ops, Parameter

    class SensorFrontEnd(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fill = Parameter(ms.Tensor(np.linspace(-1.0, 1.0, 6).astype("float32")), name="fill")
            self.fc1 = nn.Dense(6, 8)
            self.fc2 = nn.Dense(8, 3)

        def construct(self, values, observed):
            v = ops.masked_fill(values, ops.logical_not(observed), NAN)
            c = ops.clip(v, -5.0, 5.0)
            if correct:
                c = ops.where(ops.isnan(v), v, c)
            c = ops.where(ops.isnan(c), self.fill.expand_as(c), c)
            return self.fc2(ops.tanh(self.fc1(c)))
    return SensorFrontEnd()


# ---- 14. Tensor.any over float activations (a "row has any signal" flag) ---------------------------
_AX = np.round(_RNG.normal(size=(8, 5)), 3).astype("float32")
_AX[2] = -np.abs(_AX[2]) - 0.5
_AX[5] = -np.abs(_AX[5]) - 0.5


def _t_any():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(5, 5)
            self.act = torch.nn.ReLU()
            self.head = torch.nn.Linear(6, 2)

        def forward(self, x):
            h = self.act(self.enc(x))
            active = h.any(dim=-1, keepdim=True).float()
            return self.head(torch.cat([h, active], dim=-1))
    return Net()


def _m_any(correct):
    import mindspore as ms
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(5, 5)
            self.act = nn.ReLU()
            self.head = nn.Dense(6, 2)

        def construct(self, x):
            h = self.act(self.enc(x))
            flag = ops.any(h != 0, -1, True) if correct else ops.any(h, -1, True)
            return self.head(ops.cat([h, flag.astype(ms.float32)], axis=-1))
    return Net()


# ---- 15. log compression with a floor: torch.maximum(log(h), floor) on negative pre-activations --------
def _t_logfloor():
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = torch.nn.Linear(5, 6)
            self.head = torch.nn.Linear(6, 2)

        def forward(self, x):
            lg = torch.log(self.enc(x))  # NaN where the pre-activation is negative
            lg = torch.maximum(lg, torch.full_like(lg, -4.0))
            return self.head(torch.nan_to_num(lg, nan=-4.0))
    return Net()


def _m_logfloor(correct):
    from mindspore import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.Dense(5, 6)
            self.head = nn.Dense(6, 2)

        def construct(self, x):
            lg = ops.log(self.enc(x))
            m = ops.maximum(lg, ops.full_like(lg, -4.0))
            if correct:
                m = ops.where(ops.isnan(lg), lg, m)
            return self.head(ops.nan_to_num(m, nan=-4.0))
    return Net()


ENTRIES = [
    entry("h18a_functional_topk_nan_slot_not_ranked_first", H, "probe:topk with nan torch nan first vs ms skips",
          _t_topk, lambda: _m_topk(False), lambda: _m_topk(True), ("after:enc",),
          ("topk|nan ordering",), inputs=_inputs(), cause_pattern=_nanrx("topk")),
    entry("h18a_functional_argmax_nan_slot_not_selected", H, "probe:argmax with nan torch picks nan vs ms skips",
          _t_argmax, lambda: _m_argmax(False), lambda: _m_argmax(True), ("after:score",),
          ("argmax|nan ordering",), inputs=_inputs(), cause_pattern=_nanrx("argmax")),
    entry("h18a_functional_any_over_float_activations_not_cast_to_bool", H,
          "probe:ops.any / Tensor.any on a float32 input (MindSpore 2.10 CPU) vs torch.any", _t_any,
          lambda: _m_any(False), lambda: _m_any(True), ("after:act",), ("any|float input|bool cast",),
          inputs=[given(_AX)],
          cause_pattern=r"(\.any\b|\bany\(|`any`)[^.]*\b(float(32)?|bool(ean)?|!= ?0|nonzero)\b"
                        r"|\b(float(32)?|bool(ean)?)\b[^.]*(\.any\b|\bany\()"),
    entry("h18a_log_floor_maximum_nan_operand_gradient_leaks", H,
          "probe:maximum(nan, y) returns y in MindSpore, so gradient flows into the NaN branch", _t_logfloor,
          lambda: _m_logfloor(False), lambda: _m_logfloor(True), ("after:enc",), ("maximum|nan gradient",),
          inputs=[uniform(6, 5)], checks=("forward", "backward"), fails_on=("backward",),
          cause_pattern=_nanrx("maximum")),
    entry("h18a_port_missing_patch_embed_tensor_max_skips_nan", P,
          "probe:Tensor.max(dim) with nan torch nan vs ms ignores", _t_patch, lambda: _m_patch(False),
          lambda: _m_patch(True), ("<root>",), ("max|nan propagation",),
          inputs=[given(_PV), given(_PO)], cause_pattern=_nanrx("max") + "|" + _nanrx("amax")),
    entry("h18a_port_sensor_front_end_clip_maps_nan_to_bound", P,
          "probe:clip(nan) torch nan vs ms bound", _t_sensor, lambda: _m_sensor(False), lambda: _m_sensor(True),
          ("<root>",), ("clip|clamp|nan propagation",), inputs=[given(_SV), given(_SO)],
          cause_pattern=_nanrx("clip") + "|" + _nanrx("clamp")),
]
