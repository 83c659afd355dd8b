"""A constant the port builds in its constructor with other values than torch's (running/constant_fixes.py): the
construction call's argument that explains it is found by rebuilding the port (or torch's module) with it changed,
and a fix is printed only when the item re-run with it agrees; the correct twins pass with no such defect."""
import numpy as np
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _bands(base_given: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.freq = 2.0 ** torch.linspace(0.0, 3.0, 4)
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(torch.sin(x * self.freq))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            start, end = ms.Tensor(0.0, ms.float32), ms.Tensor(3.0, ms.float32)
            self.freq = ms.ops.logspace(start, end, 4, base=2) if base_given else ms.ops.logspace(start, end, 4)
            self.fc = ms.nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(ms.ops.sin(x * self.freq))

    case = PairedCase(name="bands", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _window(periodic: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.window = torch.hann_window(8)
            self.fc = torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.fc(x * self.window)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.window = ms.Tensor((np.hanning(9)[:8] if periodic else np.hanning(8)).astype(np.float32))
            self.fc = ms.nn.Dense(8, 2)

        def construct(self, x):
            return self.fc(x * self.window)

    case = PairedCase(name="window", torch=T, mindspore=M, inputs={"x": uniform(3, 8)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def _constant_defects(v):
    return [d for d in (v.localization.defects if v.localization else ()) if d.rule == "construction-constant"]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_library_default_in_the_ports_constructor_is_found_by_rebuilding_with_torchs_number():
    v = _bands(False)
    assert v.status == "fail"
    (d,) = _constant_defects(v)
    assert d.confirmed and d.confidence == "high"
    assert "its call to logspace leaves base=10 (its default), and with base=2 it builds torch's values" in d.cause
    assert d.fix.startswith("mindspore.ops.logspace(..., base=2) at test_constant_fixes.py:")
    assert d.search_tried and d.search_s > 0
    twin = _bands(True)
    assert twin.status == "pass" and not _constant_defects(twin)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_constant_built_another_way_is_named_by_the_torch_setting_that_reproduces_it():
    v = _window(False)
    assert v.status == "fail"
    (d,) = _constant_defects(v)
    assert d.confirmed and d.confidence == "high"
    assert d.cause.startswith("the port's 'window' of '<root>' holds the values hann_window gives with"
                              " periodic=False: torch's call builds it with periodic=True (its default)")
    assert "re-run with those values: the check agrees" in d.fix
    twin = _window(True)
    assert twin.status == "pass" and not _constant_defects(twin)


def _table(width):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pe = torch.sin(torch.arange(12.0).reshape(3, 4))
            self.fc = torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x + self.pe)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.pe = ms.Tensor(np.sin(np.arange(12.0).reshape(3, 4)).astype(width))  # NumPy computes in float64
            self.fc = ms.nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(x + self.pe)

    case = PairedCase(name="table", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_numpy_table_kept_in_float64_is_said_by_its_dtype_and_confirmed_in_torchs():
    v = _table(np.float64)
    assert v.status in ("fail", "error")
    (d,) = _constant_defects(v)
    assert d.confirmed and d.confidence == "high"
    assert d.cause.startswith("the port's constant 'pe' of '<root>', built in its constructor, is float64 where"
                              " torch's 'pe' is float32 (equal values)")
    assert d.fix.startswith("build 'pe' as float32: mindspore.Tensor(<its values>, mindspore.float32)")
    twin = _table(np.float32)
    assert twin.status == "pass" and not _constant_defects(twin)


def _unused_constant(scale):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.unused = torch.ones(3)
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(x) * 2.0

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.unused = ms.Tensor(np.zeros(3, np.float32))  # differs from torch's, read by nothing
            self.fc = ms.nn.Dense(3, 2)

        def construct(self, x):
            return self.fc(x) * scale

    case = PairedCase(name="unused", torch=T, mindspore=M, inputs={"x": uniform(4, 3)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_constant_that_differs_harmlessly_follows_the_defect_that_fails_the_item_and_says_nothing_on_a_pass():
    v = _unused_constant(3.0)
    assert v.status == "fail"
    *others, last = v.localization.defects
    assert others and all(d.rule != "construction-constant" for d in others)
    assert last.rule == "construction-constant" and last.confidence == "medium" and not last.confirmed
    assert last.evidence == "the item re-run with torch's values in the port's constant still fails"
    assert _unused_constant(2.0).status == "pass"  # a passing item's constants are not compared
