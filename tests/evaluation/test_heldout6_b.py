"""Held-out set 6, half b (evaluation/corpus/heldout6_b.py, heldout6_b_ports.py): the entries load, are well formed
and named uniquely.

The scoring run is not part of the suite; one cheap entry's two cases are run here to show the pair is live.
"""
import re

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus import heldout6_b, heldout6_b_ports
    return heldout6_b.ENTRIES + heldout6_b_ports.ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 12
    assert sum(e.family == "h6-port" for e in entries) == 8
    for e in entries:
        assert e.problems() == [], e.name
        assert e.name.startswith("h6b_port_" if e.family == "h6-port" else "h6b_"), e.name
        assert e.family in ("h6", "h6-port")
        assert e.cause_pattern, e.name
        re.compile(e.cause_pattern)


def test_registered_and_names_unique_across_the_corpora():
    from evaluation.corpus import entries, heldout6
    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= {e.name for e in heldout6.ENTRIES} <= set(names)


def test_gradient_only_entries_fail_in_backward_only():
    grads = [e for e in _entries() if "backward" in (e.correct.checks or ())]
    assert len(grads) == 2
    for e in grads:
        assert e.naive.fails_on == ("backward",), e.name


def test_one_pair_is_live():
    import migcheck
    e = next(x for x in _entries() if x.name == "h6b_cosine_similarity_eps_product_of_norms")
    statuses = []
    for case in (e.naive, e.correct):
        result = migcheck.run([case], modes=("pynative",))
        statuses.append([str(getattr(v.status, "value", v.status)) for v in result.verdicts])
    assert statuses == [["xfail"], ["pass"]]
