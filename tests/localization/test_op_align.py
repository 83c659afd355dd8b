"""Op-level dataflow alignment on hand-made records (pure: no framework)."""
import numpy as np

from migcheck.localization.op_align import diverging_ops, same_value
from migcheck.localization.op_candidates import as_constructor, candidates
from migcheck.records.ops import OpRecord

SAME = same_value(1e-5, 1e-6)
X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _op(index, name, inputs, outputs, positional=(), keywords=(), names=(), init=()):
    return OpRecord(index, name, positional, keywords, tuple(inputs), tuple(outputs), names, init)


def test_the_first_op_with_agreeing_inputs_and_a_differing_output_is_found_and_inherited_ones_are_not():
    torch_ops = [_op(7, "softmax", [X], [X * 2], ("<tensor>",), (("dim", 0),), ("input", "dim"))]
    ms_ops = [_op(0, "softmax", [X], [X * 3], ("<tensor>",), (("axis", -1),), ("input", "axis")),
              _op(1, "Tensor.__add__", [X * 3], [X * 3 + 1])]  # fed the diverging value: inherited
    (div,) = diverging_ops(ms_ops, torch_ops, [X], SAME)
    assert div.ms.index == 0 and div.torch.name == "softmax" and div.producers == ()


def test_an_op_whose_output_torch_also_computed_is_no_divergence():
    torch_ops = [_op(3, "mul", [X], [X * 2])]
    ms_ops = [_op(0, "Tensor.__mul__", [X], [X * 2])]
    assert diverging_ops(ms_ops, torch_ops, [X], SAME) == []


def test_integer_indices_cast_to_float_are_not_torchs_float_values():
    idx = np.array([2, 0], dtype=np.int64)
    torch_ops = [_op(1, "max", [X], [idx.astype(np.float32), idx])]  # values happen to equal the indices
    ms_ops = [_op(0, "ArgMaxWithValue", [X], [idx.astype(np.int32), idx.astype(np.float32)]),
              _op(1, "Tensor.astype", [idx.astype(np.int32)], [idx.astype(np.float32) + 0.0])]
    assert [d.ms.index for d in diverging_ops(ms_ops, torch_ops, [X], same_value(1e-5, 1e-6))] == []
    idx_f = np.array([2.5, 0.5], dtype=np.float32)
    ms_ops[1] = _op(1, "Tensor.astype", [idx.astype(np.int32)], [idx_f])
    (div,) = diverging_ops(ms_ops, torch_ops, [X], SAME)
    assert div.producers == (0,)


def test_candidates_take_torchs_value_by_meaning_then_swaps_and_the_drop():
    torch_op = _op(4, "mean", [X], [X[:, :1]], ("<tensor>",), (("dim", -1), ("keepdim", True)), ("input",))
    ms_op = _op(2, "ReduceMean", [X], [X[:, 0]], ("<tensor>", -1), (), ("x", "axis"), (("keep_dims", False),))
    producer = _op(1, "ArgMaxWithValue", [X], [X, X])
    assert {a.name for a in as_constructor(ms_op)[0].arguments} == {"axis", "keep_dims"}
    from migcheck.localization.op_align import OpDivergence

    changes = candidates(OpDivergence(ms_op, torch_op, (1,)), [producer, ms_op])
    first, words = changes[0]
    assert first.init == (("keep_dims", True),) and "torch's keepdim" in words
    assert any(c.swap_outputs and c.index == 1 for c, _ in changes)
    # dropped is tried whatever the shapes, last: only the construct's re-run agreeing with torch confirms it
    assert [c.drop for c, _ in changes][-1] and sum(c.drop for c, _ in changes) == 1  # (2, 3) in, (2,) out: last


def test_the_trail_back_to_a_child_follows_values_that_hold_nan():
    from migcheck.localization.op_align import computed_from
    from migcheck.records.ops import OpRecord

    child = np.array([[1.0, 2.0]], np.float32)
    masked = np.array([[1.0, np.nan]], np.float32)
    records = [OpRecord(-1, "cell:b", outputs=(child,)), OpRecord(0, "masked_fill", inputs=(child,), outputs=(masked,))]
    _, sources = computed_from([masked.copy()], records, lambda r: r.index < 0)
    assert [r.name for r in sources] == ["cell:b"]
