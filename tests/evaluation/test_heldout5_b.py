"""Held-out set 5, half b (evaluation/corpus/heldout5_b*.py): the entries load, are well formed and named uniquely.

The scoring run is not part of the suite; one cheap entry's two cases are run here to show the pair is live.
"""
import re

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus import heldout5_b
    return heldout5_b.ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) >= 13
    for e in entries:
        assert e.problems() == [], e.name
        assert e.name.startswith("h5b_port_" if e.family == "h5-port" else "h5b_"), e.name
        assert e.family in ("h5", "h5-port")
        assert e.cause_pattern, e.name
        re.compile(e.cause_pattern)


def test_names_are_unique_across_the_corpora():
    from evaluation.corpus import entries
    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_gradient_only_entries_fail_in_backward_only():
    grads = [e for e in _entries() if "backward" in (e.correct.checks or ())]
    assert len(grads) >= 2
    for e in grads:
        assert e.naive.fails_on == ("backward",), e.name


def test_one_pair_is_live():
    import migcheck
    e = next(x for x in _entries() if x.name == "h5b_kthvalue_via_topk_largest")
    statuses = []
    for case in (e.naive, e.correct):
        result = migcheck.run([case], modes=("pynative",))
        statuses.append([str(getattr(v.status, "value", v.status)) for v in result.verdicts])
    assert statuses == [["xfail"], ["pass"]]
