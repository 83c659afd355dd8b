"""Explicit maps, rename rules, transforms and structural pairing, on plain ParamInfo lists."""
import numpy as np

from migcheck.mapping.transfer import map_weights, to_mindspore, to_torch
from migcheck.runners.base import ParamInfo
from migcheck.transforms import transpose


def P(name, shape, kind, trainable=True, buffer=False):
    return ParamInfo(name, tuple(shape), "float32", kind, trainable, buffer)


def rows(mapping):
    return {(r.torch_name, r.ms_name, r.how, r.transform) for r in mapping.pairs}


def test_renamed_and_regrouped_layers_pair_by_structure_and_say_so():
    torch = [P("conv1.weight", (4, 3, 3, 3), "Conv2d"), P("bn1.weight", (4,), "BatchNorm2d"),
             P("bn1.bias", (4,), "BatchNorm2d"), P("fc.weight", (5, 4), "Linear"), P("fc.bias", (5,), "Linear")]
    ms = [P("features.0.weight", (4, 3, 3, 3), "Conv2d"), P("features.1.gamma", (4,), "BatchNorm2d"),
          P("features.1.beta", (4,), "BatchNorm2d"), P("classifier.weight", (5, 4), "Dense"),
          P("classifier.bias", (5,), "Dense")]
    m = map_weights(torch, ms)
    assert m.ok
    assert ("bn1.weight", "features.1.gamma", "structure (unique signature)", "") in rows(m)
    assert ("fc.weight", "classifier.weight", "structure (unique signature)", "") in rows(m)
    assert len(m.structural()) == 5
    assert [i.describe() for i in m.inferred][1] == \
        "torch 'bn1' -> MindSpore 'features.1' (unique signature; high confidence)"


def test_adjacent_same_shaped_layers_are_ambiguous_not_guessed():
    torch = [P("body.weight", (6, 6), "Linear"), P("head.weight", (6, 6), "Linear")]
    ms = [P("output.weight", (6, 6), "Dense"), P("hidden.weight", (6, 6), "Dense")]
    m = map_weights(torch, ms)
    assert not m.ok and m.pairs == ()
    assert any("ambiguous pairing" in p and "'body'" in p and "'hidden'" in p for p in m.problems())


def test_repeated_blocks_pair_by_position_when_both_trees_keep_the_same_structure():
    torch = [P("a.conv.weight", (4, 4, 3, 3), "Conv2d"), P("a.bn.weight", (4,), "BatchNorm2d"),
             P("b.conv.weight", (4, 4, 3, 3), "Conv2d"), P("b.bn.weight", (4,), "BatchNorm2d")]
    ms = [P("x.0.weight", (4, 4, 3, 3), "Conv2d"), P("x.1.gamma", (4,), "BatchNorm2d"),
          P("y.0.weight", (4, 4, 3, 3), "Conv2d"), P("y.1.gamma", (4,), "BatchNorm2d")]
    m = map_weights(torch, ms)
    assert m.ok
    assert ("b.conv.weight", "y.0.weight", "structure (aligned position)", "") in rows(m)
    assert {i.confidence for i in m.inferred} == {"high"}  # the whole sequences agree


def test_a_unique_signature_pairs_even_when_the_trees_are_ordered_differently():
    torch = [P("emb.weight", (10, 4), "Embedding"), P("out.weight", (3, 4), "Linear")]
    ms = [P("head.weight", (3, 4), "Dense"), P("tokens.embedding_table", (10, 4), "Embedding")]
    m = map_weights(torch, ms)
    assert m.ok and ("emb.weight", "tokens.embedding_table", "structure (unique signature)", "") in rows(m)


def test_regex_rename_rules():
    torch = [P("body.weight", (6, 6), "Linear"), P("head.weight", (6, 6), "Linear")]
    ms = [P("output.weight", (6, 6), "Dense"), P("hidden.weight", (6, 6), "Dense")]
    m = map_weights(torch, ms, [(r"body\.(.*)", r"hidden.\1"), (r"head\.(.*)", r"output.\1")])
    assert m.ok and ("body.weight", "hidden.weight", "rename #1", "") in rows(m)


