"""Held-out set 11, half b: the entries are well formed, uniquely named, registered, and one cheap pair behaves."""
import pytest


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout11_b_entries_well_formed():
    from evaluation.corpus import heldout11_b, heldout11_b_ports

    entries = heldout11_b.ENTRIES
    assert len(entries) == 13
    names = [e.name for e in entries]
    assert len(set(names)) == len(names)
    assert all(name.startswith("h11b_") for name in names)
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.cause_pattern
    assert sum(e.family == "h11-port" for e in entries) == 8
    assert sum(e.family == "h11" for e in entries) == 5
    assert all(e.family == "h11-port" and e.name.startswith("h11b_port_") for e in heldout11_b_ports.PORTS)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout11_b_registered():
    from evaluation.corpus import FAMILIES, heldout11, heldout11_b

    names = {e.name for e in heldout11.ENTRIES}
    assert {e.name for e in heldout11_b.ENTRIES} <= names
    assert "h11" in FAMILIES and "h11-port" in FAMILIES
    all_names = [e.name for e in heldout11.ENTRIES]
    assert len(set(all_names)) == len(all_names)


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout11_b_one_cheap_pair():
    import migcheck
    from evaluation.corpus import heldout11_b

    e = next(e for e in heldout11_b.ENTRIES if e.name == "h11b_tensor_repeat_tiling_as_ops_repeat_elements")
    assert migcheck.run([e.naive]).ok  # an expected failure (xfail) counts as ok
    assert migcheck.run([e.correct]).ok
