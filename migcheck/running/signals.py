"""SIGINT and SIGTERM stop a run cleanly (partial report, exit 130 or 143), even once MindSpore runs ops.

Found by trying (MindSpore 2.10, CPU): the first PyNative op, every GRAPH compile and every
value_and_grad install MindSpore's own C-level SIGINT handler, which answers Ctrl-C with
raise(SIGTERM); a process with no SIGTERM handler then dies with 143 at once, printing nothing and
writing no report. ``signal.getsignal`` does not see it (Python only knows what it set itself).

So ``install()`` sets Python handlers for both signals (SIGTERM raises ``Terminated``, a
KeyboardInterrupt, so every ``except KeyboardInterrupt`` that keeps partial results handles it too),
and on Linux a watcher thread puts Python's C-level SIGINT and SIGTERM dispositions back whenever
something replaces them (libc ``sigaction`` through ctypes, every WATCH_S). A SIGINT that lands in
the short window before the watcher looks reaches MindSpore's handler, whose SIGTERM reaches ours:
still a partial report, exit 143. ``reclaim()`` re-installs from the main thread (after each item).
"""
from __future__ import annotations

import ctypes
import signal
import sys
import threading
from typing import Any, Dict, Optional

EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM
WATCH_S = 0.01


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled, `kill PID`): handled like Ctrl-C, reported as terminated."""


def exit_code(exc: BaseException) -> int:
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def describe(exc: BaseException) -> str:
    return "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted (Ctrl-C)"


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


def _handlers() -> Dict[int, Any]:
    wanted = {signal.SIGTERM: _on_sigterm}
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a background job ignores Ctrl-C: keep it so
        wanted[signal.SIGINT] = signal.default_int_handler
    return wanted


_saved: Dict[int, Any] = {}  # signal -> its C-level sigaction as Python installed it
_watcher: Optional[threading.Thread] = None


def install() -> None:
    """Python handlers for SIGINT and SIGTERM, guarded by the watcher thread. Main thread only (elsewhere a no-op)."""
    global _watcher
    if threading.current_thread() is not threading.main_thread():
        return
    for signum, handler in _handlers().items():
        signal.signal(signum, handler)
        action = _sigaction(signum)
        if action is not None:
            _saved[signum] = action
    if _saved and _watcher is None:
        _watcher = threading.Thread(target=_watch, name="migcheck-signals", daemon=True)
        _watcher.start()


def reclaim() -> None:
    """Re-install the handlers (main thread): after an item, whatever a framework did during it."""
    if threading.current_thread() is threading.main_thread():
        for signum, handler in _handlers().items():
            signal.signal(signum, handler)


def _watch() -> None:
    stop = threading.Event()
    while not stop.wait(WATCH_S):
        for signum, action in _saved.items():
            now = _sigaction(signum)
            if now is not None and now.handler != action.handler:
                _libc().sigaction(signum, ctypes.byref(action), None)


class _Sigaction(ctypes.Structure):
    # glibc's struct sigaction on Linux (x86_64 and aarch64): handler, 1024-bit mask, flags, restorer.
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * (1024 // (8 * ctypes.sizeof(ctypes.c_ulong)))),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


_LIBC: Any = None


def _libc() -> Any:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def _sigaction(signum: int) -> Optional[_Sigaction]:
    """The current C-level disposition of signum, or None where it cannot be read (not Linux/glibc)."""
    if not sys.platform.startswith("linux"):
        return None
    action = _Sigaction()
    try:
        if _libc().sigaction(signum, None, ctypes.byref(action)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return action
