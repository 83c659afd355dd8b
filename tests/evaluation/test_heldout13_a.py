"""Held-out set 13, half a: the entries load, are well formed and have unique names; one cheap pair runs."""
import pytest

from migcheck.case import case_problems


def _entries():
    from evaluation.corpus import heldout13_a, heldout13_a_ports

    return heldout13_a.ENTRIES + heldout13_a_ports.ENTRIES


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout13_a_entries_are_well_formed_and_uniquely_named():
    found = _entries()
    names = [e.name for e in found]
    assert len(found) == 13
    assert len(set(names)) == len(names)
    assert all(n.startswith("h13a_") for n in names)
    assert {e.family for e in found} == {"h13", "h13-port"}
    assert all((e.family == "h13-port") == e.name.startswith("h13a_port_") for e in found)
    assert all(e.cause_pattern for e in found)
    for e in found:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout13_a_entries_are_registered():
    from evaluation.corpus import entries

    registered = [e.name for e in entries(thirdparty=False)]
    assert len(set(registered)) == len(registered)
    assert {e.name for e in _entries()} <= set(registered)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_one_cheap_pair_fails_naive_and_passes_correct():
    import migcheck

    e = next(e for e in _entries() if e.name == "h13a_bucketize_as_ops_bucketize_primitive")
    naive = [str(v.status) for v in migcheck.run([e.naive]).verdicts if str(v.status) != "skip"]
    correct = [str(v.status) for v in migcheck.run([e.correct]).verdicts if str(v.status) != "skip"]
    assert naive and all(s == "xfail" for s in naive)
    assert correct and all(s == "pass" for s in correct)
