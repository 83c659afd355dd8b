"""Held-out set 13, half b: the entries load, are well formed and uniquely named; one cheap pair is run."""
import pytest


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout13_b_entries_well_formed():
    from evaluation.corpus import heldout13_b, heldout13_b_ports

    entries = heldout13_b.ENTRIES + heldout13_b_ports.ENTRIES
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], (e.name, e.problems())
        assert e.name.startswith("h13b_")
        assert e.cause_pattern
    assert sum(e.family == "h13-port" for e in entries) == 8
    assert sum(e.family == "h13" for e in entries) == 5
    names = [e.name for e in entries]
    assert len(names) == len(set(names))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout13_names_unique_across_corpus():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout13_b_one_cheap_pair():
    import migcheck
    from evaluation.corpus.heldout13_b import ENTRIES

    e = next(x for x in ENTRIES if x.name == "h13b_functional_smooth_l1_loss_default_reduction_none")
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    assert result.verdicts and all(v.as_expected for v in result.verdicts), [(v.item, v.status) for v in result.verdicts]
