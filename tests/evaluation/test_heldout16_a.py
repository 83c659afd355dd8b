"""Held-out set 16, half a: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout16_a import ENTRIES

    return ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) >= 12
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h16a_")
        assert e.family in ("h16", "h16-port")
        assert e.cause_pattern


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    mine = {e.name for e in _entries()}
    assert mine <= set(names)


def test_registered_in_heldout16():
    from evaluation.corpus import heldout16

    names = {e.name for e in heldout16.ENTRIES}
    assert {e.name for e in _entries()} <= names


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h16a_constant_gate_ops_full_float_fill_inferred_int64")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
