"""Parameters of the port's that no torch parameter sets, explained by what torch holds instead (unset_params.py,
param_fixes.with_unset_causes): a tensor torch ties to another name (re-run with it holding torch's tensor), a
layer torch builds without them (measured by building torch's layer with the setting flipped); the twins pass."""
import numpy as np
import pytest

from migcheck import PairedCase, given, uniform
from migcheck.localization.unset_params import tied_pairs
from migcheck.planning.items import Item
from migcheck.runners.base import ParamInfo
from migcheck.running.pipeline import run_item


def _info(name, shape, aliases=()):
    return ParamInfo(name, shape, "float32", "Linear", True, False, aliases)


def test_a_port_parameter_named_as_an_alias_of_torchs_tensor_is_tied_to_it():
    wte = _info("wte.weight", (16, 8), aliases=("lm_head.weight",))
    assert tied_pairs([wte], [_info("lm_head.weight", (16, 8))]) == [(wte, _info("lm_head.weight", (16, 8)))]
    assert tied_pairs([wte], [_info("head.weight", (16, 8))]) == []  # another name: not torch's alias
    assert tied_pairs([wte], [_info("lm_head.weight", (8, 16))]) == []  # another shape: not that tensor


torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")


def _layernorm(torch_affine: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 6)
            self.norm = torch.nn.LayerNorm(6, elementwise_affine=torch_affine)

        def forward(self, x):
            return self.norm(self.fc(x))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = ms.nn.Dense(4, 6)
            self.norm = ms.nn.LayerNorm((6,), epsilon=1e-5)

        def construct(self, x):
            return self.norm(self.fc(x))

    case = PairedCase(name="ln_affine", torch=T, mindspore=M, inputs={"x": uniform(3, 4)}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_gamma_and_beta_of_a_layer_torch_builds_without_them_are_explained_by_torchs_setting():
    v = _layernorm(False)
    assert v.status == "fail" and v.kind == "structure"
    (finding,) = [f for f in v.localization.findings if f.rule == "parameters-torch-lacks"]
    assert finding.confirmed
    assert finding.cause.startswith("torch's LayerNorm 'norm' is built with elementwise_affine=False and holds no such"
                                    " parameters; the port's LayerNorm holds 'norm.gamma' [6], 'norm.beta' [6]")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_layernorm_with_torchs_affine_parameters_passes():
    assert _layernorm(True).status == "pass"


def _lm(tied: bool):
    class T(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = torch.nn.Embedding(10, 4)
            self.lm_head = torch.nn.Linear(4, 10, bias=False)
            self.lm_head.weight = self.wte.weight

        def forward(self, ids):
            return self.lm_head(self.wte(ids))

    class M(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.wte = ms.nn.Embedding(10, 4)
            self.lm_head = ms.nn.Dense(4, 10, has_bias=False)
            if tied:
                self.lm_head.weight = self.wte.embedding_table

        def construct(self, ids):
            return self.lm_head(self.wte(ids))

    case = PairedCase(name="lm_tied", torch=T, mindspore=M,
                      inputs={"ids": given(np.array([[1, 4, 9]], np.int64))}, checks=("forward",))
    return run_item(Item(case, "forward", "pynative", "cpu"))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_head_torch_ties_to_its_embedding_is_confirmed_by_a_re_run_with_the_shared_tensor():
    v = _lm(False)
    assert v.status == "fail"
    (finding,) = [f for f in v.localization.findings if f.rule == "tied-parameter"]
    assert finding.confirmed and finding.fix.startswith("share the Parameter as torch does")
    assert finding.cause.startswith("torch's 'lm_head.weight' is the same Parameter as 'wte.weight'")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_port_sharing_the_embedding_table_passes():
    assert _lm(True).status == "pass"
