"""Held-out set 20, half a: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout20_a import ENTRIES
    from evaluation.corpus.heldout20_a_ports import ENTRIES as PORTS

    return ENTRIES + PORTS


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h20a_")
        assert e.family in ("h20", "h20-port")
        assert (e.family == "h20-port") == e.name.startswith("h20a_port_")
        assert e.cause_pattern


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_registered_in_heldout20():
    from evaluation.corpus import heldout20

    names = {e.name for e in heldout20.ENTRIES}
    assert {e.name for e in _entries()} <= names


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h20a_huber_loss_delta_left_at_default_one")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