def test_list_value_splits_and_tuple_key_concatenates():
    torch = [P("in_proj_weight", (6, 2), "MultiheadAttention")]
    ms = [P("q.weight", (2, 2), "Dense"), P("k.weight", (2, 2), "Dense"), P("v.weight", (2, 2), "Dense")]
    m = map_weights(torch, ms, {"in_proj_weight": ["q.weight", "k.weight", "v.weight"]})
    assert m.ok and {r.transform for r in m.pairs} == {"split(axis=0)"}
    packed = np.arange(12.0).reshape(6, 2)
    ms_arrays = to_mindspore({"in_proj_weight": packed}, m)
    assert ms_arrays["k.weight"].tolist() == [[4, 5], [6, 7]]
    assert np.array_equal(to_torch(ms_arrays, m)["in_proj_weight"], packed)

    joined = map_weights([P("q", (2,), "X"), P("k", (3,), "X")], [P("qk", (5,), "Y")], {("q", "k"): "qk"})
    assert joined.ok and to_mindspore({"q": np.ones(2), "k": np.zeros(3)}, joined)["qk"].tolist() == [1, 1, 0, 0, 0]


def test_declared_transform_applies_both_ways_and_a_wrong_one_is_a_shape_problem():
    torch = [P("weight", (3, 5), "Linear")]
    ms = [P("weight", (5, 3), "TransposedDense")]
    m = map_weights(torch, ms, transforms={"weight": transpose(1, 0)})
    assert m.ok and {r.transform for r in m.pairs} == {"transpose(1, 0)"}
    w = np.arange(15.0).reshape(3, 5)
    assert np.array_equal(to_mindspore({"weight": w}, m)["weight"], w.T)
    assert np.array_equal(to_torch({"weight": w.T}, m)["weight"], w)
    undeclared = map_weights(torch, ms)
    assert any("shape mismatch" in p and "weight_transforms" in p for p in undeclared.problems())


def test_singleton_axes_are_reshaped_automatically():
    m = map_weights([P("w", (6, 4, 3), "Conv1d")], [P("w", (6, 4, 1, 3), "Conv1d")])
    assert m.ok and {r.transform for r in m.pairs} == {"reshape"}
    assert to_torch({"w": np.zeros((6, 4, 1, 3))}, m)["w"].shape == (6, 4, 3)


def test_to_torch_leaves_out_links_without_mindspore_values():
    m = map_weights([P("w", (2,), "X"), P("rm", (2,), "BatchNorm1d", False, True)],
                    [P("w", (2,), "X"), P("rm", (2,), "BatchNorm1d", False, True)])
    assert set(to_torch({"w": np.ones(2)}, m)) == {"w"}


# --- zero-config pairing of renamed ports: alignment, confidence, ambiguity, port diagnoses ---------

def _zoo(prefix_t, prefix_m, extra_ms=False):
    """A timm-style block list on torch, a features.N.layers.M port; optionally one extra MindSpore layer."""
    torch, ms = [], []
    for i, (cin, cout) in enumerate([(4, 6), (6, 8)]):
        t, m = f"{prefix_t}.{i}.0", f"{prefix_m}.{i + 3}.layers"
        torch += [P(f"{t}.conv_dw.weight", (cin, 1, 3, 3), "Conv2d"), P(f"{t}.bn1.weight", (cin,), "BatchNorm2d"),
                  P(f"{t}.bn1.bias", (cin,), "BatchNorm2d"), P(f"{t}.conv_pw.weight", (cout, cin, 1, 1), "Conv2d")]
        ms += [P(f"{m}.0.weight", (cin, 1, 3, 3), "Conv2d"), P(f"{m}.1.gamma", (cin,), "BatchNorm2d"),
               P(f"{m}.1.beta", (cin,), "BatchNorm2d"), P(f"{m}.3.weight", (cout, cin, 1, 1), "Conv2d")]
        if extra_ms and i == 0:
            ms += [P(f"{m}.5.weight", (3, 3), "Dense")]  # a layer the original does not have
    return torch, ms


