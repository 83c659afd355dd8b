"""Candidates for the argument search, generated from the two calls' own arguments (pure: no framework)."""
import numpy as np

from migcheck.localization.arg_candidates import (align, alternative_kwargs, doc_choices, not_carried, reorderings,
                                                  setting_candidates)
from migcheck.runners.base import Argument, Constructor

PAD_DOC = '''Pads the input.

Args:
    paddings (tuple): The shape of parameter `paddings` is (N, 2).
    mode (str): Specifies padding mode. The optional values are ``"CONSTANT"`` , ``"REFLECT"`` ,
        ``"SYMMETRIC"`` . Default: ``"CONSTANT"`` .

Inputs:
    - **x** (Tensor) - The input tensor, "ignored".
'''


def _arg(name, value, default=None, has_default=True, found=True):
    return Argument(name, value, found, has_default, default)


def test_doc_choices_reads_the_arguments_own_paragraph_only():
    assert doc_choices(PAD_DOC, "mode") == ("CONSTANT", "REFLECT", "SYMMETRIC")
    assert doc_choices(PAD_DOC, "paddings") == ()
    assert doc_choices("", "mode", "typing.Literal['nearest', 'bilinear']") == ("nearest", "bilinear")


def test_reorderings_of_pairs_and_flat_tuples():
    assert ((0, 0), (2, 0), (1, 0)) in reorderings(((0, 0), (1, 0), (2, 0)))
    assert (3, 4, 1, 2) in reorderings((1, 2, 3, 4)) and (2, 1, 4, 3) in reorderings((1, 2, 3, 4))
    assert reorderings((1, 1)) == [] and reorderings(5) == []


def test_enumeration_members_and_no_change_to_the_value_held():
    pad = Constructor("Pad", True, (_arg("paddings", ((0, 0), (1, 1)), has_default=False), _arg("mode", "SYMMETRIC")),
                      PAD_DOC)
    torch = Constructor("ReflectionPad1d", True, (_arg("padding", (1, 1), has_default=False),))
    labels = [c.changes for c in setting_candidates(torch, pad)]
    assert (("mode", "CONSTANT"),) in labels and (("mode", "REFLECT"),) in labels
    assert (("mode", "SYMMETRIC"),) not in labels


def test_torch_values_come_first_aligned_by_name_and_kind():
    ms = Constructor("Mine", False, (_arg("keep_dims", False, False), _arg("axis", 1, -1), _arg("naive", True, False)))
    torch = Constructor("Mean", False, (_arg("keepdim", True, False), _arg("dim", -1, None)))
    assert {k: t.name for k, t in align(torch, ms).items()} == {"keep_dims": "keepdim", "axis": "dim"}
    first = setting_candidates(torch, ms)[0]
    assert first.changes == (("keep_dims", True),) and "torch's keepdim" in first.why


def test_a_switch_of_the_ports_own_class_is_no_candidate():
    ms = Constructor("Patchify", False, (_arg("naive", True, False),))
    torch = Constructor("Unfold", True, (_arg("kernel_size", 2, has_default=False), _arg("stride", 1, 1)))
    assert setting_candidates(torch, ms) == []
    library = Constructor("Patchify", True, (_arg("naive", True, False),))
    assert [c.changes for c in setting_candidates(torch, library)] == [(("naive", False),)]


def test_not_carried_lists_torch_settings_away_from_their_default_only():
    torch = Constructor("Embedding", True, (_arg("num_embeddings", 10, has_default=False), _arg("max_norm", 0.1),
                                            _arg("norm_type", 2.0, 2.0), _arg("padding_idx", None)))
    ms = Constructor("Embedding", True, (_arg("vocab_size", 10, has_default=False), _arg("padding_idx", None)))
    assert [a.name for a in not_carried(torch, ms)] == ["max_norm"]  # a required one has no default to try


