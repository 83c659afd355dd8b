"""Held-out set 4, half b (h4b_*): the entries load, are well formed, and their cause patterns are precise."""
import re

import pytest

from migcheck.case import case_problems

# A phrasing a correct diagnosis could use, and a vague one it must not be credited for, per entry.
PHRASES = {
    "h4b_leaky_relu_functional_default_slope": ("use ops.leaky_relu(x, alpha=0.01)", "leaky_relu slope differs"),
    "h4b_functional_dropout_training_default": ("ops.dropout(h, p=0.3, training=self.training)", "dropout differs"),
    "h4b_softmax_over_positions_default_axis": ("ops.softmax(h, axis=1)", "softmax over axis=-1"),
    "h4b_div_trunc_as_floor_division": ("ops.div(h, 0.25, rounding_mode='trunc')", "division differs"),
    "h4b_linalg_cross_default_dim": ("ops.cross(a, b, dim=-1)", "cross product differs"),
    "h4b_reducesum_bool_mask_count": ("ReduceSum of a bool mask is bool: cast it with astype(float32)",
                                      "the mean differs"),
    "h4b_elu_alpha_not_one_raises": ("Elu: alpha must be 1.0f; write where(x > 0, x, 0.5 * expm1(x))",
                                     "elu raised"),
    "h4b_adaptive_avg_pool1d_not_divisible_raises": ("use ops.adaptive_avg_pool2d on (B, C, 1, L)",
                                                     "pooling raised"),
    "h4b_max_two_tensors_as_reduction_raises": ("use ops.maximum(a, b)", "max raised"),
    "h4b_amax_as_max_dim_tie_gradient": ("use ops.amax(h, axis=-1)", "the gradient of max differs"),
    "h4b_straight_through_missing_stop_gradient": ("wrap (q - h) in ops.stop_gradient", "the gradient differs"),
    "h4b_adagrad_accum_default": ("mindspore.nn.Adagrad(..., accum=0.0)", "Adagrad accum=0.1"),
    "h4b_rmsprop_mean_square_starts_at_one": ("nn.RMSProp initialises mean_square to ones", "RMSProp differs"),
    "h4b_adam_amsgrad_dropped": ("nn.Adam(..., use_amsgrad=True)", "Adam differs"),
    "h4b_cosine_annealing_past_t_max_as_cosine_decay": (
        "CosineDecayLR holds min_lr after decay_steps while CosineAnnealingLR rises again", "the lr differs"),
    "h4b_port_cosine_classifier_l2normalize_axis": ("ops.L2Normalize(axis=1, epsilon=1e-12)",
                                                    "L2Normalize differs"),
    "h4b_port_fpn_topdown_bilinear_scale_factor": ("ops.interpolate(p4, size=(4, 4), mode='bilinear')",
                                                   "interpolate raised"),
}

# Other phrasings a diagnosis could use (numbers and dotted names inside the span are allowed).
ALSO = [
    ("h4b_leaky_relu_functional_default_slope", "mindspore.ops.leaky_relu alpha 0.2 in MindSpore vs 0.01 in torch"),
    ("h4b_functional_dropout_training_default", "mindspore.ops.dropout defaults to training=True, drops in eval mode"),
    ("h4b_adagrad_accum_default", "MindSpore's accum defaults to 0.1, torch starts at 0"),
    ("h4b_rmsprop_mean_square_starts_at_one", "RMSProp initializes the squared-gradient average to 1 instead of 0"),
    ("h4b_cosine_annealing_past_t_max_as_cosine_decay", "mindspore.nn.SGD(params, learning_rate=[0.1, 0.0775])"),
    ("h4b_port_cosine_classifier_l2normalize_axis", "L2Normalize normalises along axis 0; F.normalize uses dim=1"),
]


def _half_b():
    from evaluation.corpus import heldout4

    return [e for e in heldout4.ENTRIES if e.name.startswith("h4b_")]


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_half_b_entries_are_well_formed_and_unique():
    from evaluation.corpus import entries

    found = _half_b()
    names = [e.name for e in found]
    assert len(set(names)) == len(names)
    assert len(set(e.name for e in entries())) == len(entries())
    assert sorted(names) == sorted(PHRASES)
    assert sum(e.family == "h4" for e in found) >= 14 and sum(e.family == "h4-port" for e in found) == 2
    for e in found:
        assert e.problems() == [], e.name
        assert case_problems(e.naive) == [] and case_problems(e.correct) == [], e.name
        assert e.cause_pattern, e.name
        assert e.name.startswith("h4b_port_") == (e.family == "h4-port"), e.name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_half_b_cause_patterns_take_the_precise_phrasing_only():
    for e in _half_b():
        good, vague = PHRASES[e.name]
        assert re.search(e.cause_pattern, good, re.IGNORECASE), e.name
        assert not re.search(e.cause_pattern, vague, re.IGNORECASE), e.name
    patterns = {e.name: e.cause_pattern for e in _half_b()}
    for name, text in ALSO:
        assert re.search(patterns[name], text, re.IGNORECASE), name


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_one_cheap_entry_fails_naive_and_passes_correct():
    import migcheck

    e = next(x for x in _half_b() if x.name == "h4b_max_two_tensors_as_reduction_raises")
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    status = {v.case: str(getattr(v.status, "value", v.status)) for v in result.verdicts}
    assert status[e.naive.name] == "xfail" and status[e.correct.name] == "pass", status
