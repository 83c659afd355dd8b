"""Find paired cases in files and folders. A broken file or case becomes an error entry; the rest still load."""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, List, Optional, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover  (imported in load_file: the discovery cache's warm path needs no numpy)
    from migcheck.case import PairedCase


@dataclass(frozen=True)
class LoadError:
    """A case file or case that could not be used: where, what, and how to fix it."""

    path: str
    case: str  # "" when the whole file failed
    problem: str

    def __str__(self) -> str:
        where = f"{self.path}::{self.case}" if self.case else self.path
        return f"{where}: {self.problem}"


@dataclass(frozen=True)
class Collection:
    cases: Tuple[PairedCase, ...]
    errors: Tuple[LoadError, ...]


def case_files(paths: Iterable[str]) -> Tuple[List[Path], List[LoadError]]:
    """Python files under the given paths (folders searched recursively, '_'-prefixed files skipped)."""
    files, errors = [], []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(p for p in sorted(path.rglob("*.py")) if not p.name.startswith("_") and "__pycache__" not in p.parts)
        elif path.is_file() and path.suffix == ".py":
            files.append(path)
        else:
            errors.append(LoadError(str(path), "", "no such case file or folder; pass a .py file or a folder of them"))
    return files, errors


def load_file(path: Path) -> Collection:
    """Import one case file and return its cases, named after their variables unless named already."""
    from migcheck.case import PairedCase, case_problems
    from migcheck.planning.import_probe import crash_at_import

    if _module_name(path) not in sys.modules:  # a file whose import kills the process: an error, not the end
        crash = crash_at_import(path, _import)
        if crash is not None:
            return Collection((), (LoadError(str(path), "", crash),))
    try:
        module = _import(path)
    except SyntaxError as exc:
        return Collection((), (LoadError(str(path), "", f"syntax error at line {exc.lineno}: {exc.msg}; fix the case file"),))
    except ImportError as exc:
        return Collection((), (LoadError(str(path), "", _import_problem(exc) + _line_in(exc, path)),))
    except (Exception, SystemExit) as exc:  # sys.exit() in a case file must not end the whole run
        return Collection((), (LoadError(str(path), "", f"importing it raised {type(exc).__name__}: {exc}"
                                         f"{_line_in(exc, path)}; fix the case file"),))
    cases, errors = [], []
    for attr, value in vars(module).items():
        if not isinstance(value, PairedCase):
            continue
        name = value.name or attr
        if not isinstance(name, str):
            errors.append(LoadError(str(path), attr, f"name={name!r} is not a string (fix: name the case with a str,"
                                                     f" or leave name out to use the variable name)"))
            continue
        case = dataclasses.replace(value, name=name, file=str(path.resolve()), doc=value.doc or "")
        try:
            problems = case_problems(case)
        except Exception as exc:  # a field of the wrong type that the checks themselves trip over
            problems = [(f"the case definition cannot be checked ({type(exc).__name__}: {exc})",
                         "give each field the type the README's field table shows")]
        if not problems and any(c.name == case.name for c in cases):
            problems = [(f"duplicate case name, also defined in {path}", "give one of them another name")]
        if problems:
            errors.extend(LoadError(str(path), case.name, f"{p} (fix: {fix})") for p, fix in problems)
            continue
        cases.append(case)
    return Collection(tuple(cases), tuple(errors))


def _line_in(exc: BaseException, path: Path) -> str:
    """' (line N)': where in the case file the exception came from, when its traceback passes through it."""
    resolved = str(path.resolve())
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == resolved]
    return f" (line {lines[-1]})" if lines else ""


def _import_problem(exc: ImportError) -> str:
    """A framework missing at import time: say how to write the file so that it loads anyway."""
    name = (exc.name or "").split(".")[0]
    if name in ("torch", "mindspore"):
        return (f"it imports {name} at module level, but {name} cannot be imported here ({exc}); to load on a"
                f" machine without {name} (e.g. compare --golden), import {name} inside the {name}-side factories"
                f" instead (`def torch_net(): import torch; return torch.nn.Linear(3, 2)`): see the README's"
                f" golden fixtures section")
    return f"importing it raised {type(exc).__name__}: {exc}"


def discover(paths: Sequence[str], load: Optional[Callable[[Path], Collection]] = None) -> Collection:
    """Every case under paths. load: how one file is loaded (default load_file; `migcheck list` passes
    migcheck.planning.cache's, which answers from the cache for unchanged files)."""
    files, errors = case_files(paths)
    cases: List[PairedCase] = []
    seen = {}
    for path in files:
        loaded = (load or load_file)(path)
        errors.extend(loaded.errors)
        for case in loaded.cases:
            if case.name in seen:
                errors.append(LoadError(str(path), case.name, f"duplicate case name, also defined in {seen[case.name]};"
                                        " give one of them another name"))
                continue
            seen[case.name] = str(path)
            cases.append(case)
    return Collection(tuple(cases), tuple(errors))


def _module_name(path: Path) -> str:
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    return f"migcheck_cases_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{digest}"


def _import(path: Path):
    resolved = path.resolve()
    name = _module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    module = importlib.util.module_from_spec(spec)
    # Registered before running: MindSpore's graph parser resolves names through the module.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
