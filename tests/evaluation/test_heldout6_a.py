"""Held-out set 6, half a (h6a_*): the entries load, are well formed, and their cause patterns are precise."""
import re

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

# Per entry: a phrasing a correct diagnosis could use, and a vague one it must not be credited for.
PHRASES = {
    "h6a_gaussian_nll_var_below_eps_gradient": ("torch clamps var to eps under no_grad, so the gradient still "
                                                "reaches var", "the gradient of the loss differs"),
    "h6a_cross_entropy_ignore_index_as_sparse_softmax_ce": ("use nn.CrossEntropyLoss(ignore_index=0)",
                                                            "the loss value differs"),
    "h6a_rnn_relu_nonlinearity_default_tanh": ("pass nonlinearity='relu' to mindspore.nn.RNN",
                                               "the RNN output differs"),
    "h6a_maxpool_padding1_as_same_pad_mode": ("nn.MaxPool2d(3, stride=2, pad_mode='pad', padding=1)",
                                              "the pooling output differs"),
    "h6a_interpolate_antialias_dropped": ("torch resizes with antialias=True", "interpolate output differs"),
    "h6a_cosine_similarity_eps_on_norm_product": ("ops.cosine_similarity clips the product of the norms at eps "
                                                  "where torch clamps each norm", "cosine output differs"),
    "h6a_xlogy_zero_times_log_zero_nan": ("ops.xlogy(0, 0) returns NaN", "the output has NaN"),
    "h6a_logsumexp_fully_masked_row_nan": ("ops.logsumexp of an all -inf row gives NaN",
                                           "the output has NaN"),
    "h6a_cosine_warm_restarts_as_cosine_decay_lr": ("CosineAnnealingWarmRestarts restarts the rate every T_0 steps",
                                                    "the learning rate differs"),
    "h6a_tensor_size_called_like_torch_raises": ("use x.shape[0]: Tensor.size is a property",
                                                 "MindSpore raised TypeError"),
    "h6a_port_tcn_weight_norm_over_whole_tensor": ("weight_norm normalises per output channel (dim=0)",
                                                   "the conv weight differs"),
    "h6a_port_cyclegan_upsample_convtranspose_same": ("pad_mode='same' crops the other side than torch's "
                                                      "padding=1, output_padding=1", "the upsampling differs"),
}


@pytest.fixture(scope="module")
def half_a():
    from evaluation.corpus import heldout6_a, heldout6_a_ops, heldout6_a_ports, heldout6_a_train

    return heldout6_a.ENTRIES + heldout6_a_ops.ENTRIES + heldout6_a_train.ENTRIES + heldout6_a_ports.ENTRIES


def test_entries_are_well_formed(half_a):
    assert len(half_a) == 12
    for e in half_a:
        assert e.problems() == [], e.name
        assert e.name.startswith("h6a_")
        assert e.family == ("h6-port" if e.name.startswith("h6a_port_") else "h6"), e.name
        assert e.cause_pattern, e.name


def test_names_are_unique(half_a):
    from evaluation.corpus import entries

    names = [e.name for e in half_a]
    assert len(set(names)) == len(names)
    everything = [e.name for e in entries(thirdparty=False)]
    assert all(everything.count(n) == 1 for n in names)


def test_registered_in_heldout6(half_a):
    from evaluation.corpus import heldout6

    registered = {e.name for e in heldout6.ENTRIES}
    assert {e.name for e in half_a} <= registered


def test_cause_patterns_are_precise(half_a):
    assert set(PHRASES) == {e.name for e in half_a}
    for e in half_a:
        good, vague = PHRASES[e.name]
        assert re.search(e.cause_pattern, good, re.IGNORECASE), (e.name, good)
        assert not re.search(e.cause_pattern, vague, re.IGNORECASE), (e.name, vague)


def test_one_cheap_entry_fails_naive_and_passes_correct():
    import migcheck
    from evaluation.corpus import heldout6_a

    result = migcheck.run([heldout6_a.MAXPOOL_SAME.naive, heldout6_a.MAXPOOL_SAME.correct], modes=("pynative",))
    assert result.ok, result.summary()
