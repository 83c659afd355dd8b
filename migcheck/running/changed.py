"""`--changed`: re-run only the items whose inputs changed since the last report; reuse its verdicts for the rest.

An item's fingerprint is a sha256 over what can change its verdict: the case file's bytes, every case field
(factories by the source of the functions and classes they reach, as migcheck.golden.fingerprint reads it,
both sides), the bytes of the files those functions and classes come from, the item id, the options that judge
(not how the run executes), and the versions of Python, numpy, torch, MindSpore and migcheck (its own source
files' sizes and mtimes, so an edited migcheck is a change too). Best effort, said in docs/cli.md: code a
factory imports inside its body from a module no file above names is not seen.

Every verdict carries its fingerprint and when it was computed; a reused one also says which report it came
from. Crashed and timed-out verdicts are never reused (they say nothing about the code).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
import os
import sys
import sysconfig
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from migcheck.judging.verdict import Verdict

NEVER_REUSED = ("crashed", "timeout")
EXECUTION_ONLY = ("capture_logs", "torch_cache", "changed")  # options that do not change a verdict
PACKAGE = Path(__file__).resolve().parents[1]  # migcheck itself: covered by environment(), not per case
_CASES: Dict[int, Tuple[Any, str]] = {}  # id(case) -> (case, fingerprint): the case kept alive so ids stay unique


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _library_roots() -> Tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {p for p in sys.path if p.rstrip(os.sep).endswith(("site-packages", "dist-packages"))}
    return tuple(os.path.realpath(r) + os.sep for r in roots if r)


def user_files(objects: Iterable[Any]) -> List[str]:
    """The source files of the user functions and classes reachable from objects (through globals, closures,
    defaults, bases and methods): outside the standard library and site-packages."""
    roots = _library_roots() + (str(PACKAGE) + os.sep,)
    files: set = set()
    seen: set = set()
    stack = list(objects)
    while stack:
        obj = stack.pop()
        if isinstance(obj, functools.partial):
            stack += [obj.func, *obj.args, *obj.keywords.values()]
            continue
        obj = getattr(obj, "__func__", obj)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen:
            continue
        seen.add(id(obj))
        try:
            path = os.path.realpath(inspect.getsourcefile(obj) or "")
        except TypeError:
            continue
        if not path or path.startswith(roots):
            continue
        files.add(path)
        if inspect.isclass(obj):
            stack += list(obj.__bases__) + [v for v in vars(obj).values() if callable(v) or isinstance(v, (staticmethod, classmethod))]
            continue
        code, glob = obj.__code__, obj.__globals__
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= set(const.co_names)
        stack += [glob[n] for n in names if n in glob and not isinstance(glob[n], types.ModuleType)]
        stack += [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        stack += list(obj.__defaults__ or ())
    return sorted(files)


def _filled(closure_cell: types.CellType) -> bool:
    try:
        closure_cell.cell_contents
    except ValueError:
        return False
    return True


def case_fingerprint(case: Any) -> str:
    """The case part of an item's fingerprint (cached per case object for the process)."""
    hit = _CASES.get(id(case))
    if hit is not None and hit[0] is case:
        return hit[1]
    from migcheck.case import FrameworkPair
    from migcheck.golden.fingerprint import source_closure

    parts: List[str] = []
    factories: List[Any] = []
    for f in dataclasses.fields(case):
        value = getattr(case, f.name)
        sides = [value.torch, value.mindspore] if isinstance(value, FrameworkPair) else [value]
        for side in sides:
            if callable(side):
                factories.append(side)
        parts.append(f"{f.name}: " + " | ".join(source_closure(side) for side in sides))
    files = ([case.file] if case.file and os.path.isfile(case.file) else []) + user_files(factories)
    parts += [f"file {path}: {_file_digest(path)}" for path in dict.fromkeys(files)]
    digest = _sha("\n".join(parts))
    _CASES[id(case)] = (case, digest)
    return digest


@functools.lru_cache(maxsize=1)
def environment() -> str:
    """Versions that can change any verdict: Python, numpy, torch, MindSpore, and migcheck's own source."""
    from importlib import metadata

    versions = [sys.version]
    for name in ("numpy", "torch", "mindspore"):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} absent")
    stats = sorted((str(p.relative_to(PACKAGE)), p.stat().st_size, p.stat().st_mtime_ns) for p in PACKAGE.rglob("*.py"))
    versions.append(_sha(repr(stats)))
    return "\n".join(versions)


def options_text(options: Any) -> str:
    from migcheck.options import to_json

    return json.dumps({k: v for k, v in sorted(to_json(options).items()) if k not in EXECUTION_ONLY})


def item_fingerprint(item: Any, options: Any, env: Optional[str] = None) -> str:
    return _sha("\n".join((case_fingerprint(item.case), item.id, options_text(options), env or environment())))


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def stamp(verdict: Verdict, item: Any, options: Any, env: Optional[str] = None) -> Verdict:
    """A fresh verdict with its fingerprint and the time it was computed (what a later --changed compares)."""
    if verdict.reused_from or verdict.fingerprint or item is None:
        return verdict
    try:
        fingerprint = item_fingerprint(item, options, env)
    except Exception:  # a case whose source cannot be read is simply never reused: it runs every time
        fingerprint = ""
    return dataclasses.replace(verdict, fingerprint=fingerprint, computed=verdict.computed or now())


@dataclass(frozen=True)
class Previous:
    """The last report's verdicts that may be reused, by item id."""

    report: str
    created: str
    verdicts: Dict[str, Verdict]


def load_previous(directory: Any) -> Tuple[Optional[Previous], str]:
    """(the last report, '') or (None, why there is none)."""
    from migcheck.report.jsonfile import read_run

    if directory is None:
        return None, "no report folder to read the last verdicts from"
    try:
        run = read_run(Path(directory))
    except (OSError, ValueError) as exc:
        return None, f"no last report to reuse ({exc})"
    return Previous(str(directory), run.created, {v.item: v for v in run.verdicts}), ""


def reused(item: Any, options: Any, previous: Optional[Previous], env: Optional[str] = None) -> Optional[Verdict]:
    """The last report's verdict for item when nothing it depends on changed, marked reused; else None."""
    if previous is None:
        return None
    old = previous.verdicts.get(item.id)
    if old is None or not old.fingerprint or old.status in NEVER_REUSED:
        return None
    try:
        if item_fingerprint(item, options, env) != old.fingerprint:
            return None
    except Exception:
        return None
    return dataclasses.replace(old, reused_from=previous.report, computed=old.computed or previous.created)


@functools.lru_cache(maxsize=4)
def _previous(directory: str) -> Optional[Previous]:
    return load_previous(directory)[0]


def reused_in(item: Any, options: Any, directory: Optional[str]) -> Optional[Verdict]:
    """reused() against the report in directory, read once per process (pytest items come one by one)."""
    return reused(item, options, _previous(str(directory))) if directory else None


def plan_reuse(items: Sequence[Any], options: Any, report: Any) -> Tuple[List[Verdict], List[Any], str]:
    """(verdicts reused from the report folder's last run, items to run, one line saying so)."""
    previous, why = load_previous(report)
    if previous is None:
        return [], list(items), f"--changed: {why}; running all {len(items)} item(s)"
    env = environment()
    reuse: List[Verdict] = []
    run: List[Any] = []
    for item in items:
        verdict = reused(item, options, previous, env)
        (reuse.append(verdict) if verdict is not None else run.append(item))
    return reuse, run, (f"--changed: {len(reuse)} of {len(items)} item(s) reused from {previous.report}"
                        f" (run of {previous.created}), {len(run)} to run: changed, new, or not reusable")
