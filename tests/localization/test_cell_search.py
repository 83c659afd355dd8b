"""A layer of the port's own class that no constructor argument explains is searched inside its construct
(cell_search.py -> op_search.py): a hand-written upsampling cell's ResizeLinear1D mode, and a hand-written
attention whose boolean mask means the opposite of torch's attn_mask (found by changing each call in turn, as
torch computes the region in one fused call). Each bad port has a correct twin that passes."""
import math

import numpy as np
import pytest

from migcheck import PairedCase, mask, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
F = torch.nn.functional
ops = ms.ops


def _run(t_cls, m_cls, inputs):
    case = PairedCase(name="net", torch=t_cls, mindspore=m_cls, inputs=inputs, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.defects if v.localization else ())


class TorchUp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.up = torch.nn.Upsample(scale_factor=2, mode="linear")

    def forward(self, x):
        return self.up(self.fc(x))


def _ms_up(mode):
    class Resize(ms.nn.Cell):  # the port's own upsampling cell
        def __init__(self):
            super().__init__()
            self.resize = ops.ResizeLinear1D(coordinate_transformation_mode=mode)

        def construct(self, x):
            return self.resize(x, ms.Tensor(np.array([x.shape[-1] * 2], np.int64)))

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.up = Resize()

        def construct(self, x):
            return self.up(self.fc(x))
    return Net


def test_a_hand_written_upsampling_cell_is_searched_inside_its_construct():
    v, (d,) = _run(TorchUp, _ms_up("align_corners"), {"x": uniform(2, 3, 4)})
    assert d.ms_name == "up" and d.confirmed and d.confidence == "high"
    assert "op 'ResizeLinear1D' inside 'up'" in d.cause
    assert d.fix == ("ops.ResizeLinear1D(coordinate_transformation_mode='align_corners') -> "
                     "ops.ResizeLinear1D(coordinate_transformation_mode='half_pixel')")


def test_the_half_pixel_twin_passes():
    assert _run(TorchUp, _ms_up("half_pixel"), {"x": uniform(2, 3, 4)})[0].status == "pass"


class TorchSdpa(torch.nn.Module):
    def forward(self, q, keep):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=keep)


class TorchAttn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.attn = TorchSdpa()

    def forward(self, x, m):
        keep = m | torch.eye(3, dtype=torch.bool)
        return self.attn(self.fc(x), keep)


def _ms_attn(invert):
    class Attention(ms.nn.Cell):  # the port's own attention
        def construct(self, q, keep):
            scores = ops.matmul(q, q.swapaxes(-1, -2)) / math.sqrt(q.shape[-1])
            return ops.matmul(ops.softmax(ops.masked_fill(scores, ops.logical_not(keep) if invert else keep, -1e9), -1), q)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.attn = Attention()

        def construct(self, x, m):
            return self.attn(self.fc(x), ops.logical_or(m, ops.eye(3, 3, ms.bool_)))
    return Net


ATTN_INPUTS = {"x": uniform(2, 3, 4), "m": mask(2, 3, 3, p=0.6)}


def test_a_hand_written_attention_with_the_mask_meaning_reversed_gets_the_mask_negated():
    v, (d,) = _run(TorchAttn, _ms_attn(False), ATTN_INPUTS)
    assert d.ms_name == "attn" and d.confirmed
    assert "op 'masked_fill' inside 'attn': no value torch computed places the difference" in d.cause
    assert "'scaled_dot_product_attention' computes them in one call" in d.cause
    assert d.fix == "masked_fill(..., mask=ops.logical_not(mask), ...): hand masked_fill the negated mask"


def test_the_negated_mask_twin_passes():
    assert _run(TorchAttn, _ms_attn(True), ATTN_INPUTS)[0].status == "pass"


