"""A rename rule whose replacement is a function of the match (as re.sub takes) works again."""
import pytest

from migcheck.mapping.rules import Explicit
from migcheck.mapping.transfer import map_weights
from migcheck.runners.base import ParamInfo


def P(name, shape=(3,), kind="Linear"):
    return ParamInfo(name, shape, "float32", kind, True, False)


def test_a_function_replacement_renames_through_the_match():
    rules = [(r"blocks\.(\d+)", lambda m: f"features.{int(m.group(1)) + 1}")]
    m = map_weights([P("blocks.0.weight"), P("blocks.1.weight")],
                    [P("features.1.weight", kind="Dense"), P("features.2.weight", kind="Dense")], rules)
    assert {(r.torch_name, r.ms_name, r.how) for r in m.pairs} == {
        ("blocks.0.weight", "features.1.weight", "rename #1"), ("blocks.1.weight", "features.2.weight", "rename #1")}
    assert m.ok


def test_a_function_returning_none_means_unused_and_chains_with_later_rules():
    rules = [(r"aux", lambda m: None), (r"head", lambda m: "fc")]
    m = map_weights([P("aux.weight"), P("head.weight")], [P("fc.weight", kind="Dense")], rules)
    assert [s.torch_name for s in m.skipped] == ["aux.weight"] and m.ms_name_for("head.weight") == "fc.weight"


def test_a_function_returning_something_else_is_refused_with_its_name_and_what_to_return():
    def renumber(match):
        return 7

    with pytest.raises(TypeError, match=r"renumber returned 7 for 'blocks.0.weight'; it must return the new text"):
        Explicit.of([(r"blocks\.(\d+)", renumber)]).target("blocks.0.weight")
