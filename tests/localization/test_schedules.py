"""Learning-rate schedules: per-step rates read on both sides, the difference named and confirmed by
re-running torch's steps with MindSpore's rates; the correct twins pass."""
import numpy as np
import pytest

from migcheck import FrameworkPair, PairedCase, given
from migcheck.localization.schedules import pattern
from migcheck.planning.items import Item
from migcheck.running.pipeline import run_item

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]
torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def _t():
    return torch.nn.Linear(4, 2)


def _m():
    return ms.nn.Dense(4, 2)


def _run(schedule, ms_lr):
    case = PairedCase(name="sched", torch=_t, mindspore=_m, inputs={"x": given(X)}, checks=("step",), steps=4,
                      optimizer=FrameworkPair(torch=lambda p: torch.optim.SGD(p, lr=0.1),
                                              mindspore=lambda p: ms.nn.SGD(p, learning_rate=ms_lr())),
                      lr_schedule=schedule)
    return run_item(Item(case, "step", "pynative", "cpu"))


def _step_lr(opt):
    return torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)


def _warmup(opt):
    return torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)


def test_step_decay_ported_as_exponential_decay_is_named_and_confirmed():
    v = _run(_step_lr, lambda: ms.nn.ExponentialDecayLR(0.1, 0.5, 1))
    assert v.status == "fail"
    (f,) = v.localization.findings
    assert f.rule == "lr-schedule" and f.confirmed and f.confidence == "high" and f.fix_checked
    assert "from step 2" in f.cause and "StepLR(step_size=2, gamma=0.5" in f.cause
    assert "[0.1, 0.1, 0.05, 0.05] (multiplied by 0.5 every 2 steps (step decay))" in f.cause
    assert "[0.1, 0.05, 0.025, 0.0125] (multiplied by 0.5 every step (exponential))" in f.cause
    assert "ExponentialDecayLR" in f.cause and "reproduce MindSpore's steps" in f.evidence
    # the fix, stepped on the port: the schedule class that gives torch's rates, built from torch's settings
    assert f.fix.endswith("learning_rate=mindspore.nn.ExponentialDecayLR(learning_rate=0.1, decay_rate=0.5,"
                          " decay_steps=2, is_stair=True))"), f.fix
    assert "gives torch's rates over 12 steps" in f.evidence
    assert "rebuilt with mindspore.nn.ExponentialDecayLR(" in f.evidence and "stepped 4 steps agrees" in f.evidence


def test_the_stair_exponential_twin_passes():
    assert _run(_step_lr, lambda: ms.nn.ExponentialDecayLR(0.1, 0.5, 2, is_stair=True)).status == "pass"


def test_a_warm_up_one_step_late_is_named_from_the_first_step():
    v = _run(_warmup, lambda: ms.nn.WarmUpLR(0.1, 4))
    (f,) = v.localization.findings
    assert f.rule == "lr-schedule" and f.confirmed and "from step 1" in f.cause
    assert "[0.025, 0.05, 0.075, 0.1]" in f.cause and "[0, 0.025, 0.05, 0.075]" in f.cause
    # no schedule class gives a warm-up that starts above 0: torch's rates as a list, checked on the port
    assert f.fix_checked and f.fix.endswith("learning_rate=[0.025, 0.05, 0.075, 0.1])")
    assert "none gives torch's rates" in f.evidence


def test_the_warm_up_twin_as_a_list_of_rates_passes():
    assert _run(_warmup, lambda: [0.025, 0.05, 0.075, 0.1]).status == "pass"


def test_patterns_are_read_off_the_rates():
    assert pattern([0.1, 0.1, 0.1]) == "constant"
    assert pattern([0.1, 0.05, 0.025]) == "multiplied by 0.5 every step (exponential)"
    assert pattern([0.1, 0.1, 0.1, 0.01, 0.01, 0.01]) == "multiplied by 0.1 every 3 steps (step decay)"
    assert pattern([0.025, 0.05, 0.075, 0.1, 0.1]) == "rising linearly for 3 steps (warm-up), then constant"
    assert pattern([0.0, 0.05, 0.1, 0.075, 0.05]) == "rising linearly for 2 steps (warm-up), then changing linearly by -0.025 per step"
    assert pattern([0.3, 0.1, 0.7]) == "no simple rule"


def test_a_piecewise_constant_schedule_is_written_with_its_milestones():
    from migcheck.localization.schedule_fix import piecewise, schedule_code

    assert piecewise([0.1, 0.1, 0.05, 0.05]) == ([2, 4], [0.1, 0.05])
    assert schedule_code("learning_rate", [0.1, 0.1, 0.05]) == (
        "learning_rate=mindspore.nn.piecewise_constant_lr([2, 3], [0.1, 0.05])")
    assert schedule_code("learning_rate", [0.0, 0.05]) == "learning_rate=[0.0, 0.05]"


def test_schedule_candidates_come_from_torchs_numbers_and_rates():
    from migcheck.localization.schedule_class import candidate_kwargs

    params = (("learning_rate", None), ("decay_rate", None), ("decay_steps", None), ("is_stair", False))
    found = candidate_kwargs(params, [("step_size", 2.0), ("gamma", 0.5)], [0.1, 0.1, 0.05, 0.05], no_default=None)
    assert {"learning_rate": 0.1, "decay_rate": 0.5, "decay_steps": 2, "is_stair": True} in found
    # a parameter nothing of torch's fills rules the class out
    assert candidate_kwargs((("milestones", None),), [], [0.1, 0.1], no_default=None) == []
