"""Held-out set 10, half b: the entries are well formed, uniquely named, and one cheap pair behaves."""
import pytest


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout10_b_entries_well_formed():
    from evaluation.corpus import heldout10_b, heldout10_b_ports

    entries = heldout10_b.ENTRIES + heldout10_b_ports.ENTRIES
    assert len(entries) == 13
    names = [e.name for e in entries]
    assert len(set(names)) == len(names)
    assert all(n.startswith("h10b_") for n in names)
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.cause_pattern
    assert sum(e.family == "h10-port" for e in entries) == 8
    assert sum(e.family == "h10" for e in entries) == 5


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout10_b_registered():
    from evaluation.corpus import heldout10

    names = {e.name for e in heldout10.ENTRIES}
    assert "h10b_port_vgg_bn_stage_maxpool_default_stride" in names


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout10_b_one_cheap_pair():
    import migcheck
    from evaluation.corpus import heldout10_b_ports

    e = next(x for x in heldout10_b_ports.ENTRIES if x.name == "h10b_port_vgg_bn_stage_maxpool_default_stride")
    assert migcheck.run([e.naive]).ok  # an expected failure (xfail) counts as ok
    assert migcheck.run([e.correct]).ok
