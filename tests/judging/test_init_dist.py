"""The init check's statistics: the KS test, its false-alarm rate, its power, and the initializer names."""
import numpy as np
import pytest

from migcheck.judging.init_dist import ALPHA, compare_inits, ks_2samp, summarize


def test_ks_matches_scipy_where_scipy_is_here():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for n, shift in ((50, 0.0), (400, 0.2), (1000, 0.05)):
        a, b = rng.normal(size=n), rng.normal(shift, 1.0, size=n + 7)
        d, p = ks_2samp(a, b)
        ref = stats.ks_2samp(a, b, method="asymp")
        assert d == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=0.05, abs=2e-3)


def _family_false_alarms(alpha, trials, params=5):
    """Cases whose two sides draw from the very same initializers, judged as the init check judges them."""
    rng = np.random.default_rng(1)
    failed = 0
    for t in range(trials):
        draws = {f"p{k}": [rng.uniform(-0.3, 0.3, (8, 6)) for _ in range(4)] for k in range(params)}
        twins = {f"p{k}": [rng.uniform(-0.3, 0.3, (8, 6)) for _ in range(4)] for k in range(params)}
        failed += any(not c.ok for c in compare_inits(draws, twins, {}, alpha=alpha, seed=t))
    return failed / trials


def test_identical_initializers_fail_no_more_often_than_the_stated_rate():
    # At a measurable alpha the family-wise rate (Bonferroni over 5 parameters) stays at or below it.
    assert _family_false_alarms(0.05, 400) <= 0.05 + 0.02  # 0.02: three binomial standard errors
    assert _family_false_alarms(ALPHA, 300) == 0.0


def test_an_embedding_std_and_a_dense_init_difference_are_caught():
    rng = np.random.default_rng(2)
    torch_like = {"emb": [rng.normal(0, 1.0, (50, 16)) for _ in range(4)],
                  "fc": [rng.uniform(-0.125, 0.125, (32, 64)) for _ in range(4)]}
    port = {"emb": [rng.normal(0, 0.01, (50, 16)) for _ in range(4)],
            "fc": [rng.normal(0, 0.01, (32, 64)) for _ in range(4)]}
    results = {c.name: c for c in compare_inits(torch_like, port, {"emb": "torch Embedding 'weight'"})}
    assert not results["init.emb"].ok and results["init.emb"].kind == "value"
    assert "torch Embedding 'weight'" in results["init.emb"].message
    assert "normal(0, std 1" in results["init.emb"].message and "normal(0, std 0.0098" in results["init.emb"].message
    assert not results["init.fc"].ok and "uniform(-0.125, 0.125)" in results["init.fc"].message


def test_initializers_are_named_from_their_values():
    rng = np.random.default_rng(3)
    assert summarize(np.zeros(10)).looks_like == "constant 0"
    assert summarize(np.ones(10)).looks_like == "constant 1"
    assert summarize(rng.uniform(-0.5, 0.5, 5000)).looks_like.startswith("uniform(-0.5")
    assert summarize(rng.normal(0, 0.02, 5000)).looks_like.startswith("normal(")
    assert summarize(np.array([0.0, 1.0, 2.0])).looks_like == "random"  # too few values to say


def test_constant_parameters_agree_when_equal_and_differ_when_not():
    ones, zeros = {"g": [np.ones(8)] * 4}, {"g": [np.zeros(8)] * 4}
    assert compare_inits(ones, {"g": [np.ones(8)] * 4}, {})[0].ok
    assert not compare_inits(ones, zeros, {})[0].ok
