"""SIGINT and SIGTERM stop a run cleanly (partial report, exit 130 or 143), even once MindSpore runs ops.

Found by trying (MindSpore 2.10, CPU): the first PyNative op and every GRAPH run install MindSpore's own
C-level SIGINT handler, which answers Ctrl-C with kill(SIGTERM); a process with no SIGTERM handler then
dies with 143 at once, printing nothing. A KeyboardInterrupt raised while MindSpore calls back into Python
(a GRAPH compile parsing construct) can come out wrapped in MindSpore's own exception, so the item became an
error and the run went on, as if Ctrl-C had been ignored. A Ctrl-C in the middle of `import mindspore`
ended the process with "Fatal Python error".

So, with no thread and no polling:

- ``install()`` sets Python handlers for both signals (SIGTERM raises ``Terminated``, a KeyboardInterrupt,
  so every ``except KeyboardInterrupt`` that keeps partial results handles it too);
- ``around_mindspore()`` wraps every MindSpore call that may replace them (an item's MindSpore side: first
  op, compile, grad): Python's handlers are put back right before and right after it. A SIGTERM that arrives
  while MindSpore's handler holds SIGINT inside such a call is MindSpore's answer to a Ctrl-C, and is raised
  as the KeyboardInterrupt it stands for (exit 130). An interrupt received during the call is sticky: raised
  when the call ends even if MindSpore swallowed or wrapped it;
- the frameworks import with SIGINT and SIGTERM blocked (an import hook on torch and mindspore; threads they
  start inherit the block): a Ctrl-C meanwhile is held and raised by ``check()`` at the next safe point
  (after the import statement that loaded them, after the item's MindSpore side).
"""
from __future__ import annotations

import contextlib
import ctypes
import importlib.abc
import importlib.machinery
import signal
import sys
import threading
from typing import Any, Callable, Dict, Iterator, Optional

EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM
_BLOCKED = {signal.SIGINT, signal.SIGTERM}
_ending: Optional[Dict[int, Any]] = None  # set by hold()/settle() at the end of a run
_FRAMEWORKS = ("torch", "mindspore")


class Terminated(KeyboardInterrupt):
    """SIGTERM (a CI job cancelled, `kill PID`): handled like Ctrl-C, reported as terminated."""


def exit_code(exc: BaseException) -> int:
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def describe(exc: BaseException) -> str:
    return "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted (Ctrl-C)"


_pending: Optional[int] = None  # a signal received during a MindSpore call, until its interrupt got through
_inside = 0  # MindSpore calls in progress (around_mindspore, nested)
_python_sigint: Optional[int] = None  # Python's C-level SIGINT handler, as sigaction reads it


def _on_sigint(signum: int, frame: Any) -> None:
    _note(signal.SIGINT)
    raise KeyboardInterrupt()


def _on_sigterm(signum: int, frame: Any) -> None:
    if _inside and mindspore_holds_sigint():  # MindSpore's handler turned a Ctrl-C into SIGTERM
        _note(signal.SIGINT)
        raise KeyboardInterrupt()
    _note(signal.SIGTERM)
    raise Terminated()


def _note(signum: int) -> None:
    global _pending
    if _inside:
        _pending = signum


def _handlers() -> Dict[int, Any]:
    ending = _ending or {}  # at the end of a run (hold/settle): what reclaim() puts back instead of raising ones
    wanted = {signal.SIGTERM: ending.get(signal.SIGTERM, _on_sigterm)}
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a background job ignores Ctrl-C: keep it so
        wanted[signal.SIGINT] = ending.get(signal.SIGINT, _on_sigint)
    return wanted


def install() -> None:
    """Python handlers for SIGINT and SIGTERM, and the framework import hook. Main thread only (else a no-op)."""
    global _python_sigint, _ending
    if threading.current_thread() is not threading.main_thread():
        return
    _ending = None  # a new run: signals raise again
    reclaim()
    action = _sigaction(signal.SIGINT)
    if action is not None and signal.SIGINT in _handlers():
        _python_sigint = action.handler
    if not any(isinstance(f, _DeferredImports) for f in sys.meta_path):
        sys.meta_path.insert(0, _DeferredImports())


def reclaim() -> None:
    """Re-install the handlers (main thread): whatever a framework installed since. signal.signal sets the
    C-level disposition again even when Python believes its handler is still there."""
    if threading.current_thread() is threading.main_thread():
        for signum, handler in _handlers().items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def around_mindspore() -> Iterator[None]:
    """Around a MindSpore call that may install its own SIGINT handler: Python's handlers right before and
    right after it, and an interrupt that came during it raised when it ends, whatever MindSpore made of it."""
    global _inside, _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reclaim()
    _inside += 1
    try:
        yield
    except KeyboardInterrupt:
        _pending = None  # it got through as it is
        raise
    except BaseException:
        if _pending is not None:  # wrapped on its way out of MindSpore: the interrupt wins
            _raise_pending()
        raise
    finally:
        _inside -= 1
        reclaim()
    if _pending is not None:  # swallowed inside MindSpore
        _raise_pending()
    check()  # a framework imported during the call: its Ctrl-C


