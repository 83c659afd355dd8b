"""Keyword inputs, model-output objects and torch-like MindSpore modules, on the bundled cases and real layers."""
import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs torch, which is not installed here")
pytest.importorskip("mindspore", reason="needs MindSpore, which is not installed here")
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_mindspore]

from migcheck.planning.discovery import load_file  # noqa: E402
from migcheck.running.pipeline import Item, mapping_for, run_item  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _cases(name):
    return {c.name: c for c in load_file(ROOT / "cases" / name).cases}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_gpt2_like_port_is_fed_by_keyword_and_compared_by_field(mode):
    cases = _cases("keyword_models.py")
    good = run_item(Item(cases["gpt2_like_keywords"], "forward", mode, "cpu"))
    assert good.status == "pass", good.message
    assert [t.name for t in good.tensors] == ["out.logits"] + [f"out.hidden_states[{i}]" for i in range(3)]
    bad = run_item(Item(cases["gpt2_like_keywords_gelu_exact"], "forward", mode, "cpu"))
    assert (bad.status, bad.kind) == ("xfail", "value")


def test_gpt2_like_backward_reaches_fields_by_name():
    v = run_item(Item(_cases("keyword_models.py")["gpt2_like_keywords"], "backward", "pynative", "cpu"))
    assert v.status == "pass", v.message
    assert any(t.name == "grad.param.wte.weight" for t in v.tensors)


def test_positional_call_would_have_fed_the_mask_to_past_key_values():
    # The same port with inputs the decoder cannot name: refused, saying which input to rename.
    case = _cases("keyword_models.py")["gpt2_like_keywords"]
    from migcheck import integers, mask

    renamed = dataclasses.replace(case, name="renamed", inputs={"ids": integers(2, 5, high=16), "attention_mask": mask(2, 5)})
    v = run_item(Item(renamed, "forward", "pynative", "cpu"))
    assert v.status == "error" and "rename input(s) 'ids'" in v.message


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_torch_like_module_runs_and_maps(mode):
    cases = _cases("torch_like_modules.py")
    for check in ("forward", "backward"):
        v = run_item(Item(cases["torch_like_mlp"], check, mode, "cpu"))
        assert v.status == "pass", v.message
    bad = run_item(Item(cases["torch_like_mlp_eps"], "forward", mode, "cpu"))
    assert (bad.status, bad.kind) == ("xfail", "value")
    mapping = mapping_for(cases["torch_like_mlp"], mode)
    assert not mapping.problems() and len(mapping.pairs) == 6


def _try_in_forward():
    # A torch-like port whose forward uses try/finally: fine in PYNATIVE, a statement GRAPH cannot compile.
    from cases.torch_like_modules import Mlp

    class TryMlp(Mlp):
        def forward(self, x):
            try:
                y = super().forward(x)
            finally:
                pass
            return y

    return TryMlp()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_graph_failure_of_a_torch_like_module_is_a_compile_error_with_a_hint(mode, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    case = dataclasses.replace(_cases("torch_like_modules.py")["torch_like_mlp"], mindspore=_try_in_forward,
                               name="numpy_forward")
    v = run_item(Item(case, "forward", mode, "cpu"))
    if mode == "pynative":
        assert v.status == "pass", v.message
    else:
        assert (v.status, v.kind) == ("error", "graph-compile-error"), v.message
        assert "torch-like module (TryMlp)" in v.message and "modes=('pynative',)" in v.message
        assert "Traceback (most recent call last)" not in v.message