class TorchShift(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.shift = ShiftPt()

    def forward(self, x):
        return self.shift(self.fc(x))


class ShiftPt(torch.nn.Module):  # each row moved one place left, the last filled with zeros
    def forward(self, h):
        return torch.cat([h[:, 1:], torch.zeros_like(h[:, :1])], 1) * 2.0


def _ms_shift(zero_filled):
    class ShiftMs(ms.nn.Cell):  # the port's own cell
        def construct(self, h):
            moved = ops.cat([h[:, 1:], ops.zeros_like(h[:, :1]) if zero_filled else h[:, :1]], 1)  # or wrapped round
            return moved * 2.0

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.shift = ShiftMs()

        def construct(self, x):
            return self.shift(self.fc(x))
    return Net


def test_a_call_of_torchs_an_own_cell_leaves_out_is_named_by_replaying_torch_without_it():
    # no change to the port's own calls explains it (the op search names 'cat' and tries its arguments); torch's
    # calls replayed with zeros_like left out (its argument passed on) reproduce the port's wrapped-round row
    v, (d,) = _run(TorchShift, _ms_shift(False), {"x": uniform(3, 4)})
    assert v.status == "fail" and d.torch_name == "shift" and d.rule == "op-zeros_like-dropped"
    assert d.cause.startswith("the port leaves out torch's zeros_like(")
    assert "with only that call left out (its argument #1 passed on) reproduces MindSpore's value" in d.cause
    assert d.fix == ""  # confirmed on torch's side; no change to the port's calls was re-run


def test_the_zero_filled_shift_twin_passes():
    assert _run(TorchShift, _ms_shift(True), {"x": uniform(3, 4)})[0].status == "pass"


class TorchWave(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.wave = WavePt(4, base=100.0)

    def forward(self, x):
        return self.wave(self.fc(x), x.shape[0])


class WavePt(torch.nn.Module):  # a frequency table over the first n positions, called with n as a plain int
    def __init__(self, dim, base=10000.0):
        super().__init__()
        self.dim, self.base = dim, base

    def forward(self, h, n):
        inv = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float() / self.dim))
        table = torch.outer(torch.arange(n).float(), inv)
        return h * torch.cat([table.cos(), table.sin()], 1)


def _ms_wave(base):
    class WaveMs(ms.nn.Cell):
        def __init__(self, dim, base=10000.0):
            super().__init__()
            inv = 1.0 / (base ** (np.arange(0, dim, 2).astype(np.float32) / dim))
            table = np.outer(np.arange(8, dtype=np.float32), inv)
            self.table = ms.Tensor(np.concatenate([np.cos(table), np.sin(table)], 1))

        def construct(self, h, n):
            return h * self.table[:n]

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.wave = WaveMs(4, **base)

        def construct(self, x):
            return self.wave(self.fc(x), x.shape[0])
    return Net


def test_an_own_cell_called_with_a_plain_int_is_re_run_alone_with_it_and_its_setting_found():
    """The sub-cell's call took a plain int (a sequence length): the isolated re-run and the search pass it again."""
    v, (d,) = _run(TorchWave, _ms_wave({}), {"x": uniform(3, 4)})
    assert v.status == "fail" and d.torch_name == "wave" and d.confirmed and d.confidence == "high", d.cause
    assert "wrong on its own" in v.localization.summary
    assert d.fix == "WaveMs(..., base=10000.0) -> WaveMs(..., base=100.0)"


def test_the_plain_int_cells_twin_passes():
    assert _run(TorchWave, _ms_wave({"base": 100.0}), {"x": uniform(3, 4)})[0].status == "pass"


