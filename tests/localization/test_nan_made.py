"""A layer that makes NaN from finite inputs where torch's is finite (nan_made.py): located at the first op of its
construct that makes it and confirmed by an epsilon there, re-run through the layer; a port that keeps the case
finite passes, and so does the layer on inputs without the case."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


class _CosineSimilarityWithEps(ms.nn.Cell):
    """torch's cosine similarity: the product over the root of the two squared norms, each kept off zero."""

    def construct(self, a, b):
        dot = (a * b).sum(-1)
        return dot / ms.ops.sqrt((ms.ops.square(a).sum(-1) + 1e-12) * (ms.ops.square(b).sum(-1) + 1e-12))


def _run(port: str, zero_row: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.loss = torch.nn.CosineEmbeddingLoss(reduction="none")

        def forward(self, a, b, y):
            return self.loss(self.fc(a) * (a.abs().sum(-1, keepdim=True) > 0), b, y)

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 4)
            self.loss = ms.nn.CosineEmbeddingLoss(reduction="none") if port == "library" else _Loss()

        def construct(self, a, b, y):
            mask = (a.abs().sum(-1, keepdims=True) > 0).astype(ms.float32)
            return self.loss(self.fc(a) * mask, b, y)

    class _Loss(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.cos = _CosineSimilarityWithEps()

        def construct(self, a, b, y):
            c = self.cos(a, b)
            return ms.ops.where(y == 1, 1 - c, ms.ops.relu(c))

    a = np.random.default_rng(3).uniform(-1, 1, (4, 4)).astype(np.float32)
    if zero_row:
        a[1] = 0.0
    case = PairedCase(name="nan_made", torch=T, mindspore=M,
                      inputs={"a": given(a), "b": uniform(4, 4), "y": given(np.array([1, 1, -1, -1], np.int64))},
                      checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


def test_a_library_loss_making_nan_at_a_zero_row_is_located_at_its_division_and_confirmed_by_an_epsilon():
    v = _run("library", True)
    assert v.status == "fail" and v.localization.first_divergence == "loss"
    (finding,) = v.localization.findings
    assert finding.confirmed and finding.rule == "nan-made"
    assert finding.cause.startswith("MindSpore's CosineEmbeddingLoss makes NaN where torch's 'loss' is finite")
    assert "its input 0 has 1 all-zero row" in finding.cause and "where its inputs are 0 and 0" in finding.cause
    assert "1e-12 added to that op's input 1" in finding.cause


def test_a_port_keeping_the_zero_row_finite_passes_and_the_library_loss_passes_without_one():
    assert _run("eps", True).status == "pass"
    assert _run("library", False).status == "pass"
