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


def test_keywords_match_whole_words_only():
    from evaluation.score import matches_cause

    assert not matches_cause("eps", "", "the learning rate differs after 3 steps")
    assert matches_cause("eps", "", "LayerNorm eps=1e-05 in torch, 1e-07 in MindSpore")
    assert matches_cause("-inf|masked_fill", "", "fill with -inf before softmax")


def test_a_cause_pattern_reads_only_the_cause_and_fix_fields():
    from evaluation.score import Said, is_fix, matches_pattern

    eps = r"\beps(ilon)?\b[^.]*1e-0?5"
    assert matches_pattern(eps, Said("x", "GroupNorm eps differs: 1e-05 vs 1e-2", "", False, "medium", None))
    assert matches_pattern(eps, Said("x", "", "nn.GroupNorm(2, 6, eps=1e-05)", True, "high", True))
    # the rule id and a vague cause do not count
    assert not matches_pattern(eps, Said("layernorm-eps", "values differ after 3 steps (1e-05)", "", False, "low", None))
    assert is_fix("nn.GroupNorm(2, 6, eps=1e-2)") and not is_fix("none shown (no candidate fix re-ran to agreement)")
    assert not is_fix("  ")


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_held_out_set_3_is_blind_sized_and_every_entry_has_a_precise_pattern():
    import re

    from evaluation.corpus import heldout3

    found = heldout3.ENTRIES
    assert sum(e.family == "h3" for e in found) >= 25 and sum(e.family == "h3-port" for e in found) >= 4
    for e in found:
        assert e.name.startswith(("h3_", "h3p_")) and e.cause_pattern, e.name
        re.compile(e.cause_pattern)
        assert not re.search(e.cause_pattern, "no known-difference rule matched; values differ", re.IGNORECASE), e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_scoring_one_held_out_entry_reads_a_real_verdict():
    from evaluation.corpus import heldout3_ops
    from evaluation.score import details, run_all, table

    [score] = run_all([heldout3_ops.cumsum_exclusive], progress=False)
    assert score.detected and score.false_alarm == "" and score.defects == 1
    assert score.causes_confirmed <= score.causes_named and score.fixes_printed <= score.causes_named
    assert "held-out 3 single-API (h3)" in "\n".join(table([score], "t"))
    assert details([score])[2].startswith("| h3_reverse_cumsum_exclusive | h3 |")


def test_a_localization_that_raised_is_said_in_the_score_not_scored_silently():
    from types import SimpleNamespace

    from evaluation.score import score_entry

    entry = SimpleNamespace(name="e", family="h0", layers=("fc",), causes=("eps",), cause_pattern=None)
    failed = SimpleNamespace(status="xfail", localization=None, message="value: outputs differ", error="",
                             notes=("localization failed: KeyError: 'wte'",))
    score = score_entry(entry, [failed], [], 0.1)
    assert score.said.startswith("[localization failed: KeyError: 'wte'] value: outputs differ")
    quiet = SimpleNamespace(status="xfail", localization=None, message="value: outputs differ", error="", notes=())
    assert score_entry(entry, [quiet], [], 0.1).said == "value: outputs differ"
