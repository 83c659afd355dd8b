"""randomness: outputs random by design (dropout in train mode) are compared by distribution. Pure numpy."""
from __future__ import annotations

import numpy as np
import pytest

from migcheck.judging.compare import compare_arrays
from migcheck.judging.randomness import differs, judge_random
from migcheck.tolerance import Tolerance

F32 = Tolerance(1.3e-6, 1e-5)
X = np.abs(np.random.default_rng(0).standard_normal((64, 8))) + 0.1


def _dropout(x: np.ndarray, p: float, seed: int, rescale: bool = True) -> np.ndarray:
    keep = np.random.default_rng(seed).random(x.shape) >= p
    return np.where(keep, x / (1 - p) if rescale else x, 0.0)


def _judged(torch_out: np.ndarray, ms_out: np.ndarray):
    t = compare_arrays("out", torch_out, ms_out, F32, "float32 default")
    assert not t.ok  # element by element, two masks never agree
    return judge_random(t, torch_out, ms_out)


@pytest.mark.parametrize("seed", range(20))
def test_the_same_dropout_with_other_masks_passes_by_distribution(seed):
    judged = _judged(_dropout(X, 0.3, 1000), _dropout(X, 0.3, seed))
    assert judged.ok and judged.tolerance_source == "random output: compared by distribution", judged.message


def test_keep_prob_where_p_was_meant_fails_and_names_the_probability():
    judged = _judged(_dropout(X, 0.3, 1), _dropout(X, 0.7, 2))
    assert not judged.ok and "p vs keep_prob" in judged.message


def test_a_missing_rescale_fails_and_names_the_rescale():
    judged = _judged(_dropout(X, 0.3, 1), _dropout(X, 0.3, 2, rescale=False))
    assert not judged.ok and "1/(1-p) rescale" in judged.message


def test_two_identical_runs_are_not_random():
    out = _dropout(X, 0.3, 1)
    assert not differs(out, out.copy()) and differs(out, _dropout(X, 0.3, 2))


def test_a_correct_low_rate_dropout_does_not_fail_one_seed_in_two_hundred():
    """The two fractions are independent draws: the band is for their difference (a corpus port failed at 4 sigma
    of one draw); a keep_prob read as p still fails."""
    x = np.abs(np.random.default_rng(1).standard_normal((64, 32))) + 0.1
    failed = [s for s in range(200) if not _judged(_dropout(x, 0.1, 5000 + s), _dropout(x, 0.1, s)).ok]
    assert failed == []
    assert not _judged(_dropout(x, 0.1, 7), _dropout(x, 0.9, 8)).ok
