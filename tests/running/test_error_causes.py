"""A side that raises: the verdict names the cause MindSpore states, and the GRAPH hint is given only when a
PYNATIVE re-run shows that GRAPH alone fails (a shape bug in construct also carries GRAPH's banner)."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]



def _torch_linear():
    import torch
    return torch.nn.Linear(3, 3)


ms = pytest.importorskip("mindspore")  # GRAPH mode parses construct's source: the ports are real classes here
mnn, ops = ms.nn, ms.ops


class _Port(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = mnn.Dense(3, 3)


class Correct(_Port):
    def construct(self, x):
        return self.fc(x)


class TryExcept(_Port):  # GRAPH cannot compile try/except; PYNATIVE runs it
    def construct(self, x):
        try:
            return self.fc(x)
        except ValueError:
            return x


class ShapeBug(_Port):  # fails in both modes
    def construct(self, x):
        return ops.matmul(self.fc(x), x[:2])


class MintGelu(_Port):  # mindspore.mint's gelu has no CPU kernel in MindSpore 2.10
    def construct(self, x):
        return ms.mint.nn.functional.gelu(self.fc(x))


def _verdict(port, mode: str):
    case = PairedCase(name="port", torch=_torch_linear, mindspore=port, inputs={"x": uniform(2, 3)},
                      checks=("forward",), weight_map={"weight": "fc.weight", "bias": "fc.bias"})
    return run_item(Item(case, "forward", mode, "cpu"))


def test_graph_only_failure_is_confirmed_by_a_pynative_run():
    v = _verdict(TryExcept, "graph")
    assert v.kind == "graph-compile-error"
    assert "the same item runs in PYNATIVE (re-run)" in v.message and "PYNATIVE only" in v.message


def test_a_shape_bug_in_construct_gets_its_cause_and_no_graph_hint():
    v = _verdict(ShapeBug, "graph")
    assert v.kind == "error" and "GRAPH mode could not compile" not in v.message
    assert "cause: MindSpore's MatMul" in v.message and "input shapes" in v.message
    assert "PYNATIVE fails the same way (re-run): not a GRAPH-mode limit" in v.notes


def test_no_kernel_on_this_device_is_named():
    v = _verdict(MintGelu, "pynative")
    assert v.kind == "error" and "no GeluExt kernel on CPU" in v.message
    assert any(n.startswith("diagnosis [no-kernel]") for n in v.notes)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_the_correct_twin_passes_without_a_cause(mode):
    v = _verdict(Correct, mode)
    assert v.status == "pass" and not any(n.startswith("diagnosis") for n in v.notes), v.message


# --- where it raised, and the setting that makes it raise ---------------------------------------------

def _torch_norm_net():
    import torch

    class PtNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)
            self.norm = torch.nn.LayerNorm((3, 8))

        def forward(self, x):
            return self.norm(self.fc(x))

    return PtNet()


class MsNorm(mnn.Cell):
    """torch's LayerNorm((3, 8)) ported without begin_norm_axis (MindSpore normalizes from the last axis)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.fc = mnn.Dense(8, 8)
        self.ln = mnn.LayerNorm((3, 8), begin_norm_axis=axis, begin_params_axis=axis, epsilon=1e-5)

    def construct(self, x):
        return self.ln(self.fc(x))


def _norm_verdict(axis: int, mode: str = "pynative"):
    case = PairedCase(name="norm", torch=_torch_norm_net, mindspore=lambda: MsNorm(axis), inputs={"x": uniform(2, 3, 8)},
                      checks=("forward",))
    return run_item(Item(case, "forward", mode, "cpu"))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_the_raising_sub_cell_is_named_with_the_setting_whose_fix_was_re_run(mode):
    v = _norm_verdict(-1, mode)
    assert v.kind == "error"
    where = v.localization.summary
    (finding,) = v.localization.findings
    assert finding.rule == "layernorm-axes" and finding.confirmed and finding.fix_checked
    assert "raised inside MindSpore sub-cell 'ln' (LayerNorm), torch's 'norm' (LayerNorm) ran on the same inputs" in where
    assert "LayerNorm axes differ for a rank-3 input" in where
    assert "fix: begin_norm_axis=1, begin_params_axis=1 (re-run: the rebuilt sub-cell runs and agrees with torch)" in where


def test_the_twin_with_the_fix_applied_passes():
    assert _norm_verdict(1).status == "pass"


def test_a_raise_in_the_network_s_own_construct_names_no_setting():
    v = _verdict(ShapeBug, "pynative")
    assert v.localization is not None, (v.message, v.notes)
    where = v.localization.summary
    # the raise search may locate the raising op beside torch's call (medium), but confirms nothing and prints no fix
    assert all(not f.confirmed and f.confidence == "medium" and not f.fix for f in v.localization.findings)
    assert "raised in MindSpore's ShapeBug itself (the network; no sub-cell of it was running)" in where
    assert "fix:" not in where.replace("fix: none shown (no candidate fix re-ran to agreement)", "")
