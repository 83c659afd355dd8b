"""runners/hooks.with_plain: a sub-module re-run alone gets the plain arguments its captured call took (pure)."""
import numpy as np

from migcheck.runners.hooks import with_plain

X, Y = np.zeros(2), np.ones(3)


def test_plain_arguments_go_back_between_the_recorded_tensors():
    assert with_plain([X], None) == [X]
    got = with_plain([X, Y], (4, ((1, 8), (3, (2, 2)))))  # forward(x, height, y, window)
    assert got[0] is X and got[1] == 8 and got[2] is Y and got[3] == (2, 2)


def test_fewer_tensors_than_the_call_took_stop_where_they_run_out_and_extra_ones_follow():
    assert with_plain([X], (3, ((1, 5),)))[:2] == [X, 5] and len(with_plain([X], (3, ((1, 5),)))) == 2
    got = with_plain([X, Y], (2, ((1, 5),)))
    assert got[0] is X and got[1] == 5 and got[2] is Y
