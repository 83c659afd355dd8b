"""Name-based weight mapping (migcheck.mapping.transfer), on plain ParamInfo lists and on real layers."""
from __future__ import annotations

import numpy as np
import pytest

from migcheck.running.fixtures import make_weights
from migcheck.mapping.transfer import BOOKKEEPING, MappedParam, SkippedParam, map_weights, to_mindspore
from migcheck.runners.base import ParamInfo


def P(name, shape, owner, *, trainable=True, buffer=False, dtype="float32") -> ParamInfo:
    return ParamInfo(name=name, shape=tuple(shape), dtype=dtype, owner_kind=owner, trainable=trainable, is_buffer=buffer)


TORCH_BN = [
    P("bn.weight", (4,), "BatchNorm2d"),
    P("bn.bias", (4,), "BatchNorm2d"),
    P("bn.running_mean", (4,), "BatchNorm2d", trainable=False, buffer=True),
    P("bn.running_var", (4,), "BatchNorm2d", trainable=False, buffer=True),
    P("bn.num_batches_tracked", (), "BatchNorm2d", trainable=False, buffer=True, dtype="int64"),
]
MS_BN = [
    P("bn.moving_mean", (4,), "BatchNorm2d", trainable=False, buffer=True),
    P("bn.moving_variance", (4,), "BatchNorm2d", trainable=False, buffer=True),
    P("bn.gamma", (4,), "BatchNorm2d"),
    P("bn.beta", (4,), "BatchNorm2d"),
]
TORCH_FC = [P("fc.weight", (2, 4), "Linear"), P("fc.bias", (2,), "Linear")]
MS_FC = [P("fc.weight", (2, 4), "Dense"), P("fc.bias", (2,), "Dense")]


def pairs_of(mapping):
    return {p.torch_name: (p.ms_name, p.how) for p in mapping.pairs}


def test_batchnorm_names_map_to_gamma_beta_moving_stats():
    m = map_weights(TORCH_BN + TORCH_FC, MS_BN + MS_FC)
    assert pairs_of(m) == {
        "bn.weight": ("bn.gamma", "rule BatchNorm.weight->gamma"),
        "bn.bias": ("bn.beta", "rule BatchNorm.bias->beta"),
        "bn.running_mean": ("bn.moving_mean", "rule BatchNorm.running_mean->moving_mean"),
        "bn.running_var": ("bn.moving_variance", "rule BatchNorm.running_var->moving_variance"),
        "fc.weight": ("fc.weight", "same name"),
        "fc.bias": ("fc.bias", "same name"),
    }
    assert m.ok and m.problems() == []
    assert m.unmapped_torch == () and m.unset_ms == ()


def test_num_batches_tracked_is_skipped_with_a_reason():
    m = map_weights(TORCH_BN, MS_BN)
    assert m.skipped == (SkippedParam("bn.num_batches_tracked", BOOKKEEPING["num_batches_tracked"]),)
    assert "step counter" in m.skipped[0].reason
    assert m.ms_name_for("bn.num_batches_tracked") is None


def test_rules_apply_at_the_top_level_and_only_to_their_owner_kind():
    torch_params = [P("weight", (3,), "LayerNorm"), P("bias", (3,), "LayerNorm")]
    ms_params = [P("gamma", (3,), "LayerNorm"), P("beta", (3,), "LayerNorm")]
    assert pairs_of(map_weights(torch_params, ms_params)) == {
        "weight": ("gamma", "rule LayerNorm.weight->gamma"), "bias": ("beta", "rule LayerNorm.bias->beta")}
    # A Linear's 'weight' is never renamed to gamma, even if a 'gamma' exists there.
    m = map_weights([P("fc.weight", (3,), "Linear")], [P("fc.gamma", (3,), "Dense")])
    assert m.pairs == () and [p.name for p in m.unmapped_torch] == ["fc.weight"]


