"""Dataflow pairing, effective-padding differences and numeric signatures, on synthetic data (numpy only)."""
import numpy as np

from migcheck.localization.correspondence import TABLE, differences, same_pads
from migcheck.localization.dataflow import pair_calls
from migcheck.localization.locate import Call
from migcheck.localization.signatures import describe

TOL = lambda dtype: (1e-6, 1e-6)  # noqa: E731
X = np.arange(1, 7, dtype=np.float32).reshape(2, 3)


def c(name, inp, out, kind="K"):
    return Call(name, kind, (np.asarray(inp, np.float32),), np.asarray(out, np.float32))


def test_renamed_parameterless_layer_pairs_by_value_and_is_the_first_divergence():
    t = [c("conv", X, X + 1, "Conv2d"), c("maxpool", X + 1, X + 2, "MaxPool2d"), c("fc", X + 2, X + 3, "Linear"),
         c("", X, X + 3, "Net")]
    m = [c("conv", X, X + 1, "Conv2d"), c("max_pool", X + 1, X + 2.5, "MaxPool2d"), c("fc", X + 2.5, X + 3.5, "Dense"),
         c("", X, X + 3.5, "Net")]
    flow = pair_calls(t, m, {"conv": "conv", "fc": "fc", "": ""}, TOL, [X])
    assert flow.first == 1 and flow.between is None
    assert (m[flow.pair_of(1).ms_indices[0]].name, flow.pair_of(1).how) == ("max_pool", "input")
    assert flow.inputs_matched == (True, True, False, True)


def test_correct_twin_has_no_divergence_and_pairs_every_layer():
    t = [c("conv", X, X + 1, "Conv2d"), c("maxpool", X + 1, X + 2, "MaxPool2d")]
    m = [c("conv", X, X + 1, "Conv2d"), c("max_pool", X + 1, X + 2, "MaxPool2d")]
    flow = pair_calls(t, m, {"conv": "conv"}, TOL, [X])
    assert flow.first is None and [p.how for p in flow.pairs] == ["name", "value"]


def test_fused_torch_module_pairs_with_the_chain_of_mindspore_cells():
    bn, act = X * 2, np.maximum(X * 2 - 5, 0)
    t = [c("block.bn", X, bn, "BatchNorm2d"), c("block", X, act, "BnAct")]
    m_bn, m_act = c("bn", X, bn, "BatchNorm2d"), c("act", bn, act, "ReLU")
    m_act = Call("act", "ReLU", (m_bn.output,), act)  # the very array bn produced, as a hook sees it
    flow = pair_calls(t, [m_bn, m_act], {"block.bn": "bn", "block": "bn"}, TOL, [X])
    assert flow.first is None
    assert flow.pair_of(1).ms_indices == (1,) or flow.pair_of(1).ms_indices == (0, 1)


def test_functional_op_between_two_children_is_reported_between_them():
    t = [c("embed", X, X + 1, "Linear"), c("proj", (X + 1) * 0.5, X + 7, "Linear"), c("", X, X + 7, "Net")]
    m = [c("embed", X, X + 1, "Dense"), c("proj", (X + 1) * 0.25, X + 9, "Dense"), c("", X, X + 9, "Net")]
    flow = pair_calls(t, m, {"embed": "embed", "proj": "proj", "": ""}, TOL, [X])
    assert flow.first == 2 and flow.between == ("embed", "proj")


def test_same_padding_is_a_difference_only_where_it_pads_differently():
    conv = {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1), "dilation": (1, 1), "groups": 1}
    ms = {"kernel_size": (3, 3), "stride": (2, 2), "pad_mode": "same", "dilation": (1, 1), "group": 1}
    diff, = differences("Conv2d", conv, "Conv2d", ms, (1, 3, 8, 8))
    assert diff.rule == "pad-mode" and diff.ms_fix == {"pad_mode": "pad", "padding": 1}
    stride1 = {**conv, "stride": (1, 1)}
    assert differences("Conv2d", stride1, "Conv2d", {**ms, "stride": (1, 1)}, (1, 3, 8, 8)) == []
    one = {**conv, "kernel_size": (1, 1), "padding": (0, 0)}
    assert differences("Conv2d", one, "Conv2d", {**ms, "kernel_size": (1, 1)}, (1, 3, 8, 8)) == []
    assert same_pads(8, 3, 2) == (0, 1) and same_pads(7, 3, 2) == (1, 1)


