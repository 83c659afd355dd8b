"""Held-out set 9, half b: entries load, are well formed, uniquely named and registered; one cheap pair runs."""
import pytest


def _half_b():
    from evaluation.corpus import heldout9_b

    return heldout9_b.ENTRIES


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout9_b_entries_well_formed():
    from migcheck.case import case_problems

    found = _half_b()
    names = [e.name for e in found]
    assert len(names) == 13 and len(set(names)) == len(names)
    assert all(n.startswith("h9b_") for n in names)
    assert {e.family for e in found} == {"h9", "h9-port"}
    assert sum(e.family == "h9-port" for e in found) == 8
    for e in found:
        assert e.problems() == [], e.name
        assert e.cause_pattern, e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout9_b_registered():
    from evaluation.corpus import entries

    registered = [e.name for e in entries(thirdparty=False)]
    assert len(set(registered)) == len(registered)
    assert {e.name for e in _half_b()} <= set(registered)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout9_b_cheap_pair():
    import migcheck

    (e,) = [e for e in _half_b() if e.name == "h9b_layernorm_int_normalized_shape_raises"]
    for case in (e.naive, e.correct):
        result = migcheck.run([case])
        assert all(v.as_expected for v in result.verdicts), case.name
