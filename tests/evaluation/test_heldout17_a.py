"""Held-out set 17, half a: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout17_a import ENTRIES
    from evaluation.corpus.heldout17_a_ports import ENTRIES as PORTS

    return ENTRIES + PORTS


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) >= 10
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h17a_")
        assert e.family in ("h17", "h17-port")
        assert (e.family == "h17-port") == e.name.startswith("h17a_port_")
        assert e.cause_pattern


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_registered_in_heldout17():
    from evaluation.corpus import heldout17

    names = {e.name for e in heldout17.ENTRIES}
    assert {e.name for e in _entries()} <= names


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h17a_graph_euler_step_index_add_alpha_dropped_in_ops_index_add")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
