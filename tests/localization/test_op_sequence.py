"""Pieces joined in another order (op_sequence.py): the reordered tuple is the confirmed cause only after the
construct re-runs to agreement; the twin that joins them as torch does passes."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.localization.op_sequence import reordered_sequences
from migcheck.planning.items import Item
from migcheck.records.ops import OpRecord
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def _embed(cos_first: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x)
            return torch.cat([torch.sin(h), torch.cos(h)], dim=-1)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 3)

        def construct(self, x):
            h = self.fc(x)
            pieces = (ms.ops.cos(h), ms.ops.sin(h)) if cos_first else (ms.ops.sin(h), ms.ops.cos(h))
            return ms.ops.concat(pieces, axis=-1)

    case = PairedCase(name="sincos", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_pieces_joined_in_another_order_are_reordered_only_after_a_re_run():
    v = _embed(cos_first=True)
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.confidence == "high"
    assert "in the order [1, 0]" in finding.cause
    assert finding.fix.startswith("concat((sin(...), cos(...)), ...) in place of concat((cos(...), sin(...)), ...)")


def test_the_sin_cos_twin_passes():
    assert _embed(cos_first=False).status == "pass"


def test_only_tuples_of_two_or_three_tensors_are_reordered():
    def record(positional):
        return OpRecord(0, "ops.concat", positional, names=("tensors", "axis"))

    assert len(reordered_sequences(record((("<tensor>", "<tensor>"), -1)))) == 1
    assert len(reordered_sequences(record((("<tensor>",) * 3, -1)))) == 5
    assert reordered_sequences(record((("<tensor>",) * 4, -1))) == []
    assert reordered_sequences(record(((1, 2), -1))) == []


def _two_branch_diagonal(take):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fa, self.fb = torch.nn.Linear(4, 3), torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.diagonal(self.fa(x) @ self.fb(x).T)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fa, self.fb = ms.nn.Dense(4, 3), ms.nn.Dense(4, 3)

        def construct(self, x):
            return take(ms.ops.matmul(self.fa(x), self.fb(x).T))

    case = PairedCase(name="diag", torch=T, mindspore=M, inputs={"x": given(X)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_an_op_reading_values_computed_from_two_children_names_both():
    v = _two_branch_diagonal(ms.ops.diag)  # ops.diag builds a matrix from a vector; torch's takes the diagonal
    assert v.status == "fail"
    (finding,) = v.localization.findings
    assert finding.confirmed
    assert "it takes values computed from 'fa' output and 'fb' output" in finding.cause, finding.cause


def test_the_two_branch_twin_passes():
    assert _two_branch_diagonal(ms.ops.diagonal).status == "pass"
