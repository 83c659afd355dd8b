"""Localization and diagnosis through the engine, on the bundled deep networks and known-bad ports."""
from pathlib import Path

import pytest

from migcheck.planning.discovery import load_file
from migcheck.options import RunOptions
from migcheck.running.pipeline import Item, run_item
from migcheck.serialize import verdict_from_json, verdict_to_json

CASES = Path(__file__).resolve().parents[2] / "cases"


def case(file, name):
    return next(c for c in load_file(CASES / file).cases if c.name == name)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_planted_maxpool_defect_is_localized_to_its_layer_with_the_cause(mode):
    v = run_item(Item(case("localization.py", "deep_cnn_maxpool_same"), "forward", mode, "cpu"))
    assert v.status == "xfail"
    loc = v.localization
    assert (loc.first_divergence, loc.first_divergence_ms) == ("stages.2.pool", "stages.2.pool")
    assert [f.rule for f in loc.findings] == ["pad-mode"] and "padding=1" in loc.findings[0].fix
    rows = {r.torch_name: r for r in loc.rows}
    assert rows["stages.2.pool"].isolated_ok is False  # wrong on its own
    assert rows["stages.3.conv"].inputs_ok is False and rows["stages.3.conv"].isolated_ok is True  # drift only
    assert all(r.outputs_ok for r in loc.rows if r.order < rows["stages.2.pool"].order and r.ms_name)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_planted_layernorm_epsilon_is_localized_inside_a_vit_block():
    v = run_item(Item(case("localization.py", "vit_layernorm_eps"), "forward", "pynative", "cpu"))
    assert v.status == "xfail" and "diagnosed as expected (layernorm-eps)" in v.message
    assert v.localization.first_divergence == "blocks.2.norm2"
    assert "torch 0.001, MindSpore 1e-07" in v.localization.findings[0].cause


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_state_and_update_failures_are_explained_from_the_failing_tensors():
    momentum = run_item(Item(case("training.py", "bn_momentum_complement"), "train", "pynative", "cpu"))
    assert momentum.status == "xfail" and [f.rule for f in momentum.localization.findings] == ["batchnorm-momentum"]
    assert momentum.localization.first_divergence is None  # outputs agree; the running statistics do not
    (found,) = momentum.localization.findings
    # the fix re-run on the port: its BatchNorm rebuilt with momentum=0.9 gives torch's running statistics
    assert found.fix == "momentum=0.9" and found.confirmed and found.fix_checked, found
    decay = run_item(Item(case("training.py", "sgd_weight_decay_filter"), "step", "pynative", "cpu"))
    assert [(f.rule, f.confidence) for f in decay.localization.findings] == [("weight-decay-filter", "high")]
    # Stage blame: the gradients agree, so the optimizer is blamed, never a "first gradient divergence".
    assert decay.localization.summary.startswith("the optimizer update: the loss and all 6 gradients agree")
    assert "MindSpore does not decay 'bn.bias', 'bn.weight'" in decay.localization.summary


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_a_wrong_diagnosis_turns_an_expected_failure_into_a_failure():
    import dataclasses

    wrong = dataclasses.replace(case("localization.py", "vit_layernorm_eps"), diagnosis="gelu-approximate")
    v = run_item(Item(wrong, "forward", "pynative", "cpu"))
    assert v.status == "fail" and "expects 'gelu-approximate'" in v.message


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_passing_verdicts_carry_no_localization_and_it_survives_json():
    assert run_item(Item(case("localization.py", "deep_cnn"), "forward", "pynative", "cpu")).localization is None
    v = run_item(Item(case("localization.py", "deep_cnn_maxpool_same"), "forward", "pynative", "cpu"))
    back = verdict_from_json(verdict_to_json(v))
    assert back.localization == v.localization


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_localization_is_skipped_with_a_note_in_golden_mode(tmp_path):
    from migcheck.cli import main

    file = str(CASES / "localization.py")
    assert main(["record", file, "-k", "deep_cnn_maxpool_same", "--check", "forward", "--fixtures", str(tmp_path)]) == 0
    v = run_item(Item(case("localization.py", "deep_cnn_maxpool_same"), "forward", "pynative", "cpu"),
                 RunOptions(golden=str(tmp_path)))
    assert v.localization is None and any("skipped with --golden" in n for n in v.notes)