def test_zoo_style_renames_pair_with_no_weight_map():
    torch, ms = _zoo("blocks", "features")
    m = map_weights(torch, ms)
    assert m.ok
    assert ("blocks.1.0.conv_dw.weight", "features.4.layers.0.weight", "structure (unique signature)", "") in rows(m)
    assert all(i.confidence == "high" for i in m.inferred)


def test_an_extra_layer_in_the_port_shifts_nothing_else():
    torch, ms = _zoo("blocks", "features", extra_ms=True)
    m = map_weights(torch, ms)
    assert len(m.pairs) == len(torch)
    assert m.problems() == ["MindSpore 'features.3.layers.5.weight' [3, 3] (Dense) is set by no torch parameter;"
                            " add the torch name that feeds it to the case's weight_map"]


def test_swapped_registration_order_is_reported_with_its_candidates():
    torch = [P("fc1.weight", (6, 6), "Linear"), P("fc1.bias", (6,), "Linear"),
             P("fc2.weight", (6, 6), "Linear"), P("fc2.bias", (6,), "Linear")]
    ms = [P("second.weight", (6, 6), "Dense"), P("second.bias", (6,), "Dense"),
          P("first.weight", (6, 6), "Dense"), P("first.bias", (6,), "Dense")]
    m = map_weights(torch, ms)
    assert m.pairs == ()  # never guessed
    assert [(a.torch_layers, a.ms_layers) for a in m.ambiguities] == [(("fc1", "fc2"), ("second", "first"))]
    assert m.problems() == [m.ambiguities[0].message()]  # said once, per group, not per parameter
    assert "'fc1', 'fc2'" in m.problems()[0] and "'second', 'first'" in m.problems()[0]
    settled = map_weights(torch, ms, resolved={"fc1": "first", "fc2": "second"})
    assert settled.ok and ("fc1.weight", "first.weight", "activations", "") in rows(settled)


def test_a_dropped_bias_is_a_port_diagnosis_and_the_weight_still_transfers():
    torch = [P("head.weight", (10, 8, 1, 1), "Conv2d"), P("head.bias", (10,), "Conv2d")]
    dropped = map_weights(torch, [P("features.6.weight", (10, 8, 1, 1), "Conv2d")])
    assert ("head.weight", "features.6.weight", "structure (unique signature, bias ignored)", "") in rows(dropped)
    assert dropped.problems() == [
        "the MindSpore Conv2d 'features.6' has no bias, but torch 'head' (Conv2d) has one ('head.bias' [10]):"
        " pass has_bias=True to the Conv2d (has_bias=False is its default)"]
    assert dropped.untransferred_torch() == ("head.bias",)
    twin = map_weights(torch, [P("features.6.weight", (10, 8, 1, 1), "Conv2d"), P("features.6.bias", (10,), "Conv2d")])
    assert twin.ok


def test_an_added_bias_and_an_unfed_norm_scale_are_port_diagnoses():
    extra = map_weights([P("fc.weight", (3, 4), "Linear")], [P("fc.weight", (3, 4), "Dense"), P("fc.bias", (3,), "Dense")])
    assert extra.problems() == ["the MindSpore Dense 'fc' has bias ('fc.bias' [3]), which torch 'fc' (Linear) lacks"
                                " (built with bias=False): pass has_bias=False to the Dense"]
    assert extra.left_at_port_values() == ("fc.bias",)
    gn = [P("gn.gamma", (4,), "GroupNorm", trainable=False), P("gn.beta", (4,), "GroupNorm", trainable=False)]
    undeclared = map_weights([], gn)
    assert all("constant_params=('gn." in p for p in undeclared.problems()) and len(undeclared.problems()) == 2
    declared = map_weights([], gn, constant=("gn.*",))
    assert declared.ok and [c.name for c in declared.constant] == ["gn.gamma", "gn.beta"]
    assert map_weights([], gn, constant=("gn.gama",)).warnings == (
        "constant_params entry 'gn.gama' matches no MindSpore parameter name",)