def _raise_pending() -> None:
    global _pending
    signum, _pending = _pending, None
    raise (Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()) from None


_held: Optional[int] = None  # a signal that arrived under deferred(): raised by check() at a safe point


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread (and threads it starts meanwhile). One that arrives meanwhile is
    taken off the pending set before the block ends and raised by the next check(): raising it where the block
    ends would fail the import half-way (importlib drops the module), which is what this avoids."""
    if not hasattr(signal, "sigtimedwait") or threading.current_thread() is not threading.main_thread():
        yield
        return
    # Held by Python's handlers too: another thread that does not block them may be the one they reach.
    previous = {s: signal.getsignal(s) for s in _BLOCKED}
    for signum, handler in previous.items():
        if handler not in (signal.SIG_IGN, None):
            signal.signal(signum, _hold)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
    try:
        yield
    finally:
        while True:
            info = signal.sigtimedwait(_BLOCKED, 0)
            if info is None:
                break
            _hold(info.si_signo, None)
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for signum, handler in previous.items():
            if handler not in (signal.SIG_IGN, None):
                signal.signal(signum, handler)


def hold() -> None:
    """From now on a Ctrl-C or SIGTERM is only recorded, for held() to take: the end of a run, where all that is
    left is to write what was found (pytest-xdist tears its workers down there, and a raise would cut it short).
    reclaim() keeps to it (the controller still receives the last reports meanwhile)."""
    global _ending
    if threading.current_thread() is threading.main_thread():
        _ending = {signum: _hold for signum in _BLOCKED}
        reclaim()


def release() -> None:
    """The end of a run driven by migcheck.run(): signals raise again (the caller's own code runs on), and one that
    came since hold() and was not taken is raised here, once every result is written."""
    global _ending
    if threading.current_thread() is not threading.main_thread():
        return
    _ending = None
    reclaim()
    check()


def settle(set_exit: Callable[[int], None]) -> None:
    """Once every result is written: a Ctrl-C or SIGTERM from now on only sets the exit code (130 or 143)
    through set_exit; raising it would print a traceback over a run that lost nothing."""
    if threading.current_thread() is not threading.main_thread():
        return

    def _exit_code_only(signum: int, frame: Any) -> None:
        set_exit(EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED)

    global _ending
    _ending = {signum: _exit_code_only for signum in _BLOCKED}
    reclaim()


def _hold(signum: int, frame: Any) -> None:
    global _held
    if signum == signal.SIGTERM and _inside and mindspore_holds_sigint():  # MindSpore's answer to a Ctrl-C
        signum = signal.SIGINT
    _held = signal.SIGINT if signal.SIGINT in (_held, signum) else signum


def held() -> Optional[KeyboardInterrupt]:
    """The interrupt held back by deferred() (taken: asked once), or None."""
    global _held
    signum, _held = _held, None
    return None if signum is None else Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def check() -> None:
    """At a safe point (after an import statement, after a MindSpore call): raise the interrupt held back."""
    late = held()
    if late is not None:
        raise late from None


class _DeferredLoader:
    """The framework's own loader, its module executed under deferred(); everything else passed through."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        with deferred():
            self.loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:  # get_resource_reader, get_filename, is_package, ...
        return getattr(self.loader, name)


class _DeferredImports(importlib.abc.MetaPathFinder):
    """torch and mindspore (the top-level package, which imports the rest) execute under deferred()."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in _FRAMEWORKS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _DeferredLoader(spec.loader)
        return spec


def mindspore_holds_sigint() -> bool:
    """Whether SIGINT's C-level handler is now someone else's than Python's (True where it cannot be read)."""
    action = _sigaction(signal.SIGINT)
    return action is None or _python_sigint is None or action.handler != _python_sigint


class _Sigaction(ctypes.Structure):
    # glibc's struct sigaction on Linux (x86_64 and aarch64): handler, 1024-bit mask, flags, restorer.
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * (1024 // (8 * ctypes.sizeof(ctypes.c_ulong)))),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


_LIBC: Any = None


def _sigaction(signum: int) -> Optional[_Sigaction]:
    """The current C-level disposition of signum, or None where it cannot be read (not Linux/glibc)."""
    global _LIBC
    if not sys.platform.startswith("linux"):
        return None
    action = _Sigaction()
    try:
        if _LIBC is None:
            _LIBC = ctypes.CDLL(None, use_errno=True)
        if _LIBC.sigaction(signum, None, ctypes.byref(action)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    return action
