"""Held-out set 8, half b (evaluation/corpus/heldout8_b.py, heldout8_b_ports.py): the entries are well formed.

Running every case is the scoring run's job (slow); one cheap pair runs here.
"""
import re

import pytest

from migcheck.case import case_problems


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout8_b_entries_are_well_formed_and_uniquely_named():
    from evaluation.corpus import FAMILIES, entries, heldout8, heldout8_b, heldout8_b_ports

    mine = heldout8_b.ENTRIES + heldout8_b_ports.ENTRIES
    assert len(heldout8_b.ENTRIES) == 5 and len(heldout8_b_ports.ENTRIES) == 8
    names = [e.name for e in mine]
    assert len(set(names)) == len(names)
    assert all(n.startswith("h8b_") for n in names)
    assert all(e.name.startswith("h8b_port_") for e in heldout8_b_ports.ENTRIES)
    assert {e.family for e in heldout8_b.ENTRIES} == {"h8"}
    assert {e.family for e in heldout8_b_ports.ENTRIES} == {"h8-port"}
    assert "h8" in FAMILIES and "h8-port" in FAMILIES
    assert all(e in heldout8.ENTRIES for e in mine)
    every = [e.name for e in entries(thirdparty=False)]
    assert len(set(every)) == len(every) and set(names) <= set(every)
    for e in mine:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        assert e.cause_pattern and re.compile(e.cause_pattern), e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout8_b_one_cheap_pair_fails_and_passes_as_declared():
    import migcheck
    from evaluation.corpus import heldout8_b

    (e,) = [e for e in heldout8_b.ENTRIES if e.name == "h8b_svd_returns_v_not_vh"]
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    assert result.verdicts and all(v.as_expected for v in result.verdicts), result.summary()
