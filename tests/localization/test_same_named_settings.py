"""A port's own module classes (not in the correspondence table): a setting both keep under the same name
is named as the cause only when re-running torch's module with MindSpore's value reproduces the port."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.localization.correspondence import same_named_differences
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def test_candidates_are_same_named_plain_settings_only():
    t = {"align_corners": False, "mode": "bilinear", "training": True, "size": 7}
    m = {"align_corners": True, "mode": "bilinear", "training": False, "size": 7.0, "only_ms": 1}
    (diff,) = same_named_differences("ResizePt", t, "ResizeMs", m)
    assert (diff.rule, diff.torch_value, diff.ms_value, diff.ms_fix) == ("align-corners", False, True, False)


def _pair(ms_align: bool, ms_label: str, ms_scale: float):
    import mindspore.nn as mnn
    import mindspore.ops as ops
    import torch
    import torch.nn.functional as F

    class Pt(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.align_corners, self.label = False, "pt"

        def forward(self, x):
            return F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=self.align_corners)

    class Ms(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.align_corners, self.label, self.scale = ms_align, ms_label, ms_scale

        def construct(self, x):
            return ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=self.align_corners) * self.scale

    return PairedCase(name="resize", torch=Pt, mindspore=Ms, inputs={"x": uniform(1, 2, 3, 4)}, checks=("forward",))


def _findings(case):
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.findings if v.localization else ())


def test_a_differing_same_named_setting_is_confirmed_as_the_cause():
    v, findings = _findings(_pair(ms_align=True, ms_label="pt", ms_scale=1.0))
    assert v.status == "fail"
    (f,) = [f for f in findings if f.rule == "align-corners"]
    assert f.confirmed and f.confidence == "high" and f.fix_checked and f.fix == "align_corners=False"


def test_a_same_named_setting_that_changes_nothing_is_never_named():
    # The label differs but is not what makes the port wrong (the scale is): no finding may blame it.
    v, findings = _findings(_pair(ms_align=False, ms_label="ms", ms_scale=2.0))
    assert v.status == "fail"
    assert not any(f.rule == "label" or "label" in f.cause for f in findings)
    # what is confirmed is the real defect, the extra scaling (the op-level search drops it to agreement)
    assert all(f.fix == "remove the 'Tensor.__mul__' call in construct" for f in findings if f.confidence == "high")


def test_the_correct_twin_passes_without_localization():
    v, findings = _findings(_pair(ms_align=False, ms_label="ms", ms_scale=1.0))
    assert v.status == "pass" and not findings


def _container(ms_residual: bool, ms_label: str, ms_scale: float):
    """A container whose own forward uses a flag: the defect sits between its child's output and its output."""
    import mindspore.nn as mnn
    import torch

    class Pt(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj, self.residual_connection, self.label = torch.nn.Linear(3, 3), True, "pt"

        def forward(self, x):
            h = self.proj(x)
            return h + x if self.residual_connection else h

    class Ms(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj, self.residual_connection, self.label, self.scale = mnn.Dense(3, 3), ms_residual, ms_label, ms_scale

        def construct(self, x):
            h = self.proj(x)
            return (h + x if self.residual_connection else h) * self.scale

    return PairedCase(name="block", torch=Pt, mindspore=Ms, inputs={"x": uniform(2, 3)}, checks=("forward",))


def test_a_container_s_own_setting_is_confirmed_for_a_divergence_inside_its_forward():
    v, findings = _findings(_container(ms_residual=False, ms_label="pt", ms_scale=1.0))
    assert v.status == "fail" and "between 'proj' output and '<output>' input" in v.localization.between
    (d,) = v.localization.defects
    assert d.rule == "residual-connection" and d.confirmed and d.confidence == "high"
    assert "reproduces MindSpore's output" in d.evidence


def test_a_container_s_differing_setting_that_changes_nothing_is_never_named():
    v, findings = _findings(_container(ms_residual=True, ms_label="ms", ms_scale=2.0))
    assert v.status == "fail"
    assert not any("label" in d.cause or d.rule == "label" for d in v.localization.defects)
    assert not any(f.rule == "label" or "label" in f.cause for f in findings)
    # what is confirmed is the port's extra multiply by its scale, found by re-running construct without it
    (d,) = v.localization.defects
    assert d.confidence == "high" and d.rule == "op-argument-search" and "'Tensor.__mul__' dropped" in d.cause
    assert d.fix == "remove the 'Tensor.__mul__' call in construct"


def test_the_container_s_correct_twin_passes():
    v, findings = _findings(_container(ms_residual=True, ms_label="ms", ms_scale=1.0))
    assert v.status == "pass" and not findings


def _baked(ms_factor: float):
    """torch bakes its setting into a buffer at construction; the port reads the same-named attribute per call."""
    import mindspore.nn as mnn
    import torch

    class Pt(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj, self.factor = torch.nn.Linear(3, 3), 2.0
            self.register_buffer("mult", torch.tensor(self.factor), persistent=False)

        def forward(self, x):
            return self.proj(x) * self.mult

    class Ms(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.proj, self.factor = mnn.Dense(3, 3), ms_factor

        def construct(self, x):
            return self.proj(x) * self.factor

    return PairedCase(name="baked", torch=Pt, mindspore=Ms, inputs={"x": uniform(2, 3)}, checks=("forward",))


def test_a_setting_torch_fixed_at_construction_is_confirmed_by_the_port_re_run_with_torch_s_value():
    v, findings = _findings(_baked(ms_factor=3.0))
    (d,) = v.localization.defects
    assert d.rule == "factor" and d.confirmed and d.fix == "factor=2.0"
    assert "re-running the port's cell with torch's setting makes it agree with torch" in d.evidence


def test_the_baked_setting_s_correct_twin_passes():
    v, findings = _findings(_baked(ms_factor=2.0))
    assert v.status == "pass" and not findings