def test_transposed_conv_fix_reproduces_torch_cropping():
    t = {"kernel_size": (3, 3), "stride": (2, 2), "padding": (1, 1), "output_padding": (1, 1), "dilation": (1, 1), "groups": 1}
    m = {"kernel_size": (3, 3), "stride": (2, 2), "pad_mode": "same", "dilation": (1, 1), "group": 1, "output_padding": 0}
    same = {**t, "kernel_size": (4, 4), "output_padding": (0, 0)}
    assert differences("ConvTranspose2d", same, "Conv2dTranspose", {**m, "kernel_size": (4, 4)}, (1, 3, 8, 8)) == []
    diffs = [d for d in differences("ConvTranspose2d", t, "Conv2dTranspose", m, (1, 3, 8, 8)) if d.rule == "pad-mode"]
    assert diffs and diffs[0].ms_fix == {"pad_mode": "pad", "padding": (1, 0, 1, 0)}  # not padding=1


def test_table_reads_mindspore_conventions_and_covers_80_pairs():
    assert len(TABLE) >= 80
    bn_t = {"eps": 1e-5, "momentum": 0.1, "affine": True}
    assert differences("BatchNorm2d", bn_t, "BatchNorm2d", {"eps": 1e-5, "momentum": 0.1 + 0j.real}) == []
    diff, = differences("BatchNorm2d", bn_t, "BatchNorm2d", {"eps": 1e-5, "momentum": 0.9})
    assert diff.rule == "batchnorm-momentum" and abs(diff.ms_fix - 0.9) < 1e-9  # the constructor takes 1 - momentum
    diff, = differences("GELU", {"approximate": "none"}, "GELU", {"approximate": "tanh"})
    assert diff.ms_fix is False and differences("GELU", {"approximate": "none"}, "GELU", {"approximate": False}) == []


def test_signatures_name_the_pattern_and_stay_silent_on_equal_outputs():
    t = np.random.default_rng(0).normal(size=(2, 4, 5)).astype(np.float32)
    assert describe(t, t * 0.5).rule == "constant-ratio"
    assert describe(t, -t).rule == "sign-flip"
    assert describe(t, np.swapaxes(t, 1, 2).copy().reshape(2, 4, 5)).rule == "same-values-reordered"
    sq = t[:, :4, :4].copy()
    assert describe(sq, np.swapaxes(sq, 1, 2)).rule == "transposed-axes"
    border = t.copy()
    border[..., 0] += 1
    assert describe(t, border).rule == "border-only"
    assert describe(t, t + 1e-9) is None


def test_renamed_layer_whose_output_shape_differs_pairs_by_its_inputs_and_kind():
    pooled, strided = X[:, :2], X  # torch's pool halves the width, MindSpore's stride=1 pool does not
    t = [c("conv", X, X + 1, "Conv2d"), c("downsample", X + 1, pooled, "AvgPool2d"), c("", X, pooled, "Net")]
    m = [c("conv", X, X + 1, "Conv2d"), c("pool", X + 1, strided, "AvgPool2d"), c("", X, strided, "Net")]
    flow = pair_calls(t, m, {"conv": "conv", "": ""}, TOL, [X])
    assert flow.first == 1 and (flow.pair_of(1).ms_indices, flow.pair_of(1).how) == ((1,), "inputs and kind")
    # a leaf of another kind fed the same inputs is not taken for it
    other = [m[0], c("act", X + 1, strided, "ReLU"), m[2]]
    assert pair_calls(t, other, {"conv": "conv", "": ""}, TOL, [X]).pair_of(1) is None
    # the correct twin pairs by value
    twin = [m[0], c("pool", X + 1, pooled, "AvgPool2d"), c("", X, pooled, "Net")]
    flow = pair_calls(t, twin, {"conv": "conv", "": ""}, TOL, [X])
    assert flow.first is None and flow.pair_of(1).how == "value"


