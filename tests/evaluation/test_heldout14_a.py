"""Held-out set 14, half a: the entries load, are well formed and have unique names; one cheap pair runs."""
import pytest

from migcheck.case import case_problems


def _entries():
    from evaluation.corpus import heldout14_a, heldout14_a_ports

    return heldout14_a.ENTRIES + heldout14_a_ports.ENTRIES


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout14_a_entries_are_well_formed_and_uniquely_named():
    found = _entries()
    names = [e.name for e in found]
    assert len(set(names)) == len(names)
    assert all(name.startswith("h14a_") for name in names)
    assert {e.family for e in found} == {"h14", "h14-port"}
    assert all(e.cause_pattern for e in found)
    for e in found:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout14_a_entries_are_registered():
    from evaluation.corpus import entries

    registered = [e.name for e in entries(thirdparty=False)]
    assert len(set(registered)) == len(registered)
    assert {e.name for e in _entries()} <= set(registered)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_one_cheap_heldout14_a_pair_fails_naive_and_passes_correct():
    import migcheck

    e = next(e for e in _entries() if e.name == "h14a_logspace_float_base_raises")
    naive = [str(v.status) for v in migcheck.run([e.naive]).verdicts if str(v.status) != "skip"]
    correct = [str(v.status) for v in migcheck.run([e.correct]).verdicts if str(v.status) != "skip"]
    assert naive and all(s == "xfail" for s in naive)
    assert correct and all(s == "pass" for s in correct)
