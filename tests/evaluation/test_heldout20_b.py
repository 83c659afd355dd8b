"""Held-out set 20, half b: the entries load, are well-formed, and one cheap pair behaves as declared."""
import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus.heldout20_b import ENTRIES

    return ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h20b_")
        assert e.family in ("h20", "h20-port")
        assert e.cause_pattern
    assert sum(e.family == "h20-port" for e in entries) == 8
    assert all(e.name.startswith("h20b_port_") == (e.family == "h20-port") for e in entries)
    assert sum(e.naive.fails_with == "error" for e in entries) <= 2


def test_names_are_unique_across_the_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


def test_registered_in_heldout20():
    from evaluation.corpus import heldout20

    assert {e.name for e in _entries()} <= {e.name for e in heldout20.ENTRIES}


def test_one_cheap_pair_behaves_as_declared():
    import migcheck

    entry = next(e for e in _entries() if e.name == "h20b_functional_fftshift_last_dim_as_ops_fftshift_all_dims")
    assert migcheck.run([entry.naive]).ok
    assert migcheck.run([entry.correct]).ok
