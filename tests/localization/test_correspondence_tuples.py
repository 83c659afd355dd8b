"""Settings read as tuples of another length (torch Conv1d's (1,), MindSpore's 2-D (1, 1)) are not a difference."""
from migcheck.localization.correspondence import _num_equal


def test_uniform_tuples_of_other_lengths_compare_by_value():
    assert _num_equal((1,), (1, 1))
    assert not _num_equal((1,), (2, 2))  # a real stride difference is still one
    assert not _num_equal((1, 2), (1, 2, 2))