def test_alternative_kwargs_from_the_ports_call_and_torchs():
    ms = Constructor("Embedding", True, (_arg("vocab_size", 10, has_default=False), _arg("embedding_size", 4, False)))
    torch = Constructor("Embedding", True, (_arg("max_norm", 0.1),))
    alt = Constructor("Lookup", True, (_arg("vocab_size", None, has_default=False, found=False),
                                       _arg("embedding_size", None, has_default=False, found=False),
                                       _arg("max_norm", None, found=False)))
    assert alternative_kwargs(alt, ms, torch) == {"vocab_size": 10, "embedding_size": 4, "max_norm": 0.1}
    needs = Constructor("Other", True, (_arg("ksizes", None, has_default=False, found=False),))
    assert alternative_kwargs(needs, ms, torch) is None


POOL_DOC = '''Average pooling.

Args:
    pad_mode (str): The optional values are ``"same"`` , ``"valid"`` , ``"pad"`` . Default: ``"valid"`` .
'''


def _pool_calls():
    torch = Constructor("AvgPool2d", True, (_arg("kernel_size", 3, has_default=False), _arg("padding", 1, 0),
                                            _arg("ceil_mode", False, False)))
    port = Constructor("AvgPool2d", True, (_arg("kernel_size", 3), _arg("pad_mode", "same", "valid"),
                                           _arg("padding", 0, 0), _arg("ceil_mode", False, False)), POOL_DOC)
    return torch, port


def test_a_mode_that_needs_torchs_values_alongside_it_is_one_candidate():
    found = setting_candidates(*_pool_calls())
    assert (("pad_mode", "pad"), ("padding", 1)) in [c.changes for c in found]


def test_a_flip_against_torchs_own_value_comes_last_and_is_marked():
    found = setting_candidates(*_pool_calls())
    (flip,) = [c for c in found if c.changes == (("ceil_mode", True),)]
    assert flip.against_torch and found[-1] is flip
    assert not any(c.against_torch for c in found if c is not flip)


def test_numbers_no_name_aligns_are_paired_by_kind_after_the_named_ones():
    torch_c = Constructor("std_mean", True, (_arg("dim", 1), _arg("correction", 1), _arg("keepdim", True)))
    ms_c = Constructor("std_mean", True, (_arg("axis", 1), _arg("ddof", 0), _arg("keepdims", True)))
    found = [(c.changes, c.why) for c in setting_candidates(torch_c, ms_c)]
    assert ((("ddof", 1),), "torch's correction (no name aligns them: same kind of value)") in found
    by_kind = [changes for changes, why in found if "no name aligns" in why]
    assert by_kind == [(("ddof", 1),)]  # the named pairs (dim~axis, keepdim~keepdims) are not paired again
    same = Constructor("std_mean", True, (_arg("axis", 1), _arg("ddof", 1), _arg("keepdims", True)))
    assert not any("no name aligns" in why for _, why in [(c.changes, c.why) for c in setting_candidates(torch_c, same)])


def test_a_number_torch_leaves_none_is_tried_at_the_ports_other_numbers():
    torch_c = Constructor("AvgPool1d", True, (_arg("kernel_size", 3), _arg("stride", None), _arg("padding", 0)))
    ms_c = Constructor("AvgPool1d", True, (_arg("kernel_size", 3), _arg("stride", 1), _arg("padding", 0)))
    found = [c.changes for c in setting_candidates(torch_c, ms_c) if "torch leaves stride unset" in c.why]
    assert found == [(("stride", 3),), (("stride", 0),)]  # the port's kernel_size, then its padding
    set_c = Constructor("AvgPool1d", True, (_arg("kernel_size", 3), _arg("stride", 3), _arg("padding", 0)))
    assert not [c for c in setting_candidates(set_c, ms_c) if "unset" in c.why]  # torch's own 3 is tried by name


