"""Held-out set 5, half a (h5a_*): the entries load, are well formed, and their cause patterns are precise."""
import re

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

# Per entry: a phrasing a correct diagnosis could use, and a vague one it must not be credited for.
PHRASES = {
    "h5a_softmin_implicit_dim": ("use mindspore.nn.Softmin(axis=1)", "softmin output differs"),
    "h5a_bce_log_clamp_saturated": ("torch's BCELoss clamps the log at -100", "BCELoss value differs"),
    "h5a_upsample_nearest_fractional_scale": ("recompute_scale_factor=True picks other source rows",
                                              "upsample output differs"),
    "h5a_embedding_bag_mean_padding_idx": ("EmbeddingBag excludes padding_idx entries from the mean",
                                           "the bag mean differs"),
    "h5a_rmsnorm_default_eps_machine_epsilon": ("eps=None means torch.finfo(float32).eps", "RMSNorm eps differs"),
    "h5a_upsample_bicubic_kernel": ("torch's bicubic uses A=-0.75", "upsample output differs"),
    "h5a_maxpool_return_indices_pad_mode": ("nn.MaxPool2d(2, 2, pad_mode='pad', return_indices=True)",
                                            "MaxPool2d raised"),
    "h5a_adamax_default_lr": ("nn.AdaMax(params, learning_rate=0.002)", "AdaMax differs"),
    "h5a_rprop_default_lr": ("nn.Rprop(params, learning_rate=0.01)", "Rprop differs"),
    "h5a_multisteplr_milestones_as_piecewise": ("piecewise_constant_lr milestones must end at the total steps: "
                                                "[2, 4, 6]", "the learning rate differs"),
    "h5a_adam_l2_as_adamweightdecay": ("use nn.Adam(params, weight_decay=0.1)", "the optimizer differs"),
    "h5a_port_rope_attention_interleaved_pairs": ("rotate_half pairs dimension i with i + d/2",
                                                  "rope output differs"),
    "h5a_port_tsm_shift_wraps_around": ("the shift must zero-fill the first/last frame, not wrap around",
                                        "the shift differs"),
    "h5a_port_detr_sine_position_concat": ("use ops.stack((sin, cos), axis=4).flatten(start_dim=3)",
                                           "positional encoding differs"),
}


@pytest.fixture(scope="module")
def half_a():
    from evaluation.corpus import heldout5_a, heldout5_a_ports, heldout5_a_train

    return heldout5_a.ENTRIES + heldout5_a_train.ENTRIES + heldout5_a_ports.ENTRIES


def test_entries_are_well_formed(half_a):
    assert len(half_a) >= 13
    for e in half_a:
        assert e.problems() == [], e.name
        assert e.name.startswith("h5a_")
        assert e.family in ("h5", "h5-port")
        assert (e.family == "h5-port") == e.name.startswith("h5a_port_")
        assert e.cause_pattern, e.name


def test_names_are_unique_and_registered(half_a):
    from evaluation.corpus import entries, heldout5

    names = [e.name for e in half_a]
    assert len(names) == len(set(names))
    registered = {e.name for e in heldout5.ENTRIES}
    assert set(names) <= registered
    everything = [e.name for e in entries(thirdparty=False)]
    assert len(everything) == len(set(everything))


def test_cause_patterns_are_precise(half_a):
    assert set(PHRASES) == {e.name for e in half_a}
    for e in half_a:
        good, vague = PHRASES[e.name]
        assert re.search(e.cause_pattern, good, re.IGNORECASE), (e.name, good)
        assert not re.search(e.cause_pattern, vague, re.IGNORECASE), (e.name, vague)


def test_one_cheap_entry_runs(half_a):
    import migcheck

    e = next(x for x in half_a if x.name == "h5a_embedding_bag_mean_padding_idx")
    naive = migcheck.run([e.naive], modes=("pynative",)).verdicts
    correct = migcheck.run([e.correct], modes=("pynative",)).verdicts
    assert [str(getattr(v.status, "value", v.status)) for v in naive] == ["xfail"]
    assert [str(getattr(v.status, "value", v.status)) for v in correct] == ["pass"]
