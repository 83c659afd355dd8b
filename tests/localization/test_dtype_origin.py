"""A dtype failure is located where the dtype first parts (localization/dtype_origin.py): the first op of the
construct whose result has another dtype than torch's counterpart's, its inputs having torch's dtypes; the call
given torch's dtype, or its result cast to it, re-run through the construct, is the fix. Twins pass."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
ops = ms.ops


def _run(torch_body, ms_body, name):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x):
            return torch_body(self.proj(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = ms.nn.Dense(8, 8)

        def construct(self, x):
            return ms_body(self.proj(x))

    case = PairedCase(name=name, torch=T, mindspore=M, inputs={"x": uniform(3, 8)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _t_window(h):
    return h * torch.hann_window(8)


def _m_window_default(h):  # MindSpore 2.10's hann_window returns float64 unless given a dtype
    return h * ops.hann_window(8)


def _m_window_float32(h):
    return h * ops.hann_window(8, dtype=ms.float32)


def test_a_factory_op_returning_float64_is_the_origin_and_its_dtype_argument_the_fix():
    v = _run(_t_window, _m_window_default, "window")
    assert v.kind == "dtype"
    (d,) = v.localization.defects
    assert d.rule == "dtype-origin" and d.confirmed
    assert "op 'hann_window' returns float64 where torch's 'hann_window' returns float32" in d.cause
    assert d.fix.startswith("hann_window(..., dtype=mindspore.float32) in place of hann_window(...)"), d.fix


def test_the_float32_window_twin_passes():
    assert _run(_t_window, _m_window_float32, "window_ok").status == "pass"


def test_an_op_without_a_dtype_argument_gets_its_result_cast_only():
    from migcheck.localization.op_candidates import dtype_changes as _changes
    from migcheck.records.ops import OpRecord

    changes = _changes(OpRecord(3, "ops.cumsum", names=("input", "axis")), "float32", "cumsum")
    assert [shown for _, shown in changes] == ["cumsum(...).astype(mindspore.float32)"]
    assert changes[0][0].result_dtype == "float32" and not changes[0][0].dtype_keyword
