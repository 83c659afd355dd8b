"""The init check end to end on the bundled cases: known-bad ports fail naming both sides, twins pass."""
import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

from migcheck.options import RunOptions  # noqa: E402
from migcheck.planning.discovery import load_file  # noqa: E402
from migcheck.planning.items import plan  # noqa: E402
from migcheck.running.pipeline import Item, run_item  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASES = {c.name: c for c in load_file(ROOT / "cases" / "init_defaults.py").cases}


def test_embedding_std_difference_is_caught_naming_both_layers():
    v = run_item(Item(CASES["embedding_init_default"], "init", "pynative", "cpu"))
    assert (v.status, v.kind) == ("xfail", "value")
    assert "torch Embedding 'weight' / MindSpore Embedding 'embedding_table'" in v.message
    assert "std 0.00" in v.message and "KS" in v.message


def test_mindspore_1x_dense_and_conv_defaults_are_caught():
    v = run_item(Item(CASES["conv_dense_init_v1"], "init", "pynative", "cpu"))
    assert (v.status, v.kind) == ("xfail", "value")
    failing = sorted(t.name for t in v.tensors if not t.ok)
    assert failing == ["init.conv.bias", "init.conv.weight", "init.fc.bias", "init.fc.weight"]


@pytest.mark.parametrize("twin", ["embedding_init_normal_1", "conv_dense_init_default"])
def test_correct_twins_pass_under_several_seeds(twin):
    # The seeds derive from the case name: three names, three independent sets of builds.
    for k in range(3):
        case = dataclasses.replace(CASES[twin], name=f"{twin}_{k}")
        v = run_item(Item(case, "init", "pynative", "cpu"))
        assert v.status == "pass", v.message


def test_init_is_opt_in_and_pynative_only():
    case = dataclasses.replace(CASES["conv_dense_init_default"], checks=None)
    assert {i.check for i in plan([case], RunOptions())} == {"forward", "backward", "train"}
    items = plan([case], RunOptions(checks=("init",)))
    assert [(i.check, i.mode) for i in items] == [("init", "pynative"), ("init", "graph")]
    assert run_item(items[1]).status == "skip"
