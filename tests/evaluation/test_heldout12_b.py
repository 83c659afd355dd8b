"""Held-out set 12, half b: the entries are well formed, uniquely named, registered, and one cheap pair behaves."""
import pytest


def _half_b():
    from evaluation.corpus import heldout12_b, heldout12_b_gen, heldout12_b_graph, heldout12_b_vision

    return heldout12_b.ENTRIES + heldout12_b_gen.ENTRIES + heldout12_b_vision.ENTRIES + heldout12_b_graph.ENTRIES


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout12_b_entries_well_formed():
    entries = _half_b()
    assert len(entries) == 13
    names = [e.name for e in entries]
    assert len(set(names)) == len(names)
    assert all(n.startswith("h12b_") for n in names)
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.cause_pattern
    assert sum(e.family == "h12-port" for e in entries) == 8
    assert sum(e.family == "h12" for e in entries) == 5


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout12_b_registered():
    from evaluation.corpus import heldout12

    names = [e.name for e in heldout12.ENTRIES]
    assert len(set(names)) == len(names)
    assert {e.name for e in _half_b()} <= set(names)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout12_b_one_cheap_pair():
    import migcheck
    from evaluation.corpus import heldout12_b

    e = next(x for x in heldout12_b.ENTRIES if x.name == "h12b_normalize_small_norm_l2normalize_epsilon")
    assert migcheck.run([e.naive]).ok  # an expected failure (xfail) counts as ok
    assert migcheck.run([e.correct]).ok
