"""Which .py files pytest collects as case files: pure path rules, plus a cheap look (no import) for PairedCases.

Patterns: an entry ending in '/' names a folder (every .py file below a folder of that name is a case
file, e.g. 'cases/'); any other entry is a file-name glob ('*_cases.py'). A file named on the command
line is collected whenever it defines a PairedCase, whatever its name.
"""
from __future__ import annotations

import ast
import fnmatch
from pathlib import Path
from typing import Collection, Iterable, List, Sequence, Tuple

DEFAULT_PATTERNS = ("cases/", "*_cases.py", "cases_*.py")
# Never case files, even inside a cases/ folder: pytest's own test modules and private helpers.
_NEVER = ("_", "test_", "conftest")


def matches(path: Path, folders: Sequence[str], patterns: Sequence[str]) -> bool:
    """path matches one of the patterns; folders: the folder names from the rootdir down to its parent."""
    if path.suffix != ".py" or path.name.startswith(_NEVER):
        return False
    for pattern in patterns:
        if pattern.endswith("/"):
            if any(fnmatch.fnmatchcase(part, pattern.rstrip("/")) for part in folders):
                return True
        elif fnmatch.fnmatchcase(path.name, pattern):
            return True
    return False


def split_patterns(entries: Iterable[str]) -> Tuple[str, ...]:
    """Ini entries (one per line or space-separated) as a tuple, empty entries dropped."""
    return tuple(e.strip() for e in entries if e.strip())


def defines_cases(path: Path) -> bool:
    """True when the file assigns a PairedCase(...) at module level. Read, not imported: the text must
    name PairedCase, then the syntax tree must show the call (a test module that merely mentions one
    in a string does not count)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if "PairedCase" not in text:
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True  # let collection import it and report the syntax error with its line
    for node in tree.body:
        value = getattr(node, "value", None) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call):
            func = value.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "PairedCase":
                return True
    return False


def uncollected_hint(path: Path, patterns: Sequence[str]) -> str:
    """What to tell a user whose file defines cases but was not collected."""
    shown = " ".join(patterns) or "(none)"
    return (f"migcheck: {path} defines PairedCases but was not collected: its path matches none of the"
            f" migcheck_case_patterns ({shown}). Name the file on the command line, rename it (e.g."
            f" {path.stem}_cases.py), or add a pattern under [tool.pytest.ini_options] migcheck_case_patterns")


def is_case_file(path: Path, root: Path, named: Collection[Path], patterns: Sequence[str]) -> bool:
    """Whether pytest collects path as a case file. named: the paths given on the command line (resolved): a .py
    file among them is one whenever it defines a PairedCase; any other path must match a pattern, read from the
    rootdir down (a checkout that merely lives under some 'cases' folder keeps its helper modules)."""
    if path.resolve() in named and path.suffix == ".py" and defines_cases(path):
        return True
    try:
        folders = (root.name,) + path.parent.relative_to(root).parts
    except ValueError:  # outside the rootdir
        folders = path.parent.parts
    return matches(path, folders, patterns)


def uncollected_hints(named: Sequence[Path], collected: Collection[Path], patterns: Sequence[str],
                      base: Path, limit: int = 2000) -> List[str]:
    """A hint for each file named on the command line, or below a folder named there, that defines cases but
    was not collected (pytest alone would only say "no tests ran"). A folder is read up to limit files, so
    that `pytest .` in a big tree stays quick; only files that mention PairedCase are parsed."""
    files: List[Path] = []
    for path in named:
        if path.is_file() and path.suffix == ".py":
            files.append(path)
        elif path.is_dir():
            for i, p in enumerate(sorted(path.rglob("*.py"))):
                if i >= limit:
                    break
                if not any(part.startswith(".") or part in ("__pycache__", "site-packages")
                           for part in p.relative_to(path).parts):
                    files.append(p)
    hints = []
    for path in files:
        if path not in collected and defines_cases(path):
            try:
                shown = path.relative_to(base)
            except ValueError:
                shown = path
            hints.append(uncollected_hint(shown, patterns))
    return hints