def test_norm_layers_that_keep_torch_names_map_by_same_name():
    # mindspore.mint.nn.BatchNorm2d keeps weight/bias/running_mean/running_var.
    ms_params = [P(p.name, p.shape, "BatchNorm2d", trainable=p.trainable, buffer=p.is_buffer)
                 for p in TORCH_BN if p.leaf != "num_batches_tracked"]
    m = map_weights(TORCH_BN, ms_params)
    assert m.ok
    assert {t: how for t, (_, how) in pairs_of(m).items()} == {
        "bn.weight": "same name", "bn.bias": "same name", "bn.running_mean": "same name", "bn.running_var": "same name"}


def test_unmapped_torch_parameter_names_its_torch_path():
    torch_params = TORCH_FC + [P("head.weight", (5, 2), "Linear"), P("head.bias", (5,), "Linear")]
    m = map_weights(torch_params, MS_FC)
    assert not m.ok
    assert m.problems() == [
        "torch 'head.weight' [5, 2] (Linear) has no MindSpore counterpart;"
        " add it to the case's weight_map (or map it to None if unused on purpose)",
        "torch 'head.bias' [5] (Linear) has no MindSpore counterpart;"
        " add it to the case's weight_map (or map it to None if unused on purpose)",
    ]


def test_unset_mindspore_parameter_names_its_mindspore_path():
    m = map_weights(TORCH_FC, MS_FC + [P("scale", (2,), "Net")])
    assert [p.name for p in m.unset_ms] == ["scale"]
    assert m.problems() == ["MindSpore 'scale' [2] (Net) is set by no torch parameter;"
                            " add the torch name that feeds it to the case's weight_map"]


def test_shape_mismatch_names_both_paths_and_shapes():
    m = map_weights(TORCH_FC, [P("fc.weight", (4, 2), "Dense"), P("fc.bias", (2,), "Dense")])
    assert m.shape_mismatches == (MappedParam("fc.weight", "fc.weight", (2, 4), (4, 2), "same name"),)
    assert m.problems() == ["shape mismatch: torch 'fc.weight' [2, 4] vs MindSpore 'fc.weight' [4, 2]"
                            " (declare a transform for it in the case's weight_transforms)"]


def test_trainable_mismatch():
    m = map_weights([P("fc.weight", (2, 4), "Linear", trainable=False)], [P("fc.weight", (2, 4), "Dense")])
    assert m.problems() == ["trainable on one side only: torch 'fc.weight' trainable=False,"
                            " MindSpore 'fc.weight' requires_grad=True"]


def test_dict_override_pairs_names_the_rules_cannot():
    torch_params = [P("proj.w", (2, 4), "Linear"), P("proj.b", (2,), "Linear")]
    m = map_weights(torch_params, MS_FC, {"proj.w": "fc.weight", "proj.b": "fc.bias"})
    assert m.ok
    assert pairs_of(m) == {"proj.w": ("fc.weight", "override"), "proj.b": ("fc.bias", "override")}


def test_dict_override_to_none_skips_on_purpose():
    torch_params = TORCH_FC + [P("aux.weight", (3, 3), "Linear")]
    m = map_weights(torch_params, MS_FC, {"aux.weight": None})
    assert m.ok
    assert m.skipped == (SkippedParam("aux.weight", "mapped to None by the case's weight_map"),)


def test_override_to_a_missing_target_is_reported():
    m = map_weights(TORCH_FC, MS_FC, {"fc.weight": "dense.weight"})
    assert m.bad_targets == (("fc.weight", "dense.weight"),)
    problems = m.problems()
    assert problems[0] == "weight_map sends torch 'fc.weight' to MindSpore 'dense.weight', which does not exist"
    # ...and the MindSpore parameter it should have fed is left unset.
    assert problems[1:] == ["MindSpore 'fc.weight' [2, 4] (Dense) is set by no torch parameter;"
                            " add the torch name that feeds it to the case's weight_map"]


