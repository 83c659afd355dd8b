"""The scorer's entry selection: -k repeatable (any), --exclude keeps a held-out set out of a run."""
from types import SimpleNamespace

from evaluation.score import select

ENTRIES = [SimpleNamespace(name=n, family=f) for n, f in
           [("h6a_x", "h6"), ("h7a_y", "h7"), ("h8b_z", "h8"), ("conv2d_w", "layer")]]


def test_keywords_select_any_and_exclude_leaves_a_set_out():
    names = lambda chosen: [e.name for e in chosen]  # noqa: E731
    assert names(select(ENTRIES, keywords=["h6", "h7"])) == ["h6a_x", "h7a_y"]
    assert names(select(ENTRIES, exclude=["h8"])) == ["h6a_x", "h7a_y", "conv2d_w"]
    assert names(select(ENTRIES, family="layer")) == ["conv2d_w"]
    assert names(select(ENTRIES)) == [e.name for e in ENTRIES]
