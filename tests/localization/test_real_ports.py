"""Ports as porters write them (cases/real_ports.py): every defect's layer and confirmed cause, and the correct twins pass."""
from pathlib import Path

import pytest

from migcheck.options import RunOptions

from migcheck.planning.discovery import load_file
from migcheck.running.pipeline import Item, run_item

CASES = Path(__file__).resolve().parents[2] / "cases"


def run(name, options=None):
    c = next(c for c in load_file(CASES / "real_ports.py").cases if c.name == name)
    return run_item(Item(c, "forward", "pynative", "cpu"), *([options] if options else []))


@pytest.mark.parametrize("name", ["resnet_stem", "mobilenet_block", "vit_mlp", "functional_scale"])
def test_correct_twins_pass(name):
    v = run(name)
    assert v.status == "pass" and v.localization is None


@pytest.mark.parametrize("name, torch_layer, ms_layer", [
    ("resnet_stem_pool_same", "maxpool", "max_pool"),  # renamed, parameterless
    ("mobilenet_block_dw_same", "dw", "dw"),  # after a BN+activation fused on torch's side only
])
def test_pad_mode_defect_is_localized_confirmed_and_its_fix_checked(name, torch_layer, ms_layer):
    v = run(name)
    loc = v.localization
    assert v.status == "xfail" and (loc.first_divergence, loc.first_divergence_ms) == (torch_layer, ms_layer)
    (defect,) = loc.defects
    assert defect.confirmed and defect.confidence == "high" and defect.fix == "pad_mode='pad', padding=1"
    (finding,) = loc.findings  # the 1x1 stride-2 and the stride-1 3x3 'same' convs pad identically: no finding
    assert finding.rule == "pad-mode" and finding.fix_checked


def test_two_independent_defects_are_both_diagnosed_and_confirmed():
    loc = run("vit_mlp_two_defects").localization
    assert [(d.torch_name, d.ms_name, d.rule) for d in loc.defects] == [
        ("norm", "norm", "layernorm-eps"), ("gelu", "act", "gelu-approximate")]
    assert all(d.confirmed and d.fix for d in loc.defects)
    assert [f.fix for f in loc.findings] == ["epsilon=1e-06", "approximate=False"]


def test_functional_op_is_reported_between_two_sub_cells_with_its_signature():
    loc = run("functional_scale_wrong").localization
    assert loc.between.startswith("inside torch '<root>': between 'embed' output and 'proj' input")
    assert loc.between.endswith("; torch calls there: Tensor.mul(0.3536)")  # the forward's own op, recorded
    (defect,) = loc.defects
    # the op-level search: the port's own multiply, re-run with torch's scalar, makes the network agree
    assert defect.rule == "op-argument-search" and defect.confirmed and defect.confidence == "high"
    assert "op 'Tensor.__mul__' inside '<root>': inputs agree with torch's, output does not" in defect.cause
    assert defect.fix == "Tensor.__mul__(..., argument 1=0.125) -> Tensor.__mul__(..., argument 1=0.3535533905932738)"


def test_ill_conditioned_correct_port_passes_and_says_why():
    v = run("vit_mlp")  # LayerNorm of nearly constant rows: float32 noise is amplified on both sides
    assert v.status == "pass" and "error budget vs float64" in v.message  # the default judge measures it directly
    # Under rtol/atol the failure is re-judged against float64 and says why it passes.
    v = run("vit_mlp", RunOptions(tolerance_mode="standard"))
    assert v.status == "pass" and any("within what float32 can resolve" in n for n in v.notes)