def test_function_override_returning_none_falls_back_to_rules():
    torch_params = TORCH_BN + [P("proj.w", (2, 4), "Linear"), P("fc.bias", (2,), "Linear")]
    seen = []

    def override(name):
        seen.append(name)
        return "fc.weight" if name == "proj.w" else None

    m = map_weights(torch_params, MS_BN + MS_FC, override)
    assert m.ok
    got = pairs_of(m)
    assert got["proj.w"] == ("fc.weight", "override")
    assert got["bn.running_var"] == ("bn.moving_variance", "rule BatchNorm.running_var->moving_variance")
    assert got["fc.bias"] == ("fc.bias", "same name")
    assert seen == [p.name for p in torch_params]


def test_to_mindspore_renames_arrays_through_the_pairs():
    m = map_weights(TORCH_BN, MS_BN)
    weights = {p.name: np.full(p.shape, i, dtype=p.dtype) for i, p in enumerate(TORCH_BN)}
    out = to_mindspore(weights, m)
    assert set(out) == {"bn.gamma", "bn.beta", "bn.moving_mean", "bn.moving_variance"}
    assert out["bn.moving_variance"] is weights["bn.running_var"]
    assert m.ms_name_for("bn.running_mean") == "bn.moving_mean"


# --- real layers ----------------------------------------------------------------------------------

def _real_stack(extra_torch_head: bool):
    import mindspore.nn as mnn
    import torch.nn as tnn

    class Pt(tnn.Module):
        def __init__(self):
            super().__init__()
            self.emb = tnn.Embedding(5, 4)
            self.conv = tnn.Conv2d(4, 3, 1)
            self.bn = tnn.BatchNorm2d(3)
            self.fc = tnn.Linear(3, 2)
            self.ln = tnn.LayerNorm(2)
            if extra_torch_head:
                self.head = tnn.Linear(2, 2)

    class Ms(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = mnn.Embedding(5, 4)
            self.conv = mnn.Conv2d(4, 3, 1, has_bias=True)
            self.bn = mnn.BatchNorm2d(3)
            self.fc = mnn.Dense(3, 2)
            self.ln = mnn.LayerNorm((2,))

    return Pt, Ms


@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
@pytest.mark.parametrize("extra_torch_head", [False, True], ids=["matching", "extra-torch-linear"])
def test_real_torch_and_mindspore_layers(extra_torch_head):
    from migcheck.runners.mindspore_side import MindSporeCell
    from migcheck.runners.torch_side import TorchModule

    Pt, Ms = _real_stack(extra_torch_head)
    torch_side, ms_side = TorchModule(Pt), MindSporeCell(Ms, "pynative")
    m = map_weights(torch_side.params(), ms_side.params())
    assert {t: ms for t, (ms, _) in pairs_of(m).items()} == {
        "emb.weight": "emb.embedding_table",
        "conv.weight": "conv.weight", "conv.bias": "conv.bias",
        "bn.weight": "bn.gamma", "bn.bias": "bn.beta",
        "bn.running_mean": "bn.moving_mean", "bn.running_var": "bn.moving_variance",
        "fc.weight": "fc.weight", "fc.bias": "fc.bias",
        "ln.weight": "ln.gamma", "ln.bias": "ln.beta",
    }
    assert [s.torch_name for s in m.skipped] == ["bn.num_batches_tracked"]
    if extra_torch_head:
        assert m.problems() == [
            "torch 'head.weight' [2, 2] (Linear) has no MindSpore counterpart;"
            " add it to the case's weight_map (or map it to None if unused on purpose)",
            "torch 'head.bias' [2] (Linear) has no MindSpore counterpart;"
            " add it to the case's weight_map (or map it to None if unused on purpose)",
        ]
        return
    assert m.ok
    # The mapped arrays land in the right MindSpore parameters.
    weights = make_weights(torch_side.params(), case_name="mapping-test")
    torch_side.load(weights)
    ms_side.load(to_mindspore(weights, m))
    state = ms_side.state()
    np.testing.assert_array_equal(state["bn.moving_variance"], weights["bn.running_var"])
    np.testing.assert_array_equal(state["emb.embedding_table"], weights["emb.weight"])
    np.testing.assert_array_equal(state["ln.gamma"], weights["ln.weight"])
    assert (state["bn.moving_variance"] > 0).all()
