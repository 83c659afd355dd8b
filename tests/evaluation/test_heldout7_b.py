"""Held-out set 7, half b (evaluation/corpus/heldout7_b.py, heldout7_b_ports.py): the entries are well formed.

Running every case is the scoring run's job (slow); one cheap pair runs here.
"""
import re

import pytest

from migcheck.case import case_problems


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout7_b_entries_are_well_formed_and_uniquely_named():
    from evaluation.corpus import FAMILIES, entries, heldout7, heldout7_b, heldout7_b_ports

    mine = heldout7_b.ENTRIES + heldout7_b_ports.ENTRIES
    assert len(heldout7_b.ENTRIES) == 5 and len(heldout7_b_ports.ENTRIES) == 8
    names = [e.name for e in mine]
    assert len(set(names)) == len(names)
    assert all(n.startswith("h7b_") for n in names)
    assert all(n.startswith("h7b_port_") for n in (e.name for e in heldout7_b_ports.ENTRIES))
    assert {e.family for e in heldout7_b.ENTRIES} == {"h7"}
    assert {e.family for e in heldout7_b_ports.ENTRIES} == {"h7-port"}
    assert "h7" in FAMILIES and "h7-port" in FAMILIES
    assert all(e in heldout7.ENTRIES for e in mine)
    every = [e.name for e in entries(thirdparty=False)]
    assert len(set(every)) == len(every) and set(names) <= set(every)
    for e in mine:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        assert e.cause_pattern and re.compile(e.cause_pattern), e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_heldout7_b_flatten_pair_fails_and_passes_as_declared():
    import migcheck
    from evaluation.corpus import heldout7_b

    (e,) = [e for e in heldout7_b.ENTRIES if e.name == "h7b_flatten_default_start_dim_one"]
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    assert result.verdicts and all(v.as_expected for v in result.verdicts), result.summary()
