"""The optimizer argument search: candidates from the two optimizers as built, a fix printed only when the port's
steps re-run with it agree with torch's over at least three steps; the correct twins pass with no finding."""
import pytest

from migcheck import FrameworkPair, PairedCase, uniform
from migcheck.localization.optimizer_search import candidates, differing_settings, torch_value_for
from migcheck.planning.items import Item
from migcheck.runners.base import Argument, Constructor
from migcheck.running.pipeline import run_item


def _arg(name, value, found=True):
    return Argument(name, value, found, True, value)


def test_torch_settings_align_by_meaning_and_betas_split():
    settings = {"lr": 0.1, "alpha": 0.9, "betas": (0.8, 0.99), "initial_accumulator_value": 0, "foreach_x": 1}
    assert torch_value_for("decay", settings) == ("alpha", 0.9)
    assert torch_value_for("beta2", settings) == ("betas", 0.99)
    assert torch_value_for("accum", settings) == ("initial_accumulator_value", 0)
    assert torch_value_for("use_locking", settings) == ("", None)


def test_candidates_come_from_the_ports_own_arguments():
    port = Constructor("Adagrad", True, (_arg("accum", 0.1, found=False), _arg("learning_rate", 0.1),
                                         _arg("update_slots", True, found=False)))
    others = [Constructor("ProximalAdagrad", True, (_arg("accum", 0.1), _arg("learning_rate", 0.001))),
              Constructor("Adam", True, (_arg("eps", 1e-8),)), Constructor("OptTFTWrapper", True, ())]
    found = candidates(port, others, "Adagrad", {"lr": 0.1, "initial_accumulator_value": 0})
    assert found[0].changes == (("accum", 0.0),) and isinstance(found[0].changes[0][1], float)
    assert found[1].changes == (("update_slots", False),)  # a boolean flipped
    assert [c.class_name for c in found[2:]] == ["ProximalAdagrad", "Adam"]  # nearest first; no signature: not tried
    assert found[2].kept == (("learning_rate", 0.1),)  # the port's own learning rate goes with the other class
    assert differing_settings(port, "Adagrad", {"lr": 0.1, "initial_accumulator_value": 0}) == [
        "initial_accumulator_value: torch Adagrad 0, MindSpore Adagrad.accum 0.1"]


def test_an_unread_learning_rate_is_a_schedule_and_is_left_alone():
    port = Constructor("SGD", True, (_arg("learning_rate", 0.1, found=False),))
    assert candidates(port, [], "SGD", {"lr": 0.5}) == []


def _torch_adagrad(params):
    import torch

    return torch.optim.Adagrad(params, lr=0.1)


def _ms_adagrad_default(params):
    import mindspore

    return mindspore.nn.Adagrad(params, learning_rate=0.1)


def _ms_adagrad_zero(params):
    import mindspore

    return mindspore.nn.Adagrad(params, learning_rate=0.1, accum=0.0)


def _torch_nesterov(params):
    import torch

    return torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True)


def _ms_momentum(params):
    import mindspore

    return mindspore.nn.Momentum(params, 0.1, 0.9)  # positional, as ports often write it


def _ms_sgd_nesterov(params):
    import mindspore

    return mindspore.nn.SGD(params, learning_rate=0.1, momentum=0.9, nesterov=True)


def _case(torch_optimizer, ms_optimizer, steps=1):
    def mlp():
        import torch

        return torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))

    def ms_mlp():
        import mindspore

        return mindspore.nn.SequentialCell(mindspore.nn.Dense(4, 5), mindspore.nn.Tanh(), mindspore.nn.Dense(5, 3))

    return PairedCase(name="opt", torch=mlp, mindspore=ms_mlp, inputs={"x": uniform(6, 4)}, checks=("step",),
                      steps=steps, optimizer=FrameworkPair(torch=torch_optimizer, mindspore=ms_optimizer))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_adagrad_accumulator_default_is_fixed_by_a_rerun():
    v = run_item(Item(_case(_torch_adagrad, _ms_adagrad_default), "step", "pynative", "cpu"))
    assert v.status == "fail", v.message
    (f,) = v.localization.findings
    assert f.fix == "mindspore.nn.Adagrad(params, ..., accum=0.0)" and f.fix_checked and f.confidence == "high"
    assert "Adagrad.accum is 0.1 where torch's Adagrad has initial_accumulator_value=0" in f.cause
    assert "over 3 step(s)" in f.evidence  # one step would let AdaMax pass for Adagrad: its first update is the same


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_adagrad_with_a_zero_accumulator_passes():
    """MindSpore's Adagrad has no eps: one weight whose gradient is near zero moves 1e-5 off, beyond the float64
    budget but within rtol/atol, and no re-run confirms a cause: it passes, with nothing to fix."""
    v = run_item(Item(_case(_torch_adagrad, _ms_adagrad_zero), "step", "pynative", "cpu"))
    assert v.status == "pass", v.message
    assert v.localization is None or not v.localization.findings


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_nesterov_sgd_ported_as_momentum_is_fixed_by_the_class_that_steps_alike():
    """Momentum(use_nesterov=True) is tried first and does not agree (its update is not torch's Nesterov form);
    mindspore.nn.SGD with torch's settings does, with the port's own learning rate passed on."""
    v = run_item(Item(_case(_torch_nesterov, _ms_momentum, steps=2), "step", "pynative", "cpu"))
    assert v.status == "fail", v.message
    (f,) = [f for f in v.localization.findings if f.fix_checked]
    assert f.fix.startswith("mindspore.nn.SGD(params, learning_rate=0.1, momentum=0.9") and "nesterov=True" in f.fix
    assert "use_nesterov=True (torch's nesterov)" in f.evidence  # tried, and it did not agree


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_sgd_with_nesterov_passes():
    v = run_item(Item(_case(_torch_nesterov, _ms_sgd_nesterov, steps=2), "step", "pynative", "cpu"))
    assert v.status == "pass", v.message


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_an_optimizer_no_argument_fixes_prints_no_fix():
    """torch RMSprop(centered=True) against mindspore.nn.RMSProp: MindSpore's mean square starts at 1, so no
    argument makes the steps agree; mindspore.nn's namesake takes every torch setting, so torch's class in
    mindspore.experimental.optim is not put in its place. The differing settings are named, unconfirmed, and no
    fix is printed."""
    v = run_item(Item(_case(_torch_rms, _ms_rms(0.01)), "step", "pynative", "cpu"))
    (f,) = v.localization.findings
    assert not f.fix_checked and f.fix == "" and f.confidence == "medium"
    assert "centered: torch RMSprop True, MindSpore RMSProp.centered False" in f.cause
    assert "none re-ran to agreement" in f.evidence and "experimental" not in f.evidence


