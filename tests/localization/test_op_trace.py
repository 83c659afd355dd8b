"""Naming the functional calls a module's own forward makes, and picking those between two children. Pure."""
from migcheck.localization.op_trace import OpCall, describe, ops_between, span_of
from migcheck.localization.locate import Call


def test_calls_are_named_with_their_plain_arguments():
    assert describe("softmax", "softmax", "torch.nn.functional", [], [("dim", -1)]) == "F.softmax(dim=-1)"
    assert describe("__mul__", "Tensor.__mul__", "torch._tensor", [0.35355339], []) == "Tensor * 0.3536"
    assert describe("transpose", "TensorBase.transpose", "", [1, 2], []) == "Tensor.transpose(1, 2)"
    assert describe("cat", "cat", "torch", [], [("dim", 1)]) == "torch.cat(dim=1)"


def test_metadata_reads_and_capture_conversions_are_not_listed():
    for name in ("size", "dim", "shape", "__get__", "cpu", "numpy", "contiguous"):
        assert describe(name, f"Tensor.{name}", "", [], []) == ""


def test_only_the_owner_s_own_calls_between_the_two_spans():
    ops = [OpCall(2, "", "F.relu()"), OpCall(4, "block", "Tensor * 2"), OpCall(6, "", "Tensor.mul(0.5)"),
           OpCall(9, "", "F.gelu()")]
    assert ops_between(ops, "", 5, 8) == ["Tensor.mul(0.5)"]
    assert ops_between(ops, "block", 0, 100) == ["Tensor * 2"]
    many = [OpCall(i, "", f"op{i}") for i in range(20)]
    assert ops_between(many, "", -1, 100, limit=3) == ["op0", "op1", "op2", "... 17 more"]


def test_spans_of_a_child_used_twice():
    calls = [Call("fc", "Linear", (), None, 1, 3), Call("fc", "Linear", (), None, 5, 7), Call("", "Net", (), None, 0, 9)]
    assert span_of(calls, "fc", before=6, last=True) == (1, 3)
    assert span_of(calls, "fc", after=3) == (5, 7)
    assert span_of([Call("fc", "Linear", (), None)], "fc") is None  # MindSpore's calls carry no spans
