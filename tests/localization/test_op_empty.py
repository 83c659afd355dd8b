"""A segment reduction that fills empty segments otherwise than torch (op_elements.unselected_rows, op_empty.py):
said by the rows no index names, confirmed by a re-run with them at torch's value; the twin passes."""
import numpy as np
import pytest

from migcheck.localization.op_elements import unselected_rows

IDS = np.array([0, 0, 1, 2, 1, 2])


def test_a_difference_exactly_at_the_rows_no_index_names_is_said_as_empty_segments():
    torch_out = np.array([[2.0], [3.0], [4.0], [0.0], [0.0]])
    ms_out = np.array([[2.0], [3.0], [4.0], [1.0], [1.0]])
    assert unselected_rows([np.ones((6, 1)), IDS], ms_out, torch_out, 1e-6, 1e-6) == (
        "only at output rows no index selects (rows 3, 4: empty segments): torch 0, MindSpore 1")
    elsewhere = ms_out.copy()
    elsewhere[0] = 9.0  # a named row differs too: not an empty-segment convention
    assert unselected_rows([np.ones((6, 1)), IDS], elsewhere, torch_out, 1e-6, 1e-6) == ""


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _product(filled: bool):
    from migcheck import PairedCase, given, uniform
    from migcheck.planning.items import Item
    from migcheck.running.pipeline import run_item

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x, ids):
            h = self.lin(x)
            out = torch.zeros(5, 2)
            return out.scatter_reduce(0, ids[:, None].expand(-1, 2), h, reduce="prod", include_self=False)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lin = ms.nn.Dense(3, 2)

        def construct(self, x, ids):
            y = ms.ops.unsorted_segment_prod(self.lin(x), ids.astype(ms.int32), 5)
            if filled:
                counts = ms.ops.bincount(ids.astype(ms.int32), minlength=5)
                y = ms.ops.where((counts == 0).reshape(-1, 1), 0.0, y)
            return y

    case = PairedCase(name="segprod", torch=T, mindspore=M, checks=("forward",),
                      inputs={"x": uniform(6, 3), "ids": given(IDS.astype(np.int64))})
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_empty_segments_filled_otherwise_are_confirmed_by_a_rerun_with_torchs_value():
    v = _product(False)
    assert v.status == "fail"
    (d,) = v.localization.defects
    assert d.confirmed and d.confidence == "high"
    assert "with its rows for empty segments (no index names them) set to 0, as torch's 'scatter_reduce'" in d.cause
    assert "rows 3, 4: empty segments): torch 0, MindSpore 1" in d.cause
    assert d.fix.startswith("y = unsorted_segment_prod(...); y = ops.where(")
    twin = _product(True)
    assert twin.status == "pass" and twin.localization is None
