"""The package's shape: no import cycles, frameworks only in runners/, small modules. Pure (reads source)."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

PACKAGE = Path(__file__).resolve().parents[1] / "migcheck"
MAX_LINES = 450
# Modules allowed over the limit for now, with the reason; the list should only shrink.
OVERSIZE: Dict[str, str] = {}
FRAMEWORKS = ("torch", "mindspore")


def _modules() -> Dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, name: str) -> List[str]:
    """Every module this file imports, at any depth (function-level imports count too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.append(base)
            found += [f"{base}.{a.name}" for a in node.names]
    return found


def _graph() -> Dict[str, Set[str]]:
    """Module -> the modules it imports. `from pkg import submodule` is an arrow to the submodule only."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        found = set(_imports(path, name))
        parents = {m.rpartition(".")[0] for m in found if m in modules}
        graph[name] = {m for m in found if m in modules and m != name and m != "migcheck"
                       and not (m in parents and modules[m].name == "__init__.py")}
    return graph


def test_no_import_cycles_between_modules():
    graph = _graph()
    state: Dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: List[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_only_runners_import_torch_or_mindspore():
    offenders = []
    for name, path in _modules().items():
        if name.startswith("migcheck.runners."):
            continue
        for imported in _imports(path, name):
            if imported.split(".")[0] in FRAMEWORKS:
                offenders.append(f"{name} imports {imported}")
    assert not offenders, offenders


def test_no_module_over_the_size_limit():
    big = {name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES and name not in OVERSIZE}
    assert not big, big
