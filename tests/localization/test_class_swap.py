"""A layer ported as another class, and two settings that explain a difference only together: both found by
re-runs (the port's class computes another torch class; the counterpart with torch's settings agrees)."""
import pytest

from migcheck import PairedCase, uniform
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _net(torch_act, ms_act):
    def pt():
        import torch

        return torch.nn.Sequential(torch.nn.Linear(4, 6), torch_act())

    def port():
        import mindspore.nn as mnn

        return mnn.SequentialCell(mnn.Dense(4, 6), ms_act())

    return PairedCase(name="net", torch=pt, mindspore=port, inputs={"x": uniform(8, 4, low=-50.0, high=50.0)},
                      checks=("forward",), weight_map={"0.weight": "0.weight", "0.bias": "0.bias"})


def _findings(case):
    v = run_item(Item(case, "forward", "pynative", "cpu"))
    return v, (v.localization.findings if v.localization else ())


def _torch(name, **kw):
    import torch

    return lambda: getattr(torch.nn, name)(**kw)


def _ms(name, **kw):
    import mindspore.nn as mnn

    return lambda: getattr(mnn, name)(**kw)


def test_relu6_ported_as_relu_is_confirmed_and_the_class_fix_checked():
    v, findings = _findings(_net(_torch("ReLU6"), _ms("ReLU")))
    (f,) = [f for f in findings if f.rule == "class-swap"]
    assert v.status == "fail" and f.confirmed and f.confidence == "high" and f.fix_checked
    assert "torch's ReLU6 was ported as MindSpore's ReLU, which computes torch's ReLU" in f.cause
    assert f.fix == "use mindspore.nn.ReLU6()"


def test_sigmoid_ported_as_hsigmoid_names_what_the_port_computes():
    _, findings = _findings(_net(_torch("Sigmoid"), _ms("HSigmoid")))
    (f,) = [f for f in findings if f.rule == "class-swap"]
    assert "which computes torch's Hardsigmoid" in f.cause and f.fix == "use mindspore.nn.Sigmoid()"


@pytest.mark.parametrize("t, m", [("ReLU6", "ReLU6"), ("Sigmoid", "Sigmoid")])
def test_the_right_class_passes(t, m):
    v, findings = _findings(_net(_torch(t), _ms(m)))
    assert v.status == "pass" and not findings


def test_two_settings_that_explain_it_only_together():
    v, findings = _findings(_net(_torch("Hardtanh", min_val=-2.0, max_val=2.0), _ms("Hardtanh", min_val=-1.0, max_val=1.0)))
    f = findings[0]
    assert v.status == "fail" and f.confirmed and f.fix_checked
    assert "min_val differs" in f.cause and "max_val differs" in f.cause and "together" in f.cause
    assert f.fix == "min_val=-2.0, max_val=2.0"


def test_hardtanh_twin_passes():
    v, findings = _findings(_net(_torch("Hardtanh", min_val=-2.0, max_val=2.0), _ms("Hardtanh", min_val=-2.0, max_val=2.0)))
    assert v.status == "pass" and not findings
