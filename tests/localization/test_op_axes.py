"""A primitive built with its default axis where torch's written-out computation reads another: each other axis of
the input is re-run, and a fused op is never "fixed" by the first of torch's several calls standing in for it."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.op_axes import other_axes
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def test_each_other_axis_is_tried_counted_from_the_front():
    r = OpRecord(3, "L2Normalize", inputs=(np.zeros((2, 3, 4)),), init=(("axis", (0,)),))
    changes = [c.init for c, _ in other_axes(r, {"axis": (0,)}, {"axis": ("init", "axis")})]
    assert changes == [(("axis", (1,)),), (("axis", (2,)),)]
    r = OpRecord(3, "ops.softmax", positional=("<tensor>", -1), names=("input", "axis"), inputs=(np.zeros((2, 3)),))
    changes = [c.arguments for c, _ in other_axes(r, {"axis": -1}, {"axis": ("arg", "axis")})]
    assert changes == [(("axis", 0),)]  # counted from the front, as torch's dim usually is


def test_several_axes_get_each_other_set_of_as_many_axes():
    r = OpRecord(1, "Tensor.sum", positional=("<tensor>",), names=("self",), keywords=(("axis", (1, 2)),),
                 inputs=(np.zeros((8, 4, 3)),))
    changes = [c.arguments for c, _ in other_axes(r, {"axis": (1, 2)}, {"axis": ("arg", "axis")})]
    assert changes == [(("axis", (0, 1)),), (("axis", (0, 2)),)]  # a weight norm per kernel tap, not per channel
    assert other_axes(r, {"axis": (0, 1, 2)}, {"axis": ("arg", "axis")}) == []  # every axis: no other set


def _l2(ms_normalize):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 4, 1)

        def forward(self, x):
            h = self.conv(x)
            return h / h.pow(2).sum(dim=1, keepdim=True).sqrt().clamp_min(1e-10)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = ms.nn.Conv2d(2, 4, 1, has_bias=True)
            self.norm = ms_normalize

        def construct(self, x):
            return self.norm(self.conv(x))

    case = PairedCase(name="l2", torch=T, mindspore=M, inputs={"x": uniform(2, 2, 3, 3)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_fused_primitive_at_its_default_axis_gets_torchs_axis_and_never_torchs_first_call_in_its_place():
    v = _l2(ms.ops.L2Normalize(epsilon=1e-20))  # its default axis is 0; torch's written-out norm reads axis 1
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    # the op search's fix, or the functional recomputation's (axis -3 of a rank-4 input is axis 1)
    assert finding.fix.endswith("ops.L2Normalize(axis=(1,))") or "axis=-3" in finding.fix, finding.fix
    assert "ops.pow" not in finding.fix


def test_the_normalize_over_channels_twin_passes():
    assert _l2(ms.ops.L2Normalize(axis=1, epsilon=1e-20)).status == "pass"


def test_same_operation_pairs_names_of_one_operation_only():
    from migcheck.localization.raising_op import same_operation

    assert same_operation("L2Normalize", "normalize") and same_operation("ops.concat", "cat")
    assert same_operation("primitive Softmax", "softmax") and same_operation("ops.max", "max")
    assert not same_operation("L2Normalize", "pow") and not same_operation("DepthToSpace", "pixel_shuffle")


def _positions(end: int):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x):
            return self.fc(x) + torch.arange(0, 5).float() / 5

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 5)

        def construct(self, x):
            return self.fc(x) + ms.ops.range(0, end, 1).astype(ms.float32) / 5

    case = PairedCase(name="positions", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_range_one_short_gets_its_end_one_step_further_after_a_re_run():
    v = _positions(4)  # the port's end excludes the last position torch's call makes
    assert v.status in ("fail", "error")
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.fix.startswith("range(..., end=4) -> range(..., end=5)"), finding.fix
    assert "includes its end" not in finding.cause  # torch's arange was given 5, not the port's 4


def _inclusive(end: float):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 5)

        def forward(self, x):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                offsets = torch.range(-2, 2)  # deprecated, end included: 5 values
            return self.fc(x) * offsets

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 5)

        def construct(self, x):
            return self.fc(x) * ms.ops.range(-2.0, end, 1.0)

    case = PairedCase(name="offsets", torch=T, mindspore=M, inputs={"x": uniform(2, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_end_torch_includes_is_read_off_torchs_values_and_said():
    v = _inclusive(2.0)
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.fix.startswith("range(..., end=2.0) -> range(..., end=3.0)"), finding.fix
    assert "torch's result ends on 2.0, the port's end; MindSpore's range excludes its end" in finding.cause


def test_the_range_to_three_twin_passes():
    assert _inclusive(3.0).status == "pass"


def test_the_range_to_five_twin_passes():
    assert _positions(5).status == "pass"
