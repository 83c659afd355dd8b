"""When the first update agrees and later ones differ: the optimizer hyperparameter that makes the state evolve
differently, confirmed by re-running torch's steps with MindSpore's value (and no false cause on the twin)."""
import pytest

from migcheck import FrameworkPair, PairedCase, uniform
from migcheck.localization.optimizer_state import differing
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item


def test_only_hyperparameters_held_differently_are_candidates():
    torch_groups = {"fc.weight": {"lr": 0.05, "betas": (0.9, 0.98), "eps": 1e-8, "amsgrad": False}}
    ms_groups = {"fc.weight": {"lr": 0.05, "betas": (0.9, 0.999), "eps": 1e-8, "amsgrad": 0.0}}
    assert differing(torch_groups, ms_groups) == [("betas", (0.9, 0.98), (0.9, 0.999))]


def _torch_adam(params):
    import torch

    return torch.optim.Adam(params, lr=0.05, betas=(0.9, 0.98))


def _ms_adam_default_betas(params):
    import mindspore

    return mindspore.nn.Adam(params, learning_rate=0.05)


def _ms_adam_same_betas(params):
    import mindspore

    return mindspore.nn.Adam(params, learning_rate=0.05, beta1=0.9, beta2=0.98)


def _case(ms_optimizer):
    def linear():
        import torch

        return torch.nn.Linear(4, 3)

    def dense():
        import mindspore

        return mindspore.nn.Dense(4, 3)

    def losses():
        import mindspore
        import torch

        return FrameworkPair(torch=torch.nn.MSELoss, mindspore=mindspore.nn.MSELoss)

    return PairedCase(name="adam", torch=linear, mindspore=dense, inputs={"x": uniform(8, 4), "y": uniform(8, 3)},
                      targets=("y",), loss=FrameworkPair(torch=lambda: losses().torch(), mindspore=lambda: losses().mindspore()),
                      checks=("step",), steps=6, optimizer=FrameworkPair(torch=_torch_adam, mindspore=ms_optimizer))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_adam_beta2_left_at_its_default_is_confirmed():
    v = run_item(Item(_case(_ms_adam_default_betas), "step", "pynative", "cpu"))
    assert v.status == "fail", v.message
    # named by the betas rule, or by the optimizer argument search's re-run (which also checks the fix)
    (f,) = [f for f in v.localization.findings if "beta" in f.cause]
    assert f.confirmed and f.confidence == "high" and "0.98" in f.cause and "0.999" in f.cause, f.cause
    assert f.rule == "optimizer-betas" or f.fix.endswith("beta2=0.98)"), f.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_same_betas_pass():
    v = run_item(Item(_case(_ms_adam_same_betas), "step", "pynative", "cpu"))
    assert v.status == "pass", v.message
