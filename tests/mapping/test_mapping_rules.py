"""weight_map semantics: rules match whole dotted components and chain, layer rules survive renames,
None means "no transform" / "unused", and rules or patterns that match nothing are said. Pure."""
import numpy as np
import pytest

from migcheck import PairedCase
from migcheck.case import case_problems
from migcheck.mapping.transfer import map_weights, to_mindspore
from migcheck.mapping.rules import tolerance_warnings
from migcheck.runners.base import ParamInfo


def P(name, shape, kind, trainable=True, buffer=False):
    return ParamInfo(name, tuple(shape), "float32", kind, trainable, buffer)


def pairs(mapping):
    return {r.torch_name: (r.ms_name, r.how) for r in mapping.pairs}


TORCH_BLOCK = [P("blocks.3.conv.weight", (4, 4, 1, 1), "Conv2d"), P("blocks.3.bn.weight", (4,), "BatchNorm2d"),
               P("blocks.3.bn.bias", (4,), "BatchNorm2d"), P("blocks.3.bn.running_mean", (4,), "BatchNorm2d", False, True),
               P("blocks.3.bn.running_var", (4,), "BatchNorm2d", False, True),
               P("blocks.3.bn.num_batches_tracked", (), "BatchNorm2d", False, True)]
MS_BLOCK = [P("features.3.conv.weight", (4, 4, 1, 1), "Conv2d"), P("features.3.norm.gamma", (4,), "BatchNorm2d"),
            P("features.3.norm.beta", (4,), "BatchNorm2d"), P("features.3.norm.moving_mean", (4,), "BatchNorm2d", False, True),
            P("features.3.norm.moving_variance", (4,), "BatchNorm2d", False, True)]


def test_a_partial_rule_renames_a_prefix_and_rules_chain_in_order():
    rules = [(r"blocks\.(\d+)", r"features.\1"), (r"bn", "norm")]
    m = map_weights(TORCH_BLOCK, MS_BLOCK, rules)
    assert m.ok, m.problems()
    got = pairs(m)
    assert got["blocks.3.conv.weight"] == ("features.3.conv.weight", "rename #1")
    # Both rules applied to one name, then BatchNorm's own leaf rule under the renamed prefix.
    assert got["blocks.3.bn.weight"] == ("features.3.norm.gamma", "rename #1, #2 + rule BatchNorm.weight->gamma")
    assert got["blocks.3.bn.running_var"][0] == "features.3.norm.moving_variance"
    assert [s.torch_name for s in m.skipped] == ["blocks.3.bn.num_batches_tracked"]
    assert m.warnings == ()


def test_a_rule_matches_whole_components_only():
    m = map_weights([P("myblocks.3.weight", (2,), "X")], [P("features.3.weight", (2,), "X")],
                    [(r"blocks\.(\d+)", r"features.\1")])
    assert pairs(m)["myblocks.3.weight"][1].startswith("structure")  # not renamed by the rule
    assert len(m.warnings) == 1 and "rule #1" in m.warnings[0] and "matches no torch parameter name" in m.warnings[0]


def test_a_catch_all_rule_replaces_once():
    m = map_weights([P("body.weight", (2,), "X")], [P("net.body.weight", (2,), "X")], [(r".*", r"net.\g<0>")])
    assert pairs(m) == {"body.weight": ("net.body.weight", "rename #1")}


def test_a_rule_to_none_skips_on_purpose():
    m = map_weights([P("aux.weight", (2,), "X"), P("w", (2,), "X")], [P("w", (2,), "X")], [(r"aux\..*", None)])
    assert m.ok and m.skipped[0].torch_name == "aux.weight" and "rename #1" in m.skipped[0].reason


def test_a_dict_key_naming_no_torch_parameter_is_a_warning():
    m = map_weights([P("fc.weight", (2, 2), "Linear")], [P("fc.weight", (2, 2), "Dense")], {"fc.wieght": "fc.weight"})
    assert m.ok and m.warnings == ("weight_map key 'fc.wieght' names no torch parameter (it is ignored)",)


def test_two_torch_names_sent_to_one_mindspore_name_is_a_problem():
    m = map_weights([P("a.w", (2,), "X"), P("b.w", (2,), "X")], [P("c.w", (2,), "X"), P("d.w", (2,), "X")],
                    [(r"a|b", "c")])
    assert any("torch 'a.w' and 'b.w' are both sent to MindSpore 'c.w'" in p for p in m.problems())


def test_none_means_no_transform_and_unmatched_transform_patterns_are_said():
    torch, ms = [P("fc.weight", (2, 3), "Linear")], [P("fc.weight", (2, 3), "Dense")]
    m = map_weights(torch, ms, transforms={"fc.*": None, "head.*": None})
    assert m.ok and {r.transform for r in m.pairs} == {""}
    assert m.warnings == ("weight_transforms['head.*'] matches no torch parameter name (it is ignored)",)
    assert map_weights(torch, ms, transforms=None).ok
    w = np.ones((2, 3), np.float32)
    assert to_mindspore({"fc.weight": w}, m)["fc.weight"] is w


def test_the_case_accepts_none_transforms_and_refuses_malformed_rules():
    case = PairedCase(torch=object, mindspore=object, inputs=[(2, 3)], weight_transforms=None)
    assert case_problems(case) == []
    bad = PairedCase(torch=object, mindspore=object, inputs=[(2, 3)], weight_map=[("(unclosed", "x")])
    assert any(p.startswith("weight_map:") and "docs/weight-mapping.md" in fix for p, fix in case_problems(bad))
    shape = PairedCase(torch=object, mindspore=object, inputs=[(2, 3)], weight_map=["fc.weight"])
    assert any(p.startswith("weight_map:") for p, _ in case_problems(shape))
    const = PairedCase(torch=object, mindspore=object, inputs=[(2, 3)], constant_params="gn.gamma")
    assert any(p.startswith("constant_params=") for p, _ in case_problems(const))


@pytest.mark.parametrize("pattern, check, warned", [
    ("out.logits", "forward", True),  # aimed at outputs, matches none: a typo
    ("out", "forward", False),
    ("grad.param.*", "forward", False),  # another check's tensors
    ("grad.param.fc.wieght", "backward", True),
    ("forward/out.x", "backward", False),  # names another check
])
def test_tolerance_patterns_that_match_nothing(pattern, check, warned):
    names = ["out"] if check == "forward" else ["grad.input.x", "grad.param.fc.weight"]
    got = tolerance_warnings([pattern], check, names)
    assert bool(got) == warned
    if warned:
        assert got[0].startswith(f"tolerances[{pattern!r}] matches none of this {check} item's tensors")
