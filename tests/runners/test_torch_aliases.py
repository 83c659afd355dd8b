"""One torch module registered under two attribute names (diffusers' Downsample2D keeps its conv as `conv` and
`Conv2d_0`): its tensors are one parameter, mapped through whichever name the port uses."""
import mindspore.nn as mnn
import pytest
import torch.nn as tnn

import migcheck
from migcheck import PairedCase, uniform
from migcheck.mapping.transfer import map_weights
from migcheck.runners.base import ParamInfo

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


class TwoNamesPt(tnn.Module):
    def __init__(self):
        super().__init__()
        proj = tnn.Linear(3, 2)
        self.Conv2d_0 = proj  # registered first: the name named_parameters() keeps
        self.conv = proj

    def forward(self, x):
        return self.conv(x)


class OneNameMs(mnn.Cell):
    def __init__(self, scale=1.0):
        super().__init__()
        self.conv = mnn.Dense(3, 2)
        self.scale = scale

    def construct(self, x):
        return self.conv(x) * self.scale


def test_the_alias_a_port_uses_maps_and_the_twin_name_is_not_reported_unmapped():
    torch = [ParamInfo("Conv2d_0.weight", (2, 3), "float32", "Linear", True, False, aliases=("conv.weight",)),
             ParamInfo("Conv2d_0.bias", (2,), "float32", "Linear", True, False, aliases=("conv.bias",))]
    ms = [ParamInfo("conv.weight", (2, 3), "float32", "Dense", True, False),
          ParamInfo("conv.bias", (2,), "float32", "Dense", True, False)]
    m = map_weights(torch, ms)
    assert m.ok, m.problems()
    assert {(r.torch_name, r.ms_name, r.how) for r in m.pairs} == {
        ("Conv2d_0.weight", "conv.weight", "same name as torch alias 'conv.weight'"),
        ("Conv2d_0.bias", "conv.bias", "same name as torch alias 'conv.bias'")}


def test_a_module_held_under_two_names_passes_when_correct_and_fails_on_value_when_not():
    x = {"x": uniform(2, 3)}
    good = PairedCase(torch=TwoNamesPt, mindspore=OneNameMs, inputs=x, checks=("forward", "backward"),
                      modes=("pynative",), name="alias_ok")
    bad = PairedCase(torch=TwoNamesPt, mindspore=lambda: OneNameMs(scale=2.0), inputs=x, checks=("forward",),
                     modes=("pynative",), name="alias_bad", expect="fail", fails_with="value")
    result = migcheck.run([good, bad], modes=("pynative",))
    status = {v.item: (v.status, v.message) for v in result.verdicts}
    assert status["alias_ok[forward-pynative-cpu]"][0] == "pass", status
    assert status["alias_ok[backward-pynative-cpu]"][0] == "pass", status
    assert status["alias_bad[forward-pynative-cpu]"][0] == "xfail", status
