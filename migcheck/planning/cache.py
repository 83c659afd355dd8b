"""The discovery cache: a warm `migcheck list` answers without importing case files.

Case files usually import torch and MindSpore at module level, so loading them takes seconds.
`migcheck list` needs only what planning reads (each case's name, tags, effective checks and
modes), so it keeps that in ``.migcheck-cache/index.json`` (``MIGCHECK_CACHE_DIR`` moves it; it is
git-ignored). Only `list` uses it: `compare`, `record` and pytest need the real objects.

* An entry is keyed by the case file's resolved path and used only while the file's mtime, size
  and sha256 are all unchanged. A changed file is imported again and its entry rewritten.
* The local modules that case files imported (anything outside the Python installation and its
  site-packages: helper modules, migcheck itself in a source checkout) are recorded with the same
  fingerprint; when one of them changes, the whole index is dropped.
* Files that failed to load, or hold a broken case, are never cached: their errors are always
  current. So a warm run prints exactly what a cold run prints.
* The index is written atomically (temporary file + os.replace): concurrent runs never read half
  of one. An unreadable or foreign index is ignored and rewritten.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from migcheck.planning.discovery import Collection, load_file
from migcheck.planning.items import effective_checks

CACHE_VERSION = 1
ENV = "MIGCHECK_CACHE_DIR"
DEFAULT_DIR = ".migcheck-cache"
INDEX = "index.json"


@dataclass(frozen=True)
class ListedCase:
    """A case as the cache remembers it: enough to plan and list its items, nothing to run."""

    name: str
    file: str
    tags: Tuple[str, ...] = ()
    checks: Tuple[str, ...] = ()  # the effective checks (planning.effective_checks)
    modes: Tuple[str, ...] = ()
    optimizer: None = None  # read by effective_checks only when checks is None, which it never is here


def cache_dir() -> Path:
    return Path(os.environ.get(ENV) or DEFAULT_DIR)


def fingerprint(path: Path) -> Optional[Dict[str, Any]]:
    """mtime (ns), size and sha256 of a file; None when it cannot be read."""
    try:
        st = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "sha256": digest}


def _installed_roots() -> Tuple[str, ...]:
    """Where the interpreter, the standard library and installed packages live: not the user's code."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(sysconfig.get_paths()[key])
        except KeyError:
            pass
    return tuple(os.path.join(os.path.realpath(r), "") for r in roots if r)


def _version() -> str:
    from migcheck import __version__

    return __version__


class DiscoveryCache:
    """discover(paths, load=cache.load) answers from the index for unchanged files; save() writes it."""

    def __init__(self, directory: Optional[os.PathLike] = None) -> None:
        self.path = Path(directory or cache_dir()) / INDEX
        self.index = self._read()
        self.hits = 0
        self.misses = 0
        self._dirty = False

    def _read(self) -> Dict[str, Any]:
        empty: Dict[str, Any] = {"version": CACHE_VERSION, "migcheck": _version(), "files": {}, "deps": {}}
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return empty
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION or data.get("migcheck") != _version():
            return empty
        deps = data.get("deps")
        if not isinstance(deps, dict) or not isinstance(data.get("files"), dict):
            return empty
        # A helper module (or migcheck's own source) changed: any case built from it may have changed.
        if any(fingerprint(Path(p)) != fp for p, fp in deps.items()):
            return empty
        return data

    def load(self, path: Path) -> Collection:
        """Like discovery.load_file, from the index when the file is unchanged."""
        key = str(path.resolve())
        current = fingerprint(path)
        entry = self.index["files"].get(key)
        if current is not None and isinstance(entry, dict) and entry.get("fingerprint") == current:
            try:
                cases = tuple(ListedCase(name=c["name"], file=key, tags=tuple(c["tags"]), checks=tuple(c["checks"]),
                                         modes=tuple(c["modes"])) for c in entry["cases"])
            except (KeyError, TypeError):
                cases = None
            if cases is not None:
                self.hits += 1
                return Collection(cases, ())
        self.misses += 1
        before = set(sys.modules)
        loaded = load_file(path)
        self._dirty = True
        if loaded.errors or current is None:
            self.index["files"].pop(key, None)  # never cached: its errors are always reported afresh
            return loaded
        self.index["files"][key] = {
            "fingerprint": current,
            "cases": [{"name": c.name, "tags": list(c.tags), "checks": list(effective_checks(c)), "modes": list(c.modes)}
                      for c in loaded.cases],
        }
        self._record_deps(set(sys.modules) - before, key)
        return loaded

    def _record_deps(self, new_modules: set, case_file: str) -> None:
        installed = _installed_roots()
        # What an entry holds is decided here (effective checks, default modes): always a dependency.
        own = {"migcheck.planning.items", "migcheck.case"}
        for name in new_modules | own:
            origin = getattr(sys.modules.get(name), "__file__", None)
            if not origin or not origin.endswith(".py"):
                continue
            real = os.path.realpath(origin)
            if real == case_file or real.startswith(installed):
                continue
            fp = fingerprint(Path(real))
            if fp is not None:
                self.index["deps"][real] = fp

    def save(self) -> None:
        """Write the index if this run changed it (atomically); entries of deleted files are dropped."""
        files = {k: v for k, v in self.index["files"].items() if os.path.exists(k)}
        deps = {k: v for k, v in self.index["deps"].items() if os.path.exists(k)}
        if not self._dirty and len(files) == len(self.index["files"]) and len(deps) == len(self.index["deps"]):
            return
        self.index["files"], self.index["deps"] = files, deps
        try:
            from migcheck.util.atomic import atomic_write_text

            atomic_write_text(self.path, json.dumps(self.index, indent=1, sort_keys=True))
        except OSError:
            pass  # a read-only checkout still lists, just without the cache
