"""Held-out set 19, half a: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout19_a import ENTRIES
    from evaluation.corpus.heldout19_a_ports import ENTRIES as PORTS

    return ENTRIES + PORTS


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) >= 10
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h19a_")
        assert e.family in ("h19", "h19-port")
        assert (e.family == "h19-port") == e.name.startswith("h19a_port_")
        assert e.cause_pattern


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_registered_in_heldout19():
    from evaluation.corpus import heldout19

    names = {e.name for e in heldout19.ENTRIES}
    assert {e.name for e in _entries()} <= names


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h19a_functional_lrn_size_passed_as_ops_lrn_depth_radius")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
