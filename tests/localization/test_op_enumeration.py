"""An op's string argument tried as each other member its documentation lists, reStructuredText literals
included: tensor_scatter_elements(reduction='none') for torch's scatter_add is reduction='add' after a re-run."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

X = np.linspace(-1, 1, 18, dtype=np.float32).reshape(6, 3)
INDEX = np.array([0, 2, 1, 0, 2, 0], np.int64)


def _sum_by_group(reduction: str):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x, index):
            h = self.fc(x)
            return torch.zeros(3, 3).scatter_add(0, index[:, None].expand(-1, 3), h)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(3, 3)

        def construct(self, x, index):
            h = self.fc(x)
            idx = ms.ops.broadcast_to(index.astype(ms.int32)[:, None], (x.shape[0], 3))
            return ms.ops.tensor_scatter_elements(ms.ops.zeros((3, 3), ms.float32), idx, h, axis=0,
                                                  reduction=reduction)

    case = PairedCase(name="scatter", torch=T, mindspore=M, inputs={"x": given(X), "index": given(INDEX)},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_scatter_that_overwrites_where_torch_adds_gets_the_documented_add_reduction_after_a_re_run():
    v = _sum_by_group("none")
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert finding.fix == ("tensor_scatter_elements(..., reduction='none') -> "
                           "tensor_scatter_elements(..., reduction='add')")


def test_the_add_reduction_twin_passes():
    assert _sum_by_group("add").status == "pass"


BOUNDS = [0.0, 0.5, 1.0]


def _buckets(use_function: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)
            self.table = torch.nn.Parameter(torch.linspace(-1, 1, 4))

        def forward(self, x):
            return self.table[torch.bucketize(torch.relu(self.fc(x)), torch.tensor(BOUNDS))]  # exact zeros

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(3, 4)
            self.table = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 4).astype(np.float32)))
            self.bucket = ms.ops.Bucketize(boundaries=BOUNDS)

        def construct(self, x):
            h = ms.ops.relu(self.fc(x))
            idx = ms.ops.bucketize(h, BOUNDS, right=False) if use_function else self.bucket(h)
            return ms.ops.gather(self.table, idx, 0)

    case = PairedCase(name="bucket", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_constant_torch_holds_as_a_small_tensor_is_handed_to_the_alternative_function_as_its_values():
    v = _buckets(use_function=False)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert finding.fix.startswith("use ops.bucketize(input, boundaries=[0.0, 0.5, 1.0], right=False)"), finding.fix


def test_the_bucketize_function_twin_passes():
    assert _buckets(use_function=True).status == "pass"
