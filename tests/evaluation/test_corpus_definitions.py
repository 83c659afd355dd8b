"""The evaluation corpora load and are well formed (the scoring run itself is not part of the suite: slow)."""
import pytest

from migcheck.case import case_problems


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_every_entry_has_both_ports_and_its_expected_layers_and_causes():
    from evaluation.corpus import entries

    found = entries()
    names = [e.name for e in found]
    assert len(set(names)) == len(names)
    assert sum(e.family != "real-port" for e in found) >= 40 and sum(e.family == "real-port" for e in found) >= 6
    for e in found:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        assert e.naive.torch is e.correct.torch or e.family == "optimizer" or e.naive.torch == e.correct.torch


def test_cause_and_layer_matching_is_strict_about_keywords():
    from evaluation.score import matches_cause

    assert matches_cause("pad-mode", "pad-mode", "")
    assert matches_cause("axis|dim", "op-softmax", "softmax computed with axis=-2")
    assert not matches_cause("eps", "pad-mode", "the padding each side applies differs")
