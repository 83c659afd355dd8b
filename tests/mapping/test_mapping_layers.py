"""Every built-in layer rule against the real layers of both frameworks: same weights in, same outputs out."""
import dataclasses

import pytest

# Needs both frameworks: skipped, with the reason, where either is not installed.
pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

import mindspore.nn as mnn
import torch.nn as tnn

from migcheck import PairedCase, integers, uniform
from migcheck.running.pipeline import Item, mapping_for, run_item

LAYERS = {
    "conv1d": (lambda: tnn.Conv1d(3, 4, 3), lambda: mnn.Conv1d(3, 4, 3, pad_mode="valid", has_bias=True), uniform(2, 3, 7)),
    "conv2d": (lambda: tnn.Conv2d(3, 4, 3), lambda: mnn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=True), uniform(2, 3, 6, 6)),
    "conv3d": (lambda: tnn.Conv3d(2, 3, 2), lambda: mnn.Conv3d(2, 3, 2, pad_mode="valid", has_bias=True), uniform(1, 2, 4, 4, 4)),
    "conv_transpose2d": (lambda: tnn.ConvTranspose2d(3, 2, 2, stride=2),
                         lambda: mnn.Conv2dTranspose(3, 2, 2, stride=2, pad_mode="valid", has_bias=True), uniform(1, 3, 3, 3)),
    "linear": (lambda: tnn.Linear(4, 3), lambda: mnn.Dense(4, 3), uniform(2, 4)),
    "batchnorm1d": (lambda: tnn.BatchNorm1d(4), lambda: mnn.BatchNorm1d(4), uniform(3, 4)),
    "batchnorm2d": (lambda: tnn.BatchNorm2d(3), lambda: mnn.BatchNorm2d(3), uniform(2, 3, 4, 4)),
    "batchnorm3d": (lambda: tnn.BatchNorm3d(2), lambda: mnn.BatchNorm3d(2), uniform(2, 2, 3, 3, 3)),
    "layernorm": (lambda: tnn.LayerNorm(5), lambda: mnn.LayerNorm((5,), epsilon=1e-5), uniform(3, 5)),
    "groupnorm": (lambda: tnn.GroupNorm(2, 4), lambda: mnn.GroupNorm(2, 4), uniform(2, 4, 3, 3)),
    "embedding": (lambda: tnn.Embedding(7, 3), lambda: mnn.Embedding(7, 3), integers(2, 4, high=7, dtype="int32")),
    "prelu": (lambda: tnn.PReLU(3), lambda: mnn.PReLU(3), uniform(2, 3, 4, 4)),
    "lstm": (lambda: tnn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
             lambda: mnn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), uniform(2, 5, 3)),
    "gru": (lambda: tnn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True),
            lambda: mnn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True), uniform(2, 5, 3)),
    "rnn": (lambda: tnn.RNN(3, 4, num_layers=2, batch_first=True),
            lambda: mnn.RNN(3, 4, num_layers=2, batch_first=True), uniform(2, 5, 3)),
}


def _case(name):
    pt, ms, spec = LAYERS[name]
    return dataclasses.replace(PairedCase(torch=pt, mindspore=ms, inputs={"x": spec}), name=f"layer_{name}",
                               file="<layers>")


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_rule_transfers_weights_that_reproduce_outputs_and_gradients(name):
    case = _case(name)
    mapping = mapping_for(case)
    assert mapping.ok, mapping.problems()
    for check in ("forward", "backward"):
        verdict = run_item(Item(case, check, "pynative", "cpu"))
        assert verdict.status == "pass", f"{check}: {verdict.message}"


def test_batchnorm_rule_names_every_statistic():
    rows = {(r.torch_name, r.ms_name) for r in mapping_for(_case("batchnorm2d")).pairs}
    assert rows == {("weight", "gamma"), ("bias", "beta"), ("running_mean", "moving_mean"),
                    ("running_var", "moving_variance")}


def test_instancenorm_maps_even_though_its_cpu_kernel_is_missing():
    # MindSpore 2.10 has no CPU InstanceNorm kernel, so only the mapping can be shown here.
    case = dataclasses.replace(PairedCase(torch=lambda: tnn.InstanceNorm2d(3, affine=True),
                                          mindspore=lambda: mnn.InstanceNorm2d(3, affine=True),
                                          inputs={"x": uniform(2, 3, 4, 4)}), name="layer_instancenorm", file="<l>")
    rows = {(r.torch_name, r.ms_name) for r in mapping_for(case).pairs}
    assert ("weight", "gamma") in rows and ("bias", "beta") in rows


def test_multihead_attention_keeps_packed_projections():
    class Pt(tnn.Module):
        def __init__(self):
            super().__init__()
            self.attn = tnn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    class Ms(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.attn = mnn.MultiheadAttention(8, 2, batch_first=True)

        def construct(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    case = dataclasses.replace(PairedCase(torch=Pt, mindspore=Ms, inputs={"x": uniform(2, 4, 8)}), name="layer_mha",
                               file="<l>")
    assert ("attn.in_proj_weight", "attn.in_proj_weight") in {(r.torch_name, r.ms_name) for r in mapping_for(case).pairs}
    for check in ("forward", "backward"):
        assert run_item(Item(case, check, "graph", "cpu")).status == "pass"
