"""Held-out set 7, half a (h7a_*): the entries load, are well formed, named uniquely, and their cause patterns
compile and are precise (they match a fix that names the setting, not a bare generic word)."""
import re

import pytest

pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]


def _entries():
    from evaluation.corpus import heldout7_a, heldout7_a_ops, heldout7_a_ports, heldout7_a_train

    return heldout7_a.ENTRIES + heldout7_a_ops.ENTRIES + heldout7_a_train.ENTRIES + heldout7_a_ports.ENTRIES


def test_entries_are_well_formed():
    entries = _entries()
    assert len(entries) == 13
    for e in entries:
        assert e.problems() == [], e.name
        assert e.name.startswith("h7a_")
        assert e.cause_pattern, e.name
        assert (e.family == "h7-port") == e.name.startswith("h7a_port_"), e.name
        assert e.naive.name == f"{e.name}_naive" and e.correct.name == f"{e.name}_correct"
    assert sum(e.family == "h7-port" for e in entries) == 2


def test_names_are_unique_across_the_corpora():
    from evaluation.corpus import entries

    names = [e.name for e in entries(thirdparty=False)]
    assert len(names) == len(set(names))
    assert {e.name for e in _entries()} <= set(names)


@pytest.mark.parametrize("word", ["eps", "padding", "tensor", "gradient", "bias", "default", "axis", "nan", "loss"])
def test_patterns_do_not_match_a_bare_generic_word(word):
    for e in _entries():
        assert not re.search(e.cause_pattern, word, re.IGNORECASE), (e.name, word)


def test_one_cheap_pair_fails_and_passes():
    import migcheck
    from evaluation.corpus import heldout7_a

    e = next(x for x in heldout7_a.ENTRIES if x.name == "h7a_conv2d_padding_pair_raises")
    result = migcheck.run([e.naive, e.correct], modes=("pynative",))
    assert result.ok, result.summary()


PHRASINGS = {
    "h7a_smooth_l1_beta_zero_raises": "use mindspore.nn.L1Loss(): torch's SmoothL1Loss(beta=0.0) is the L1 loss",
    "h7a_softmax_ce_with_logits_class_axis_raises": "use mindspore.nn.CrossEntropyLoss(), which takes classes on axis 1",
    "h7a_conv2d_padding_pair_raises": "nn.Conv2d(..., pad_mode='pad', padding=(0, 0, 1, 1))",
    "h7a_prelu_per_channel_as_single_slope": "mindspore.nn.PReLU(channel=4)",
    "h7a_gru_bias_false_as_default_has_bias": "mindspore.nn.GRU(3, 4, has_bias=False, batch_first=True)",
    "h7a_tensor_unfold_sliding_windows_raises": "Tensor.unfold is im2col in MindSpore; build the windows by slicing",
    "h7a_functional_conv1d_padding_without_pad_mode_raises": "ops.conv1d(h, w, pad_mode='pad', padding=1)",
    "h7a_round_decimals_raises_on_cpu": "ops.round(x * 100) / 100 (decimals=2 is not supported on CPU)",
    "h7a_fold_output_size_tuple_raises": "pass output_size as a Tensor: ops.fold(x, Tensor([4, 4], ms.int32), 2)",
    "h7a_inf_norm_gradient_at_ties": "use ops.amax(ops.abs(q), axis=-1, keepdims=True)",
    "h7a_sgd_nesterov_as_momentum_use_nesterov": "use mindspore.nn.SGD(params, momentum=0.9, nesterov=True)",
    "h7a_port_sincnet_blackman_window_int_length_raises": "ops.blackman_window(Tensor(9, ms.int32), periodic=False)",
    "h7a_port_pointer_generator_logaddexp_both_neg_inf": "ops.logaddexp(-inf, -inf) returns nan where torch gives -inf",
}


def test_patterns_accept_a_right_fix():
    entries = {e.name: e for e in _entries()}
    assert set(PHRASINGS) == set(entries)
    for name, text in PHRASINGS.items():
        assert re.search(entries[name].cause_pattern, text, re.IGNORECASE), name
