"""An op that differs from torch's only at exact ties (op_ties.py): confirmed by moving its inputs off them on both
sides; a port that differs beyond the ties is not said so, and one that agrees raises nothing."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.records.ops import nudged
from migcheck.running.pipeline import run_item


def test_the_nudge_moves_every_finite_element_by_its_own_small_amount_and_keeps_the_dtype():
    x = np.array([[0.5, 0.5], [0.0, np.inf]], np.float32)
    up, down = nudged(x, 1e-3), nudged(x, -1e-3)
    assert up.dtype == np.float32 and up[0, 0] != up[0, 1]  # equal elements part: a tie between them is broken
    assert np.all(up[np.isfinite(x)] > x[np.isfinite(x)]) and np.all(down[np.isfinite(x)] < x[np.isfinite(x)])
    finite = np.isfinite(x)
    assert up[1, 1] == np.inf and np.all(np.abs(up[finite] - x[finite]) < 2e-3)
    assert np.array_equal(nudged(x, 1e-3), up)  # the same values on both sides
    assert np.array_equal(nudged(np.array([1, 2]), 1e-3), [1, 2])  # integers are no ties to move


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

# a 4x4 image sampled at a 2x2 identity grid: every sample sits half-way between two pixels
_TIES = np.array([[[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 0.5], [0.5, 0.5]]]], np.float32)


def _run(ms_align: bool, grid: np.ndarray):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Conv2d(1, 2, 1)

        def forward(self, x, grid):
            y = torch.nn.functional.grid_sample(self.proj(x), grid, mode="nearest", align_corners=False)
            return y * 2.0

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.proj = ms.nn.Conv2d(1, 2, 1, has_bias=True)

        def construct(self, x, grid):
            y = ms.ops.grid_sample(self.proj(x), grid, mode="nearest", align_corners=ms_align)
            return y * 2.0

    case = PairedCase(name="ties", torch=T, mindspore=M, inputs={"x": uniform(1, 1, 4, 4), "grid": given(grid)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_kernel_that_rounds_half_way_samples_otherwise_is_confirmed_to_differ_only_at_ties():
    v = _run(False, _TIES)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.rule == "op-ties" and not finding.fix_checked
    assert finding.cause.startswith("op 'grid_sample' differs from torch's") and "only at exact ties" in finding.cause
    assert "(up and down)" in finding.cause


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_off_the_ties_the_same_port_passes_and_a_real_difference_is_not_called_a_tie():
    off = (_TIES * 0.8).astype(np.float32)  # samples well inside pixels: nothing half-way
    assert _run(False, off).status == "pass"
    v = _run(True, _TIES)  # align_corners differs: the samples land elsewhere, nudged or not
    assert v.status == "fail"
    assert not any(f.rule == "op-ties" for f in v.localization.findings)
