"""The package's shape: no import cycles, frameworks only in runners/, small modules. Pure (reads source)."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Set

PACKAGE = Path(__file__).resolve().parents[1] / "migcheck"
MAX_LINES = 450
# Modules allowed over the limit for now, with the reason; the list should only shrink.
OVERSIZE: Dict[str, str] = {}
FRAMEWORKS = ("torch", "mindspore")
# The package dependency order (CONTRIBUTING.md, "Dependency order"), bottom first: a unit (the first name
# under migcheck/) imports only units listed before it. "__init__" is the lazy public facade, above all.
ORDER = ("util", "vocab", "specs", "transforms", "tolerance", "precision", "knowledge", "records", "options",
         "runners", "mapping", "case", "planning", "judging", "serialize", "localization", "golden", "report",
         "running", "pytest_items", "pytest_plugin", "cli", "__init__")


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


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_unit_has_a_place_in_the_order():
    missing = sorted({_unit(m) for m in _modules()} - set(ORDER))
    assert not missing, f"add {missing} to ORDER in tests/test_architecture.py and to CONTRIBUTING.md's order"


def _against_order(graph: Dict[str, Set[str]]) -> List[str]:
    rank = {unit: i for i, unit in enumerate(ORDER)}
    against = []
    for importer, imported_all in sorted(graph.items()):
        for imported in sorted(imported_all):
            low, high = _unit(importer), _unit(imported)
            if low != high and rank.get(high, -1) > rank.get(low, -1):
                against.append(f"{importer} imports {imported}: '{low}' sits below '{high}' in the package order"
                               f" (a unit imports only units below it; move the shared part down)")
    return against


def test_imports_follow_the_package_order():
    against = _against_order(_graph())
    assert not against, "\n".join(against)


def test_a_function_level_import_against_the_order_is_caught(tmp_path):
    """The rule reads imports inside functions too, and names both modules (a relative import resolves)."""
    source = tmp_path / "locate.py"
    source.write_text("def f():\n    from ..running.outcome import Outcome\n    return Outcome\n")
    found = {m for m in _imports(source, "migcheck.localization.locate") if m.count(".") == 2}
    assert found == {"migcheck.running.outcome"}
    assert _against_order({"migcheck.localization.locate": found}) == [
        "migcheck.localization.locate imports migcheck.running.outcome: 'localization' sits below 'running' in the"
        " package order (a unit imports only units below it; move the shared part down)"]
    assert _against_order({"migcheck.running.outcome": {"migcheck.localization.locate"}}) == []


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


# A test file that imports a framework, asks pytest to import one, or writes a case file that does (for a
# subprocess run) says so with a needs_* marker, so a machine without that framework skips it with the reason.
_RUNS_A_FRAMEWORK = re.compile(r"\bimport (torch|mindspore)\b|\bfrom (torch|mindspore)(\.\w+)* import\b"
                               r"|importorskip\(\"(torch|mindspore)\"\)")


def test_test_files_that_run_a_framework_say_so_with_a_marker():
    unmarked = [str(p.relative_to(PACKAGE.parent)) for p in sorted((PACKAGE.parent / "tests").rglob("test_*.py"))
                if _RUNS_A_FRAMEWORK.search(text := p.read_text()) and not re.search(r"\bneeds_(torch|mindspore)\b", text)]
    assert not unmarked, f"add pytest.mark.needs_torch / needs_mindspore to the tests that run one in: {unmarked}"


# The pytest plugin is a thin adapter over running.session.RunSession, the object that owns a run for every front
# end: it reaches what makes, journals or reports a verdict, and the signal handling, only through the session.
SESSION_OWNS = ("migcheck.running.outcome", "migcheck.running.pipeline", "migcheck.running.changed",
                "migcheck.running.isolation", "migcheck.report.journal", "migcheck.report", "migcheck.report.outdir",
                "migcheck.util.signals", "migcheck.judging.verdict")


def test_the_pytest_plugin_builds_no_verdict_and_writes_no_journal_or_report_itself():
    offenders = []
    for name in ("migcheck.pytest_plugin", "migcheck.pytest_items"):
        path = _modules()[name]
        offenders += [f"{name} imports {m}" for m in _imports(path, name) if m in SESSION_OWNS]
        offenders += [f"{name} calls {call}" for call in re.findall(r"\b(Verdict|Journal|verdict_for)\(",
                                                                        path.read_text())]
    assert not offenders, "\n".join(offenders)