def _torch_adagrad_decay(params):
    import torch

    return torch.optim.Adagrad(params, lr=0.1, lr_decay=0.5)


def _ms_adagrad(params):
    import mindspore

    return mindspore.nn.Adagrad(params, accum=0.0, learning_rate=0.1)


def _ms_experimental_adagrad(params):
    import mindspore

    return mindspore.experimental.optim.Adagrad(params, lr=0.1, lr_decay=0.5)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_setting_no_mindspore_nn_argument_holds_is_fixed_by_torchs_class_in_mindspore_experimental_optim():
    v = run_item(Item(_case(_torch_adagrad_decay, _ms_adagrad, steps=3), "step", "pynative", "cpu"))
    assert v.status == "fail"
    (f,) = v.localization.findings
    assert f.rule == "optimizer-torch-class" and f.fix_checked and f.confidence == "high"
    assert f.fix.startswith("mindspore.experimental.optim.Adagrad(params, lr_decay=0.5, lr=0.1)"), f.fix
    assert "torch's lr_decay=0.5 has no argument in mindspore.nn.Adagrad" in f.cause


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_torchs_adagrad_in_mindspore_experimental_optim_passes():
    assert run_item(Item(_case(_torch_adagrad_decay, _ms_experimental_adagrad, steps=3), "step", "pynative",
                         "cpu")).status == "pass"


def _torch_rms(params):
    import torch

    return torch.optim.RMSprop(params, lr=0.01, alpha=0.9, centered=True)


def _ms_rms(rate):
    def build(params):
        import mindspore

        return mindspore.nn.RMSProp(params, learning_rate=rate, decay=0.9)

    return build


def _norm_case(ms_optimizer):
    def net():
        import torch

        return torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.LayerNorm([5]), torch.nn.Linear(5, 3))

    def ms_net():
        import mindspore

        return mindspore.nn.SequentialCell(mindspore.nn.Dense(4, 5), mindspore.nn.LayerNorm((5,), epsilon=1e-5),
                                           mindspore.nn.Dense(5, 3))

    def torch_sgd(params):
        import torch

        return torch.optim.SGD(params, lr=0.1, weight_decay=0.2)

    return PairedCase(name="decay", torch=net, mindspore=ms_net, inputs={"x": uniform(6, 4)}, checks=("step",),
                      optimizer=FrameworkPair(torch=torch_sgd, mindspore=ms_optimizer))


def _ms_sgd_float_decay(params):
    import mindspore

    return mindspore.nn.SGD(params, learning_rate=0.1, weight_decay=0.2)  # skips gamma/beta


def _ms_sgd_grouped_decay(params):
    import mindspore

    return mindspore.nn.SGD([{"params": params, "weight_decay": 0.2}], learning_rate=0.1)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_weight_decay_that_skips_the_norms_is_fixed_by_a_grouped_rerun():
    v = run_item(Item(_norm_case(_ms_sgd_float_decay), "step", "pynative", "cpu"))
    (f,) = v.localization.findings
    assert (f.rule, f.confidence, f.fix_checked) == ("weight-decay-filter", "high", True), f
    assert "[{'params': net.trainable_params(), 'weight_decay': 0.2}]" in f.fix


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_the_weight_decay_given_in_a_group_passes():
    assert run_item(Item(_norm_case(_ms_sgd_grouped_decay), "step", "pynative", "cpu")).status == "pass"
