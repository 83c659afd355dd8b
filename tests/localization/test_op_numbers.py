"""A number argument of the port's op tried at the numbers torch's own calls there use (op_numbers.py), when
torch's counterpart is written out in other calls and no argument aligns by name; the twin passes."""
import pytest

from migcheck.localization.op_numbers import region_numbers
from migcheck.records.ops import OpRecord
from migcheck.runners.base import Argument, Constructor


def _record(positional, keywords=()):
    return OpRecord(0, "where", positional=positional, keywords=keywords)


def test_whole_number_arguments_get_torchs_whole_positive_numbers_and_floats_every_number():
    ms_c = Constructor("ROIAlign", True, (Argument("sample_num", 2, True, True),
                                          Argument("spatial_scale", 1.0, True, False),
                                          Argument("aligned", False, True, True)))
    torch_ops = [_record(("<tensor>", 4, 0.5)), _record(("<tensor>",), (("value", 2),)), _record((0,))]
    where = {"sample_num": ("init", "sample_num"), "spatial_scale": ("init", "spatial_scale")}
    tried = [words.split(" (")[0] for _, words in region_numbers(3, ms_c, where, torch_ops)]
    assert tried == ["sample_num=4", "spatial_scale=4.0", "spatial_scale=0.5", "spatial_scale=2.0",
                     "spatial_scale=0.0"]


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _shrink(lambd):
    from migcheck import PairedCase, uniform
    from migcheck.planning.items import Item
    from migcheck.running.pipeline import run_item

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            return torch.where(h.abs() > 0.3, h, torch.zeros_like(h))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.shrink = ms.ops.HShrink(lambd) if lambd is not None else ms.ops.HShrink()

        def construct(self, x):
            return self.shrink(self.fc(x))

    case = PairedCase(name="shrink", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_threshold_torch_writes_out_is_found_among_its_own_numbers_and_confirmed_by_a_rerun():
    v = _shrink(None)
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert d.confirmed and d.confidence == "high"
    assert "with lambd=0.3 (a number torch's own calls there use; no argument of theirs aligns by name)" in d.cause
    assert d.fix == "ops.HShrink(lambd=0.5) -> ops.HShrink(lambd=0.3)"
    twin = _shrink(0.3)
    assert twin.status == "pass" and twin.localization is None


def test_string_settings_get_torchs_strings_and_structural_arguments_get_nothing():
    ms_c = Constructor("ResizeBilinear", True, (Argument("mode", "nearest", True, True),
                                                Argument("axis", 1, True, True), Argument("roi_end_mode", 1, True, True)))
    where = {"mode": ("arg", "mode"), "axis": ("init", "axis"), "roi_end_mode": ("init", "roi_end_mode")}
    torch_ops = [_record(("<tensor>", "bilinear", 0)), _record(("NEAREST", 2))]
    tried = [words.split(" (")[0] for _, words in region_numbers(1, ms_c, where, torch_ops)]
    assert tried == ["mode='bilinear'", "roi_end_mode=2"]
