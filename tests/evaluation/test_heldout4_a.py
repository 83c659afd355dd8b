"""Held-out set 4, half a (evaluation/corpus/heldout4_a*.py): well formed, uniquely named, precise patterns.

The scoring run is not part of the suite (slow); one cheap entry is run to show the pair still splits.
"""
import re

import pytest


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_half_a_entries_are_well_formed_and_uniquely_named():
    from evaluation.corpus import entries, heldout4, heldout4_a
    from migcheck.case import case_problems

    found = heldout4_a.ENTRIES
    names = [e.name for e in found]
    assert len(set(names)) == len(names)
    everything = [e.name for e in entries(thirdparty=False)]
    assert len(set(everything)) == len(everything)
    assert all(e in heldout4.ENTRIES for e in found)
    assert sum(e.family == "h4" for e in found) >= 10 and sum(e.family == "h4-port" for e in found) >= 4
    for e in found:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        assert e.name.startswith("h4a_port_" if e.family == "h4-port" else "h4a_"), e.name
        assert e.cause_pattern and e.naive.torch is e.correct.torch, e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_half_a_patterns_name_the_setting_not_a_generic_word():
    from evaluation.corpus import heldout4_a

    by_name = {e.name: e.cause_pattern for e in heldout4_a.ENTRIES}
    said = {
        "h4a_leaky_relu_default_alpha": ("use mindspore.nn.LeakyReLU(alpha=0.01)", "LeakyReLU slope differs"),
        "h4a_batchnorm1d_momentum_torch_value": ("nn.BatchNorm1d(8, momentum=0.9)", "running mean differs"),
        "h4a_lstm_batch_first_dropped": ("pass batch_first=True to nn.LSTM", "the LSTM output differs"),
        "h4a_port_convnext_layernorm_eps": ("nn.LayerNorm((4,), epsilon=1e-06)", "LayerNorm epsilon differs"),
        "h4a_port_gru_tagger_log_softmax_axis": ("ops.log_softmax(x, axis=1)", "softmax over the wrong axis"),
    }
    for name, (right, vague) in said.items():
        assert re.search(by_name[name], right, re.IGNORECASE), name
        assert not re.search(by_name[name], vague, re.IGNORECASE), name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_one_cheap_entry_still_splits():
    import migcheck
    from evaluation.corpus import heldout4_a

    e = next(x for x in heldout4_a.ENTRIES if x.name == "h4a_leaky_relu_default_alpha")
    naive = migcheck.run([e.naive], modes=("pynative",)).verdicts
    correct = migcheck.run([e.correct], modes=("pynative",)).verdicts
    assert naive and all(str(v.status.value) == "xfail" for v in naive)
    assert correct and all(str(v.status.value) == "pass" for v in correct)
