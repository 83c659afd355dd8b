"""Each item runs in a guarded scope: process-wide state is read before it, and after it whatever the case
changed is put back and named in that item's own verdict (a warning note).

So one case's torch.set_default_dtype(float64) or os.chdir no longer turns every later item into an error
with nothing pointing at the culprit. Covered: the working directory, os.environ, the frameworks' state
(migcheck.runners.process_state: torch's default dtype, grad mode and threads, MindSpore's context mode),
the global random states (put back silently: building a model draws from them), and threads the case
left running (named; they cannot be stopped, so the CLI exits without waiting for them: left_running()).
os.environ is not judged for an item during which a framework was first imported (importing MindSpore
sets variables of its own).
"""
from __future__ import annotations

import dataclasses
import os
import random
import sys
import threading
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Tuple

from migcheck.records.notes import STATE_WARNING, is_warning  # noqa: F401  (re-exported)

WARNING = STATE_WARNING
_OWN_ENV = ("GLOG_v", "CUBLAS_WORKSPACE_CONFIG")  # set by migcheck itself, once
_FRAMEWORKS = ("torch", "mindspore")
_left: List[threading.Thread] = []


@dataclass(frozen=True)
class Snapshot:
    cwd: str
    environ: Dict[str, str]
    frameworks: FrozenSet[str]
    framework_modules: int  # how many torch/mindspore modules were loaded
    threads: FrozenSet[threading.Thread]
    py_random: Any
    np_random: Any
    framework_state: Dict[str, Any]


def take() -> Snapshot:
    from migcheck.runners import process_state

    numpy = sys.modules.get("numpy")
    return Snapshot(os.getcwd(), dict(os.environ), frozenset(f for f in _FRAMEWORKS if f in sys.modules),
                    _framework_modules(),
                    frozenset(threading.enumerate()), random.getstate(),
                    numpy.random.get_state() if numpy is not None else None, process_state.read())


def restore(before: Snapshot) -> Tuple[str, ...]:
    """Put back what changed since before; the warning-worthy changes, described."""
    from migcheck.runners import process_state

    changes = process_state.restore(before.framework_state)
    try:
        cwd = os.getcwd()
    except OSError:  # the case removed the folder it moved into
        cwd = "(a removed folder)"
    if cwd != before.cwd:
        changes.append(f"working directory {before.cwd} -> {cwd}")
        os.chdir(before.cwd)
    if before.frameworks >= {f for f in _FRAMEWORKS if f in sys.modules}:
        # A framework module first loaded during this item (torch's compiler stack behind an optimizer, say)
        # may add variables on import: those stay and are not the case's doing; changed or removed ones are.
        changes += _restore_environ(before.environ, keep_added=_framework_modules() > before.framework_modules)
    random.setstate(before.py_random)
    if before.np_random is not None:
        sys.modules["numpy"].random.set_state(before.np_random)
    new = [t for t in threading.enumerate() if t not in before.threads and t.is_alive()]
    if new:
        _left.extend(t for t in new if not t.daemon)
        changes.append("left thread(s) running: " + ", ".join(f"{t.name}{'' if t.daemon else ' (non-daemon)'}"
                                                              for t in new))
    return tuple(changes)


def _framework_modules() -> int:
    return sum(1 for name in list(sys.modules) if name.partition(".")[0] in _FRAMEWORKS)


def _restore_environ(before: Dict[str, str], keep_added: bool = False) -> List[str]:
    changed = sorted(k for k in set(before) | set(os.environ)
                     if before.get(k) != os.environ.get(k) and k not in _OWN_ENV
                     and not (keep_added and k not in before))
    for key in changed:
        if key in before:
            os.environ[key] = before[key]
        else:
            del os.environ[key]
    return [f"environment variable(s) {', '.join(changed)}"] if changed else []


def noted(verdict: Any, changes: Tuple[str, ...]) -> Any:
    """The verdict with one warning note naming what its item changed."""
    if not changes:
        return verdict
    return dataclasses.replace(verdict, notes=tuple(verdict.notes) + (f"{WARNING} {'; '.join(changes)}",))


def left_running() -> List[threading.Thread]:
    """Non-daemon threads cases left running that are still alive: the process would wait for them at exit."""
    return [t for t in _left if t.is_alive()]
