"""benchmarks/ and evaluation/ are not run by the suite, so a migcheck name they import that moved would break
them silently: every `from migcheck... import name` there must resolve. Read from the source (no framework
is imported), including imports inside functions."""
import ast
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for folder in ("benchmarks", "evaluation") for p in (ROOT / folder).rglob("*.py"))


def _defined(module: str) -> set:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"no module {module}"
    if spec.submodule_search_locations:  # a package: its submodules count as names too
        names = {p.stem for p in Path(spec.origin).parent.glob("*.py")} | {p.name for p in Path(spec.origin).parent.iterdir() if p.is_dir()}
    else:
        names = set()
    tree = ast.parse(Path(spec.origin).read_text())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    if "__getattr__" in names:  # a module-level __getattr__ (migcheck/__init__.py) resolves names lazily
        names.add("*")
    return names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_migcheck_name_a_script_imports_exists(path):
    missing = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "migcheck" and not node.level:
            names = _defined(node.module)
            missing += [f"{node.module}.{a.name} (line {node.lineno})" for a in node.names
                        if a.name not in names and "*" not in names]
    assert not missing, missing
