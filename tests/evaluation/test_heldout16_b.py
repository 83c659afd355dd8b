"""Held-out set 16, half b: the entries are well-formed, uniquely named and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus import heldout16_b
    return heldout16_b.ENTRIES


def test_heldout16_b_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], e.name
        assert e.name.startswith("h16b_")
        assert e.cause_pattern
    assert sum(e.family == "h16-port" for e in entries) == 8
    assert sum(e.family == "h16" for e in entries) == 5


def test_heldout16_b_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries
    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert all(e.name in names for e in _entries())


def test_heldout16_b_one_cheap_pair():
    import migcheck
    e = next(e for e in _entries() if e.name == "h16b_functional_softplus_beta_as_softplus_primitive")
    assert migcheck.run([e.naive]).ok
    assert migcheck.run([e.correct]).ok