def test_a_stride_torch_leaves_none_is_tried_at_the_ports_kernel_size_given_per_axis():
    torch_c = Constructor("avg_pool3d", True, (_arg("kernel_size", (2, 1, 1)), _arg("stride", None)))
    ms_c = Constructor("avg_pool3d", True, (_arg("kernel_size", (2, 1, 1)), _arg("stride", 1), _arg("padding", 0)))
    found = [c.changes for c in setting_candidates(torch_c, ms_c) if "torch leaves stride unset" in c.why]
    assert found[0] == (("stride", (2, 1, 1)),)  # one number per axis for a stride given as one


def test_an_eps_both_calls_share_is_tried_squared_and_as_its_root():
    torch_c = Constructor("cosine_similarity", True, (_arg("dim", -1), _arg("eps", 1e-8)))
    ms_c = Constructor("cosine_similarity", True, (_arg("dim", -1), _arg("eps", 1e-8)))
    found = [c.changes for c in setting_candidates(torch_c, ms_c) if "both calls give" in c.why]
    assert found == [(("eps", 1e-16),), (("eps", 0.0001),)]
    other = Constructor("cosine_similarity", True, (_arg("dim", -1), _arg("eps", 1e-6)))
    assert not [c for c in setting_candidates(torch_c, other) if "both calls give" in c.why]  # torch's own is tried


def test_a_float_setting_is_tried_per_element_of_an_integer_torch_gives():
    # torch's local_response_norm divides alpha by the window size; MindSpore's LRN does not
    torch_c = Constructor("local_response_norm", True, (_arg("size", 5), _arg("alpha", 1e-4), _arg("beta", 0.75)))
    ms_c = Constructor("LRN", True, (_arg("depth_radius", 2), _arg("alpha", 1e-4), _arg("beta", 0.75)))
    changes = [c.changes for c in setting_candidates(torch_c, ms_c)]
    assert (("alpha", 2e-05),) in changes and (("alpha", 5e-04),) in changes
    # no integer in torch's call: nothing to apply per element
    plain = Constructor("f", True, (_arg("alpha", 1e-4),))
    assert not any("per element" in c.why for c in setting_candidates(plain, ms_c))


def test_a_small_float_torch_leaves_unset_is_tried_as_float32s_machine_epsilon():
    torch_c = Constructor("RMSNorm", True, (_arg("eps", None),))
    ms_c = Constructor("RMSNorm", True, (_arg("eps", 1e-6),))
    assert (("eps", float(np.finfo(np.float32).eps)),) in [c.changes for c in setting_candidates(torch_c, ms_c)]
    # torch's eps set: nothing derived from the dtype
    set_c = Constructor("RMSNorm", True, (_arg("eps", 1e-5),))
    assert not any("machine epsilon" in c.why for c in setting_candidates(set_c, ms_c))


def test_an_axis_argument_is_tried_where_a_shape_argument_of_several_axes_starts():
    ms_c = Constructor("LayerNorm", True, (_arg("normalized_shape", (3, 4)), _arg("begin_norm_axis", -1),
                                           _arg("begin_params_axis", -1)))
    changes = [c.changes for c in setting_candidates(Constructor("LayerNorm", True, ()), ms_c, rank=3)]
    assert (("begin_norm_axis", 1), ("begin_params_axis", 1)) in changes  # of the 3-D input, both together
    assert (("begin_norm_axis", -2), ("begin_params_axis", -2)) in changes  # counted from the end
    flat = Constructor("LayerNorm", True, (_arg("normalized_shape", (4,)), _arg("begin_norm_axis", -1)))
    assert not any("starts at" in c.why for c in setting_candidates(Constructor("LayerNorm", True, ()), flat))


def test_enumeration_members_in_restructuredtext_literals_are_read_and_pythons_constants_are_not():
    doc = "Args:\n    reduction (str): The operation, supports ``none`` , ``add`` . Default: ``None``.\n"
    assert doc_choices(doc, "reduction") == ("none", "add")
