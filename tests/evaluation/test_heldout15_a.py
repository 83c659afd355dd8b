"""Held-out set 15, half a: entries load, are well formed, uniquely named and registered; one cheap pair runs."""
import pytest

from migcheck.case import case_problems


def _half_a():
    from evaluation.corpus import heldout15_a, heldout15_a_ports

    return list(heldout15_a.ENTRIES) + list(heldout15_a_ports.ENTRIES)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout15_a_definitions():
    found = _half_a()
    names = [e.name for e in found]
    assert len(names) == 13 and len(set(names)) == len(names)
    assert all(n.startswith("h15a_") for n in names)
    assert all(n.startswith("h15a_port_") == (e.family == "h15-port") for n, e in zip(names, found))
    for e in found:
        assert e.problems() == [], e.name
        assert e.cause_pattern, e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout15_a_is_registered_once():
    from evaluation.corpus import entries

    every = [e.name for e in entries(thirdparty=False)]
    assert len(set(every)) == len(every)
    assert {e.name for e in _half_a()} <= set(every)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout15_a_cheap_pair():
    import migcheck

    e = next(e for e in _half_a() if e.name == "h15a_logsumexp_as_log_sum_exp_overflow")
    naive = [str(v.status) for v in migcheck.run([e.naive]).verdicts if str(v.status) != "skip"]
    correct = [str(v.status) for v in migcheck.run([e.correct]).verdicts if str(v.status) != "skip"]
    assert naive and all(s == "xfail" for s in naive)
    assert correct and all(s == "pass" for s in correct)
