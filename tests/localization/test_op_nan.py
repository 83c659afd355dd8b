"""An op or layer that treats NaN otherwise than torch's (op_nan.py, nan_made.nan_kept): NaN kept, or ranked as the
largest value, re-run through the port to agreement; a port that does what torch does passes, and a layer merely
fed the NaN rows torch also has is not blamed."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_nan import nan_candidates, nan_fix
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item

_X = np.array([[0.5, np.nan, -2.0], [1.5, 0.25, np.nan]], np.float32)


def test_nan_conventions_are_tried_only_where_the_op_is_fed_nan():
    fed = OpDivergence(OpRecord(3, "clamp", inputs=(_X,), outputs=(_X,)), None, ())
    assert [c.nan_rule for c, _ in nan_candidates(fed)] == ["propagate", "largest", "smallest"]
    clean = OpDivergence(OpRecord(3, "clamp", inputs=(np.nan_to_num(_X),), outputs=(_X,)), None, ())
    assert nan_candidates(clean) == []
    (change, _), (ranked, _) = nan_candidates(fed)[:2]
    assert nan_fix(fed.ms, change).startswith("keep NaN as torch's clamp does: y = clamp(x, ...); y = ops.where(")
    assert "float('inf')" in nan_fix(fed.ms, ranked) and "+inf handed back as NaN" in nan_fix(fed.ms, ranked)


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _run(torch_fn, ms_fn, x=_X):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.head(torch.nan_to_num(torch_fn(x), nan=5.0))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.head = ms.nn.Dense(3, 2)

        def construct(self, x):
            return self.head(ms.ops.nan_to_num(ms_fn(x), nan=5.0))

    case = PairedCase(name="nan", torch=T, mindspore=M, inputs={"x": given(x)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_clamp_that_drops_nan_is_confirmed_by_keeping_it_and_a_port_keeping_it_passes():
    v = _run(lambda x: torch.clamp(x, -1.0, 1.0), lambda x: ms.ops.clamp(x, -1.0, 1.0))
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.fix_checked
    assert "with NaN kept in its result wherever an input it is computed from is NaN" in finding.cause
    assert finding.fix.startswith("keep NaN as torch's clamp does")
    kept = _run(lambda x: torch.clamp(x, -1.0, 1.0),
                lambda x: ms.ops.where(ms.ops.isnan(x), x, ms.ops.clamp(x, -1.0, 1.0)))
    assert kept.status == "pass"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_an_argmax_that_skips_nan_is_confirmed_by_ranking_nan_first():
    def t_fn(x):
        return torch.nn.functional.one_hot(torch.argmax(x, -1), 3).float()

    def m_fn(x):
        return ms.ops.one_hot(ms.ops.argmax(x, -1), 3, ms.Tensor(1.0), ms.Tensor(0.0))
    v = _run(t_fn, m_fn)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and "NaN ranked above every number" in finding.cause


def _relu(port: str):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.ReLU()
            self.head = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.head(torch.nan_to_num(self.act(x), nan=5.0))

    class KeepNan(ms.nn.Cell):
        def construct(self, x):
            return ms.ops.where(ms.ops.isnan(x), x, ms.ops.relu(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = ms.nn.ReLU() if port == "library" else KeepNan()
            self.head = ms.nn.Dense(3, 2)

        def construct(self, x):
            return self.head(ms.ops.nan_to_num(self.act(x), nan=5.0))

    case = PairedCase(name="relu_nan", torch=T, mindspore=M, inputs={"x": given(_X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_library_relu_mapping_nan_to_zero_is_confirmed_by_keeping_nan_and_a_port_keeping_it_passes():
    v = _relu("library")
    assert v.status == "fail" and v.localization.first_divergence == "act"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.rule == "nan-kept"
    assert finding.cause.startswith("MindSpore's ReLU returns numbers (0) where its input is NaN")
    assert _relu("keep").status == "pass"


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_layer_fed_the_nan_rows_torch_has_too_is_not_blamed():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(2, 3)

        def forward(self, x):
            peak = x.amax(-1)
            return torch.nan_to_num(self.proj(torch.stack([peak, torch.nan_to_num(x, nan=0.0).mean(-1)], -1)), nan=0.0)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = ms.nn.Dense(2, 3)

        def construct(self, x):
            peak = x.max(axis=-1)
            return ms.ops.nan_to_num(self.proj(ms.ops.stack([peak, ms.ops.nan_to_num(x, nan=0.0).mean(-1)], -1)), nan=0.0)

    x = np.array([[[0.5, np.nan, 1.0], [2.0, 1.0, 0.0]]], np.float32)
    case = PairedCase(name="fed_nan", torch=T, mindspore=M, inputs={"x": given(x)}, checks=("forward",))
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    assert v.status == "fail"
    (finding,) = v.localization.findings  # the op that dropped the NaN, not the Dense fed torch's NaN rows
    assert finding.cause.startswith("op 'Tensor.max' inside '<root>'") and finding.confirmed
    assert [d.torch_name for d in v.localization.defects] == [""]
