"""Held-out set 15, half b: the entries are well-formed, uniquely named and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus import heldout15_b, heldout15_b_more, heldout15_b_ports
    return heldout15_b.ENTRIES + heldout15_b_ports.ENTRIES + heldout15_b_more.ENTRIES


def test_heldout15_b_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 12
    for e in entries:
        assert e.problems() == [], e.name
        assert e.name.startswith("h15b_")
        assert e.cause_pattern
    assert sum(e.family == "h15-port" for e in entries) == 7
    assert sum(e.family == "h15" for e in entries) == 5


def test_heldout15_b_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries
    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert all(e.name in names for e in _entries())


def test_heldout15_b_one_cheap_pair():
    import migcheck
    e = next(e for e in _entries() if e.name == "h15b_functional_hann_window_default_float64")
    assert migcheck.run([e.naive]).ok
    assert migcheck.run([e.correct]).ok
