"""update_rules: each optimizer's first step recomputed from (p0, g), and told apart. Pure numpy."""
from __future__ import annotations

import numpy as np
import pytest

from migcheck.localization.update_rules import RULES, Hyper, blame_update, identify

RNG = np.random.default_rng(0)
P0 = RNG.normal(size=(5, 4))
G = RNG.normal(size=(5, 4))
H = Hyper(lr=0.05, weight_decay=0.01, momentum=0.9, beta1=0.9, beta2=0.999, eps=1e-3, alpha=0.9,
          initial_accumulator=0.0)


@pytest.mark.parametrize("rule", list(RULES))
def test_every_rule_identifies_its_own_first_step(rule):
    p1 = RULES[rule][1](P0, G, H)
    match = identify(P0, G, p1, H, order=(rule,))
    assert match is not None and match.rule == rule and match.decayed


def test_rules_are_distinct_on_a_generic_gradient():
    """Except Adagrad from a zero accumulator, whose first step is Adam's: the torch class orders those."""
    steps = {rule: fn(P0, G, H) for rule, (_, fn) in RULES.items()}
    for a in steps:
        for b in steps:
            if a < b and {a, b} != {"adagrad", "adam"}:
                assert not np.allclose(steps[a], steps[b], rtol=1e-4, atol=1e-9), (a, b)


def test_a_skipped_weight_decay_is_the_same_rule_without_decay():
    p1 = RULES["sgd"][1](P0, G, Hyper(lr=0.05))
    match = identify(P0, G, p1, H)
    assert match.rule == "sgd" and not match.decayed


def test_float32_rounding_of_the_observed_step_still_identifies():
    p1 = RULES["adam"][1](P0, G, H).astype(np.float32)
    assert identify(P0.astype(np.float32), G.astype(np.float32), p1, H).rule == "adam"


def test_an_unknown_update_and_no_update_identify_nothing():
    assert identify(P0, G, P0 - 0.37 * np.sign(G) * G ** 2, H) is None
    assert identify(P0, G, P0, H) is None


def test_blame_names_both_rules_and_a_decay_filter():
    hyper = Hyper(lr=0.1, weight_decay=0.1)
    sgd = RULES["sgd"][1]
    step1 = {"fc.weight": (P0, G, sgd(P0, G, hyper), sgd(P0, G, hyper)),
             "bn.weight": (P0, G, sgd(P0, G, hyper), sgd(P0, G, Hyper(lr=0.1)))}
    blame = blame_update(step1, {n: hyper for n in step1}, "SGD", ["bn.weight"])
    assert blame.decay_skipped == ("bn.weight",)
    cause, identified = blame.describe()
    assert identified and "without weight decay" in cause and "'bn.weight'" in cause


def test_blame_says_when_a_side_follows_no_known_rule():
    hyper = Hyper(lr=0.01)
    step1 = {"w": (P0, G, RULES["adam"][1](P0, G, hyper), P0 + 0.3 * G ** 3)}
    cause, identified = blame_update(step1, {"w": hyper}, "Adam", ["w"]).describe()
    assert not identified and "MindSpore's is none of the known rules" in cause
