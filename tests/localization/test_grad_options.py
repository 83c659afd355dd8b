"""Gradient-only options: a parameter whose gradient alone differs is explained by the torch layer's own
option that, flipped in a torch re-run, reproduces MindSpore's gradient; the correct twins pass."""
import numpy as np
import pytest

from migcheck import PairedCase, given
from migcheck.localization.grad_options import OptionCandidate, candidates
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

IDS = np.array([[1, 2, 2, 0], [3, 2, 0, 1]], np.int64)  # token 2 three times: frequency scaling shows


def _embedding_pair(torch_kwargs):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.fc = torch.nn.Embedding(10, 4, **torch_kwargs), torch.nn.Linear(4, 2)

        def forward(self, ids):
            return self.fc(self.emb(ids))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb, self.fc = ms.nn.Embedding(10, 4), ms.nn.Dense(4, 2)

        def construct(self, ids):
            return self.fc(self.emb(ids))

    case = PairedCase(name="emb", torch=T, mindspore=M, inputs={"ids": given(IDS)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_scale_grad_by_freq_is_found_by_flipping_it_in_a_torch_rerun():
    v = _embedding_pair({"scale_grad_by_freq": True})
    (f,) = [f for f in v.localization.findings if f.rule == "gradient-option"]
    assert f.confidence == "high" and f.confirmed and not f.fix_checked  # the port was not re-run with a fix
    assert "scale_grad_by_freq=True" in f.cause and "torch's with scale_grad_by_freq=False" in f.cause
    assert f.fix.startswith("none shown") and "Embedding has no scale_grad_by_freq" in f.fix
    assert "scale_grad_by_freq=False" in f.evidence and "tried (" in f.evidence


def test_the_embedding_twin_passes():
    v = _embedding_pair({})
    assert v.status == "pass" and v.localization is None


class _Gate(torch.nn.Module):
    """A port-authored layer whose option only stops the gradient through its scale."""

    def __init__(self, detach_scale: bool = True):
        super().__init__()
        self.detach_scale = detach_scale
        self.scale = torch.nn.Parameter(torch.ones(4))

    def forward(self, x):
        s = self.scale.detach() if self.detach_scale else self.scale
        return x * s + self.scale * 0.1


def _gate_pair(stop):
    class GateMs(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = ms.Parameter(ms.ops.ones(4, ms.float32), name="scale")

        def construct(self, x):
            s = ms.ops.stop_gradient(self.scale) if stop else self.scale
            return x * s + self.scale * 0.1

    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate, self.fc = _Gate(), torch.nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(self.gate(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.gate, self.fc = GateMs(), ms.nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(self.gate(x))

    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    case = PairedCase(name="gate", torch=T, mindspore=M, inputs={"x": given(x)}, checks=("backward",))
    return run_item(Item(case, "backward", "pynative", "cpu"))


def test_a_port_authored_option_read_off_the_torch_layers_signature_is_flipped():
    v = _gate_pair(stop=False)
    assert v.status == "fail"
    (f,) = [f for f in v.localization.findings if f.rule == "gradient-option"]
    assert f.confirmed and "detach_scale=True" in f.cause and "detach_scale=False" in f.cause
    assert "_Gate" in f.where


def test_the_gate_twin_that_stops_the_gradient_passes():
    assert _gate_pair(stop=True).status == "pass"


def test_candidates_flip_booleans_and_take_the_ports_differing_same_named_values():
    got = candidates({"scale_grad_by_freq": False, "padding_idx": None, "num_embeddings": 10},
                     {"padding_idx": 0, "num_embeddings": 10, "extra": 1})
    assert got == [OptionCandidate("scale_grad_by_freq", False, True, "flipped"),
                   OptionCandidate("padding_idx", None, 0, "MindSpore's value")]


class _RowZeroGradEmbedding(ms.nn.Cell):
    """nn.Embedding whose row 0 passes no gradient: what torch's padding_idx=0 does in backward."""

    def __init__(self):
        super().__init__()
        self.inner = ms.nn.Embedding(10, 4)

    def construct(self, ids):
        out = self.inner(ids)
        keep = ops_expand((ids != 0).astype(out.dtype))
        return out * keep + ms.ops.stop_gradient(out) * (1 - keep)


def ops_expand(mask):
    return mask.expand_dims(-1)


def _padding_pair(ms_padding_idx, checks=("backward",), twin=False):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.fc = torch.nn.Embedding(10, 4, padding_idx=0), torch.nn.Linear(4, 2)

        def forward(self, ids):
            return self.fc(self.emb(ids))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = _RowZeroGradEmbedding() if twin else ms.nn.Embedding(10, 4, padding_idx=ms_padding_idx)
            self.fc = ms.nn.Dense(4, 2)

        def construct(self, ids):
            return self.fc(self.emb(ids))

    weight_map = {"emb.weight": "emb.inner.embedding_table"} if twin else None
    case = PairedCase(name="pad", weight_map=weight_map, torch=T, mindspore=M, inputs={"ids": given(IDS)}, checks=checks,
                      optimizer="sgd" if "step" in checks else None)
    return run_item(Item(case, checks[0], "pynative", "cpu"))


def test_a_padding_idx_mindspore_holds_too_but_does_not_act_on_the_gradient():
    v = _padding_pair(0)
    (f,) = [f for f in v.localization.findings if f.rule == "gradient-option"]
    assert f.confirmed and "torch's with padding_idx=None" in f.cause
    assert "MindSpore's Embedding holds padding_idx=0 too, but it does not act on the gradient" in f.cause


def test_the_twin_that_stops_row_zeros_gradient_passes():
    assert _padding_pair(None, twin=True).status == "pass"


def test_scale_grad_by_freq_is_found_from_a_failing_step_check():
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.fc = torch.nn.Embedding(10, 4, scale_grad_by_freq=True), torch.nn.Linear(4, 2)

        def forward(self, ids):
            return self.fc(self.emb(ids))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb, self.fc = ms.nn.Embedding(10, 4), ms.nn.Dense(4, 2)

        def construct(self, ids):
            return self.fc(self.emb(ids))

    case = PairedCase(name="freq_step", torch=T, mindspore=M, inputs={"ids": given(IDS)}, checks=("step",),
                      optimizer="sgd", steps=2)
    v = run_item(Item(case, "step", "pynative", "cpu"))
    (f,) = [f for f in v.localization.findings if f.rule == "gradient-option"]
    assert f.confirmed and "scale_grad_by_freq=False" in f.cause
