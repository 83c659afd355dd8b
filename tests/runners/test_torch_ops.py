"""torch builtins without a Python signature get the one their docstring writes out, so an op record knows the
defaults a call used without saying them (torch.linalg.cross's dim=-1)."""
import pytest

torch = pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytestmark = pytest.mark.needs_torch

from migcheck.runners.torch_ops import _defaults, _names, doc_signature  # noqa: E402


def test_a_builtin_reads_its_docstring_signature():
    assert _names(torch.linalg.cross) == ("input", "other")
    assert ("dim", -1) in _defaults(torch.linalg.cross)


def test_a_tensor_method_gets_self_first_so_positional_arguments_line_up():
    assert _names(torch.Tensor.std)[:2] == ("self", "dim")
    assert ("correction", 1) in _defaults(torch.Tensor.std)


def test_a_default_written_as_a_name_or_a_call_is_not_evaluated():
    sig = doc_signature("op(input, *, dtype=torch.float32, hook=__import__('os').getcwd(), n=2) -> Tensor")
    assert [(p.name, p.default) for p in sig.parameters.values() if p.default is not p.empty] == [("n", 2)]
    assert doc_signature("Apply a softmax function.") is None

