"""Held-out set 5, half c (evaluation/corpus/heldout5_c*.py): the entries load, are well formed and registered.

Running every port is the scorer's job (python -m evaluation.score -k h5c); one cheap pair runs here.
"""
import re

import pytest


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_half_c_entries_are_well_formed_unique_and_registered():
    from evaluation.corpus import entries, heldout5, heldout5_c
    from migcheck.case import case_problems

    found = heldout5_c.ENTRIES
    assert 9 <= len(found) <= 10
    names = [e.name for e in found]
    assert len(set(names)) == len(names) and all(n.startswith("h5c_port_") for n in names)
    assert all(e in heldout5.ENTRIES for e in found)
    everything = [e.name for e in entries(thirdparty=False)]
    assert len(set(everything)) == len(everything) and set(names) <= set(everything)
    for e in found:
        assert e.problems() == [], e.name
        assert e.family == "h5-port" and e.cause_pattern, e.name
        re.compile(e.cause_pattern)
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_one_pair_fails_and_passes_as_declared():
    import migcheck
    from evaluation.corpus.heldout5_c import ENTRIES

    e = next(x for x in ENTRIES if x.name == "h5c_port_clip_mlp_quick_gelu_as_gelu")
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    status = {v.case: str(getattr(v.status, "value", v.status)) for v in result.verdicts}
    assert status[e.naive.name] == "xfail" and status[e.correct.name] == "pass", status
