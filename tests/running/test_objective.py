import numpy as np

from migcheck.running.objective import make_cotangents, output_layout_problem


def test_cotangents_are_seeded_per_case_and_output():
    outputs = [np.zeros((2, 3), np.float32), np.zeros(4, np.float32)]
    first, _ = make_cotangents("case_a", outputs)
    again, _ = make_cotangents("case_a", outputs)
    other, _ = make_cotangents("case_b", outputs)
    assert [c.shape for c in first] == [(2, 3), (4,)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], other[0])
    # Not a plain sum: a random cotangent has mixed signs and distinct entries.
    assert (first[0] < 0).any() and (first[0] > 0).any() and len(np.unique(first[0])) == 6


def test_integer_and_bool_outputs_are_left_out_with_a_note():
    cotangents, notes = make_cotangents("c", (np.zeros(3, np.float32), np.zeros(3, np.int64), np.zeros(2, bool)))
    assert cotangents[0] is not None and cotangents[1] is None and cotangents[2] is None
    assert len(notes) == 2 and "out[1] (int64)" in notes[0] and "out[2] (bool)" in notes[1]


def test_cotangent_dtype_follows_the_output():
    (cot,), _ = make_cotangents("c", np.zeros(3, np.float16))
    assert cot.dtype == np.float16


def test_nested_tuples_are_reached_by_index_paths_and_dicts_refused():
    from migcheck.util.tree import index_paths

    lstm_like = (np.zeros(2), (np.zeros(3), np.zeros(3)))
    assert output_layout_problem(np.zeros(2)) is None
    assert output_layout_problem(lstm_like) is None
    assert index_paths(lstm_like) == [(0,), (1, 0), (1, 1)]
    assert index_paths(np.zeros(2)) == [()]
    assert output_layout_problem({"a": np.zeros(2)}) is None  # model outputs: reached by field name
    assert "keyed by 3" in output_layout_problem((np.zeros(2), {3: np.zeros(2)}))
