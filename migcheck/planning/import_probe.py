"""Import a case file first in a forked child, so that a file whose import ends the process (os._exit, a
segfault in an extension, abort) becomes a collection error naming the file and the signal instead of the
end of the run (CLI, --isolate workers and pytest alike); every other file still loads.

The child only runs the file's module code and exits with os._exit(0) whatever the import raised (the
parent imports the file itself afterwards and reports ordinary exceptions as before). The frameworks the
file imports at top level are imported in the parent first, so the child inherits them instead of
importing torch and MindSpore a second time (the parent needs them anyway once the file loads).
POSIX only (fork); MIGCHECK_IMPORT_PROBE=0 turns it off.
"""
from __future__ import annotations

import ast
import importlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Callable, Optional

from migcheck.util import signals

PROBE_TIMEOUT_S = 120.0  # a child still importing after this is killed and the file imported in-process
_PRELOAD_ROOTS = ("torch", "mindspore", "numpy")


def enabled() -> bool:
    return hasattr(os, "fork") and os.environ.get("MIGCHECK_IMPORT_PROBE", "1") != "0"


def crash_at_import(path: Path, do_import: Callable[[Path], object]) -> Optional[str]:
    """None when importing path returns (or raises) normally in a child process; otherwise the problem, in
    one line. do_import(path) is the parent's own import function."""
    if not enabled():
        return None
    _preload(path)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: import, then leave at once (no atexit, no buffered output of the parent)
        try:
            import faulthandler

            faulthandler.disable()  # its stack dump would land on the parent's terminal: the error says it all
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            do_import(path)
        except BaseException:
            pass
        finally:
            os._exit(0)
    status = _wait(pid)
    if status is None or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        return None
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = "signal"
        how = f"killed the process ({name}, signal {signum})"
    else:
        how = f"ended the process with exit code {os.WEXITSTATUS(status)} (os._exit?)"
    return (f"importing it {how}; the other files still run. Fix the case file"
            f" (`python -X faulthandler {path}` shows where)")


def _wait(pid: int) -> Optional[int]:
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            if time.monotonic() > deadline:
                _kill(pid)
                return None
            time.sleep(0.005)
    except BaseException:  # Ctrl-C while waiting: no orphan left behind
        _kill(pid)
        raise


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass


def _preload(path: Path) -> None:
    """Import in this process the frameworks path imports at module level (errors left to the real import)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    for name in dict.fromkeys(names):
        if name.split(".")[0] in _PRELOAD_ROOTS and name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass
            signals.check()  # a Ctrl-C during that import (held back by migcheck.util.signals) is raised here
