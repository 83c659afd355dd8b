"""Held-out set 17, half b: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout17_b import ENTRIES

    return ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h17b_")
        assert e.family in ("h17", "h17-port")
        assert e.cause_pattern
    assert sum(e.family == "h17-port" for e in entries) == 8


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_registered_in_heldout17():
    from evaluation.corpus import heldout17

    assert {e.name for e in _entries()} <= {e.name for e in heldout17.ENTRIES}


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h17b_functional_bincount_float32_counts")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