def test_an_integer_network_output_that_differs_is_the_first_divergence():
    idx = np.array([1, 0], np.int64)
    t = [c("fc", X, X + 1, "Linear"), Call("", "Net", (X,), idx)]
    m = [c("fc", X, X + 1, "Dense"), Call("", "Net", (X,), idx[::-1].copy())]
    flow = pair_calls(t, m, {"fc": "fc", "": ""}, TOL, [X])
    assert flow.first == 1 and flow.between == ("fc", "<output>")
    twin = [m[0], Call("", "Net", (X,), idx.copy())]
    assert pair_calls(t, twin, {"fc": "fc", "": ""}, TOL, [X]).first is None


def test_pool_stride_loss_flags_and_one_d_operator_settings_are_read_in_torch_terms():
    pool_t = {"kernel_size": 2, "stride": 2, "padding": 0, "ceil_mode": False}
    diff, = differences("MaxPool2d", pool_t, "MaxPool2d", {"kernel_size": 2, "stride": 1, "pad_mode": "VALID"}, (1, 2, 8, 8))
    assert (diff.rule, diff.ms_as_torch, diff.ms_fix) == ("pool-stride", 1, 2)
    assert differences("MaxPool2d", pool_t, "MaxPool2d", {"kernel_size": 2, "stride": 2, "pad_mode": "VALID"}, (1, 2, 8, 8)) == []
    diff, = differences("MSELoss", {"reduction": "sum"}, "MSELoss", {"average": True, "reduce": True})
    assert (diff.rule, diff.ms_value, diff.ms_fix) == ("loss-reduction", "mean", "sum")
    assert differences("MSELoss", {"reduction": "sum"}, "MSELoss", {"average": False, "reduce": True}) == []
    conv1d_t = {"kernel_size": (4,), "stride": (1,), "padding": "same", "dilation": (1,), "groups": 1}
    conv1d_m = {"kernel_size": (1, 4), "stride": (1, 1), "pad_mode": "pad", "padding": (0, 0, 2, 2), "dilation": (1, 1), "group": 1}
    diff, = differences("Conv1d", conv1d_t, "Conv1d", conv1d_m, (2, 3, 8))
    assert diff.ms_as_torch == ((2, 2),) and diff.ms_fix == {"pad_mode": "same", "padding": 0}  # torch pads (1, 2)
    assert differences("Conv1d", conv1d_t, "Conv1d", {**conv1d_m, "pad_mode": "same", "padding": (0, 0, 0, 0)}, (2, 3, 8)) == []


def test_the_network_output_is_judged_only_where_the_verdict_compared_it():
    """A case that adapts MindSpore's outputs, or a gradient check, leaves the root to value matching."""
    t = [c("fc", X, X + 1, "Linear"), c("", X, X + 1, "Net")]
    m = [c("fc", X, X + 1, "Dense"), Call("", "Net", (X,), [X + 1, X])]  # the port returns a tuple
    assert pair_calls(t, m, {"fc": "fc", "": ""}, TOL, [X]).first == 1
    assert pair_calls(t, m, {"fc": "fc", "": ""}, TOL, [X], judge_root=False).first is None


def test_an_unpaired_layer_computed_by_an_op_gives_way_to_a_later_paired_layer_wrong_on_agreeing_inputs():
    # torch's Upsample has no MindSpore cell (the port calls an op): no cell output shows its value, which
    # proves nothing; the activation after it is fed agreeing inputs and differs, so it is the first divergence
    t = [c("up", X, X * 2, "Upsample"), c("act", X * 2 + 1, X * 3, "Swish"), c("", X, X * 3, "Net")]
    m = [c("act", X * 2 + 1, X * 4, "HSwish"), c("", X, X * 4, "Net")]
    flow = pair_calls(t, m, {"act": "act", "": ""}, TOL, [X, X * 2 + 1])
    assert flow.first == 1 and flow.pair_of(0) is None


def test_an_unpaired_layer_stays_the_first_divergence_when_everything_after_it_is_fed_other_values():
    t = [c("up", X, X * 2, "Upsample"), c("conv", X * 2, X * 3, "Conv2d"), c("", X, X * 3, "Net")]
    m = [c("conv", X * 2.5, X * 4, "Conv2d"), c("", X, X * 4, "Net")]
    flow = pair_calls(t, m, {"conv": "conv", "": ""}, TOL, [X])
    assert flow.first == 0 and flow.pair_of(0) is None