class TorchProjection(torch.nn.Module):
    """A hand-written output projection (F.linear computes x @ W.T + b) and a cosine head (F.normalize per row)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.linspace(-1, 1, 16).reshape(4, 4) ** 3)

    def forward(self, x):
        return F.linear(x, self.w)


class TorchProjNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.proj = TorchProjection()

    def forward(self, x):
        return self.proj(self.fc(x))


def _ms_proj(body):
    class Projection(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.zeros((4, 4), np.float32)), name="w")
            self.l2 = ops.L2Normalize(axis=1)

        def construct(self, x):
            return body(self, x)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.proj = Projection()

        def construct(self, x):
            return self.proj(self.fc(x))
    return Net


def test_a_hand_written_projection_multiplying_by_the_untransposed_weight_gets_it_transposed():
    v, defects = _run(TorchProjNet, _ms_proj(lambda m, x: ops.matmul(x, m.w)), {"x": uniform(2, 4)})
    (d,) = [d for d in defects if d.confirmed]
    assert d.ms_name == "proj" and d.confidence == "high"
    assert "its other argument (the parameter 'w') transposed" in d.cause
    assert d.fix == "matmul(..., other=other.swapaxes(-2, -1), ...): hand matmul the transposed other"


def test_the_projection_with_the_transposed_weight_passes():
    assert _run(TorchProjNet, _ms_proj(lambda m, x: ops.matmul(x, m.w.T)), {"x": uniform(2, 4)})[0].status == "pass"


class TorchNormHead(torch.nn.Module):
    def forward(self, x):
        return F.normalize(x, dim=1) * 2.0


class TorchNormNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.head = TorchNormHead()

    def forward(self, x):
        return self.head(self.fc(x))


def _ms_norm(axis):
    class Head(ms.nn.Cell):  # the port's own cosine-style head
        def __init__(self):
            super().__init__()
            self.l2 = ops.L2Normalize(axis=axis)

        def construct(self, x):
            return self.l2(x) * 2.0

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.head = Head()

        def construct(self, x):
            return self.head(self.fc(x))
    return Net


def test_an_operator_keeping_its_axis_as_a_list_of_one_gets_torchs_dim():
    """L2Normalize keeps axis as [0]: torch's dim=1 is still the candidate (an axis of one counted as a number)."""
    v, defects = _run(TorchNormNet, _ms_norm(0), {"x": uniform(3, 4)})
    (d,) = [d for d in defects if d.confirmed]
    assert d.ms_name == "head"
    assert "with axis=1 (torch's dim)" in d.cause and d.fix == "ops.L2Normalize(axis=(0,)) -> ops.L2Normalize(axis=1)"


def test_the_row_normalizing_twin_passes():
    assert _run(TorchNormNet, _ms_norm(1), {"x": uniform(3, 4)})[0].status == "pass"


class _ChannelsLastNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)
        self.norm = torch.nn.LayerNorm(4, eps=1e-6)

    def forward(self, x):  # (b, h, w, c)
        return self.norm(self.fc(x))


def _own_norm(axis):
    class OwnLayerNorm(ms.nn.Cell):  # a port's own wrapper of the primitive, as ConvNeXt ports write it
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name="weight")
            self.bias = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), name="bias")
            self.layer_norm = (ms.ops.LayerNorm(begin_params_axis=-1, epsilon=1e-6) if axis is None else
                               ms.ops.LayerNorm(begin_norm_axis=axis, begin_params_axis=-1, epsilon=1e-6))

        def construct(self, x):
            return self.layer_norm(x, self.weight, self.bias)[0]

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.norm = OwnLayerNorm()

        def construct(self, x):
            return self.norm(self.fc(x))
    case = PairedCase(name="own_norm", torch=_ChannelsLastNorm, mindspore=Net, inputs={"x": uniform(2, 3, 3, 4)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_ports_own_class_is_fixed_inside_before_it_is_replaced_by_a_library_class():
    (d,) = _own_norm(None).localization.defects  # ops.LayerNorm normalizes from axis 1 by default
    assert (d.rule, d.confidence) == ("op-argument-search", "high")
    assert d.fix == "ops.LayerNorm(begin_norm_axis=1) -> ops.LayerNorm(begin_norm_axis=-1)", d.fix


def test_the_own_class_normalizing_the_last_axis_passes():
    assert _own_norm(-1).status == "pass"
