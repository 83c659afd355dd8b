"""The runner protocols (migcheck/runners/probes.py): each runner implements every method its protocol declares,
with the same parameters, and the stages above hold a side only through a protocol, never as `Any`."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from migcheck.runners.probes import MindSporeProbe, OpReplayer, TorchProbe

PACKAGE = Path(__file__).resolve().parents[2] / "migcheck"
SIDE_NAMES = {"cell", "module", "side", "torch_side", "ms_side"}  # how the stages name a side


def _declared(protocol: type) -> dict:
    out = {}
    for klass in reversed(protocol.__mro__):
        if klass.__module__ == "migcheck.runners.probes":  # the protocols themselves, not typing's bases
            out.update({n: f for n, f in vars(klass).items() if inspect.isfunction(f) and not n.startswith("_")})
    return out


def _parameters(function) -> list:
    return [(p.name, p.kind, p.default is inspect.Parameter.empty)
            for p in inspect.signature(function).parameters.values()]


def _missing_or_different(protocol: type, runner: type) -> list:
    problems = []
    for name, declared in sorted(_declared(protocol).items()):
        actual = getattr(runner, name, None)
        if actual is None:
            problems.append(f"{runner.__name__} has no {name}()")
        elif _parameters(actual) != _parameters(declared):
            problems.append(f"{runner.__name__}.{name}{inspect.signature(actual)} is not {name}{inspect.signature(declared)}")
    return problems


@pytest.mark.needs_torch
def test_the_torch_runner_implements_its_probes():
    from migcheck.runners.torch_replay import Replayer
    from migcheck.runners.torch_side import TorchModule

    assert _missing_or_different(TorchProbe, TorchModule) == []
    assert _missing_or_different(OpReplayer, Replayer) == []


@pytest.mark.needs_mindspore
def test_the_mindspore_runner_implements_its_probe():
    from migcheck.runners.mindspore_side import MindSporeCell

    assert _missing_or_different(MindSporeProbe, MindSporeCell) == []


def test_a_runner_without_a_declared_method_is_named():
    class Partial:
        def load(self, weights):
            pass

    problems = _missing_or_different(OpReplayer, Partial)
    assert problems == ["Partial has no op_sites()", "Partial has no origins()", "Partial has no replay_ops()",
                        "Partial has no site_tensor()"]


def test_stages_hold_a_side_through_a_protocol_not_any():
    untyped = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] not in ("mapping", "localization", "running", "precision.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in node.args.args + node.args.kwonlyargs:
                    if arg.arg in SIDE_NAMES and isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Any":
                        untyped.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}({arg.arg}: Any)")
    assert not untyped, "hold a side as runners.base.Side or runners.probes.TorchProbe / MindSporeProbe: " + "; ".join(untyped)
