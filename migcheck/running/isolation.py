"""Cases in child processes: a crash or a hang becomes a verdict, never the end of the run.

``migcheck compare --isolate`` runs each case (all its items) in a child process,
``python -m migcheck.running.worker`` (migcheck/worker.py). The parent sends the case file, the case name,
the items and the run options as JSON on the child's stdin; the child sends one JSON line per event
back on its stdout (``ready``, ``start`` of an item, ``verdict`` with the verdict as
``migcheck.serialize``). Everything else the child prints goes to its
stderr, of which the parent keeps the last lines.

- A child that dies (a signal such as SIGSEGV or SIGABRT, or a non-zero exit) turns the item it was
  running into a ``crashed`` verdict naming the signal, with the last lines of its stderr (Python's
  faulthandler traceback among them). The items it finished keep their verdicts; the case's
  remaining items run on in a new child.
- ``--timeout SECONDS`` (or the case's own ``timeout=``) limits the time a case's items may take,
  counted from the moment its child is ready (interpreter, frameworks and case file loaded: that
  start-up has its own limit, STARTUP_S or the timeout if longer). When the time runs out the
  parent asks the child for its Python stacks (SIGUSR1, faulthandler), kills its process group, and
  the running item becomes a ``timeout`` verdict; items not started are ``timeout`` verdicts that
  say so. Timeouts need a child to kill, so ``--timeout`` implies ``--isolate``.
- Ctrl-C in the parent kills the child at once and propagates (KeyboardInterrupt) to the caller,
  which keeps the verdicts so far (migcheck.cli writes a partial report).
"""
from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
from pathlib import Path
import sys
import threading
import time
from typing import Any, Callable, Deque, Iterator, List, Optional, Sequence

from migcheck.case import PairedCase
from migcheck.options import RunOptions, to_json as options_to_json
from migcheck.running.outcome import Outcome, verdict_for
from migcheck.running.pipeline import Item, run_item
from migcheck.util import signals
from migcheck.judging.verdict import Verdict
from migcheck.vocab import Kind, Status

STARTUP_S = 120.0  # the child's own start: interpreter, torch and MindSpore imports, the case file
STDERR_LINES = 20  # lines of the child's stderr kept in a crashed or timeout verdict
STACK_DUMP_WAIT_S = 0.5  # after SIGUSR1, time for faulthandler to write the stacks before SIGKILL
_KEEP_LINES = 400  # stderr lines buffered per child (bounded, whatever the child prints)

OnStart = Optional[Callable[[Item], None]]


def run_items(items: Sequence[Item], options: RunOptions, *, isolate: bool = False, timeout: Optional[float] = None,
              on_start: OnStart = None) -> Iterator[Verdict]:
    """The verdicts of items, in order, as they finish.

    In-process unless isolate is set, a timeout is given, or the case has its own ``timeout=``:
    then each case runs in a child process (run_case_isolated). A case's own timeout wins over
    ``timeout``.
    """
    for case, group in _by_case(items):
        limit = case.timeout if case.timeout is not None else timeout
        if (isolate or limit is not None) and case.file:
            yield from run_case_isolated(case, group, options, limit, on_start)
            continue
        for item in group:
            if on_start is not None:
                on_start(item)
            yield run_item(item, options)


def _by_case(items: Sequence[Item]) -> Iterator[tuple]:
    """Consecutive items of one case (plan() keeps a case's items together)."""
    group: List[Item] = []
    for item in items:
        if group and (item.case.file, item.case.name) != (group[0].case.file, group[0].case.name):
            yield group[0].case, group
            group = []
        group.append(item)
    if group:
        yield group[0].case, group


def run_case_isolated(case: PairedCase, items: Sequence[Item], options: RunOptions, timeout: Optional[float] = None,
                      on_start: OnStart = None) -> Iterator[Verdict]:
    """The verdicts of one case's items, run in child processes (a new one after each crash)."""
    from migcheck.serialize import verdict_from_json

    pending: List[Item] = list(items)
    spent = 0.0  # seconds of the case's time used by earlier children (after each was ready)
    while pending:
        try:
            child = _Child(case, pending, options)
        except OSError as exc:  # no process could be started at all (e.g. out of memory, no interpreter)
            for item in pending:
                yield _verdict(item, options, Status.ERROR, Kind.ERROR, f"could not start a child process for this case:"
                               f" {type(exc).__name__}: {exc}", "")
            return
        by_id = {item.id: item for item in pending}
        running: Optional[Item] = None
        started = ready_at = None
        startup_deadline = time.monotonic() + max(STARTUP_S, timeout or 0.0)
        try:
            while True:
                if ready_at is None:
                    deadline: Optional[float] = startup_deadline
                elif timeout is not None:
                    deadline = ready_at + (timeout - spent)
                else:
                    deadline = None
                event = child.next_event(deadline)
                if event is _TIMED_OUT:
                    child.dump_stacks()
                    child.kill()
                    yield from _timeout_verdicts(case, pending, running, started, ready_at is None, timeout, options,
                                                 child.stderr_tail())
                    return
                if event is None:  # the child closed its stdout: it exited (or is about to)
                    break
                kind = event.get("event")
                if kind == "ready":
                    ready_at = time.monotonic()
                elif kind == "start":
                    running, started = by_id.get(event.get("item")), time.monotonic()
                    if running is not None and on_start is not None:
                        on_start(running)
                elif kind == "verdict":
                    try:
                        verdict = verdict_from_json(event["verdict"])
                    except Exception as exc:  # a verdict this parent cannot read: an error, never the end of the run
                        raw = event.get("verdict") if isinstance(event.get("verdict"), dict) else {}
                        item = by_id.get(f"{raw.get('case')}[{raw.get('check')}-{raw.get('mode')}-{raw.get('backend')}]",
                                         running or pending[0])
                        verdict = _verdict(item, options, Status.ERROR, Kind.ERROR, f"the child process sent a verdict this"
                                           f" process cannot read ({type(exc).__name__}: {exc})", "")
                    done = by_id.get(verdict.item)
                    if done in pending:
                        pending.remove(done)
                    running = None
                    yield verdict
                    if not pending:  # done: no need to wait for the interpreter's (slow) teardown
                        break
                elif kind == "error":  # the worker could not set the case up (e.g. it no longer loads)
                    child.kill()
                    for item in pending:
                        yield _verdict(item, options, Status.ERROR, Kind.ERROR, str(event.get("message", "")),
                                       child.stderr_tail())
                    return
            code = child.wait() if pending else 0
        finally:
            child.kill()
        if ready_at is not None:
            spent += time.monotonic() - ready_at
        if not pending:
            return
        # The child ended with items left: it crashed. The item it was running is the crashed one; the
        # rest run on in a new child. A crash before the case was even loaded takes every item with it.
        how = _exit_description(code)
        tail = child.stderr_tail()
        if ready_at is None and running is None:
            for item in pending:
                yield _verdict(item, options, Status.CRASHED, Kind.CRASHED,
                               f"the child process {how} while loading the case, before any item ran;"
                               f" see the last lines of its stderr", tail)
            return
        victim = running or pending[0]
        pending.remove(victim)
        yield _verdict(victim, options, Status.CRASHED, Kind.CRASHED,
                       f"the child process running this case {how} during this item; items finished before it keep"
                       f" their verdicts"
                       + (", the rest run in a new process" if pending else ""), tail,
                       duration=time.monotonic() - started if started else 0.0)


def _exit_description(code: Optional[int]) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"died from {name} (signal {-code})"
    return f"exited with status {code}"


def _timeout_verdicts(case: PairedCase, pending: Sequence[Item], running: Optional[Item], started: Optional[float],
                      in_startup: bool, timeout: Optional[float], options: RunOptions, tail: str) -> Iterator[Verdict]:
    source = f"timeout={case.timeout:g} in the case" if case.timeout is not None else "--timeout"
    if in_startup:
        limit = max(STARTUP_S, timeout or 0.0)
        for item in pending:
            yield _verdict(item, options, Status.TIMEOUT, Kind.TIMEOUT,
                           f"timed out: the child process was not ready within {limit:g} s (interpreter, frameworks and"
                           f" case file); it was killed", tail)
        return
    victim = running or pending[0]
    yield _verdict(victim, options, Status.TIMEOUT, Kind.TIMEOUT,
                   f"timed out: the case's time limit of {timeout:g} s ({source}) ran out during this item; its child"
                   f" process was killed (its Python stack at that moment is in the error excerpt)", tail,
                   duration=time.monotonic() - started if started else 0.0)
    for item in pending:
        if item is not victim:
            yield _verdict(item, options, Status.TIMEOUT, Kind.TIMEOUT,
                           f"not run: the case's time limit of {timeout:g} s ({source}) ran out during {victim.id}", "")


def _verdict(item: Item, options: RunOptions, status: str, kind: str, message: str, error: str,
             duration: float = 0.0) -> Verdict:
    notes = ("ran in an isolated child process (migcheck compare --isolate / --timeout)",)
    return verdict_for(item, options, Outcome(kind, message, error=error, notes=notes), status=status,
                       duration_s=duration)


_TIMED_OUT = object()


class _Child:
    """One `python -m migcheck.running.worker` process: its events as a queue, the tail of its stderr."""

    def __init__(self, case: PairedCase, items: Sequence[Item], options: RunOptions) -> None:

        request = {"file": case.file, "case": case.name, "items": [[i.check, i.mode, i.backend] for i in items],
                   "options": {**options_to_json(options), "capture_logs": False}, "preload": True}
        env = dict(os.environ)
        env.setdefault("GLOG_v", "3")  # MindSpore's C++ warnings, as in the CLI
        # The child imports this very migcheck, installed or not.
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen([sys.executable, "-m", "migcheck.running.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                     start_new_session=True)  # its own process group: killed whole, and
        # Ctrl-C on the terminal reaches only the parent, which then stops the child itself.
        self.events: "queue.Queue[Any]" = queue.Queue()
        self.stderr: Deque[str] = collections.deque(maxlen=_KEEP_LINES)
        self._readers = [threading.Thread(target=self._read_events, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self._readers:
            reader.start()
        try:
            self.proc.stdin.write(json.dumps(request).encode("utf-8"))
            self.proc.stdin.close()
        except OSError:  # the child died before reading its request: the exit code tells the rest
            pass

    def _read_events(self) -> None:
        for raw in self.proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if isinstance(event, dict):
                self.events.put(event)
        self.events.put(None)

    def _read_stderr(self) -> None:
        for raw in self.proc.stderr:
            self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def next_event(self, deadline: Optional[float]) -> Any:
        """The next event, None at the end of the child's output, or _TIMED_OUT once deadline passes."""
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                return _TIMED_OUT
            try:
                # Short waits: Ctrl-C (KeyboardInterrupt) is seen at once on every platform.
                return self.events.get(timeout=0.2 if wait is None else min(wait, 0.2))
            except queue.Empty:
                continue

    def wait(self, timeout: float = 30.0) -> int:
        """The exit code; a child that closed its output but does not exit is killed after timeout seconds."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.wait()
        self._readers[1].join(timeout=5)
        return code

    def dump_stacks(self) -> None:
        """Ask the child's faulthandler for its Python stacks (SIGUSR1), so the verdict shows where it hung."""
        usr1 = getattr(signal, "SIGUSR1", None)
        if usr1 is None or self.proc.poll() is not None:
            return
        try:
            os.kill(self.proc.pid, usr1)
        except OSError:
            return
        time.sleep(STACK_DUMP_WAIT_S)

    def kill(self) -> None:
        """Kill the child and anything it started (its process group); idempotent. A Ctrl-C meanwhile is held until
        the child is reaped and its pipes closed, then raised: cut short, the readers would still hold the pipes at
        the interpreter's exit ("could not acquire lock ... daemon threads": the parent aborted, exit -6)."""
        with signals.deferred():
            self._kill()
        signals.check()

    def _kill(self) -> None:
        if self.proc.poll() is None:
            try:
                if hasattr(os, "killpg"):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def stderr_tail(self, lines: int = STDERR_LINES) -> str:
        # faulthandler ends a crash report with one very long line listing every extension module: noise here.
        kept = [line for line in self.stderr if not line.startswith("Extension modules:")]
        while kept and not kept[-1].strip():
            kept.pop()
        # faulthandler lists the innermost frame first: from its "Fatal Python error" line on, the first
        # lines hold the case's own code; the tail would be runpy and migcheck's outer frames.
        fatal = [i for i, line in enumerate(kept) if line.startswith("Fatal Python error")]
        if fatal and fatal[-1] < len(kept) - lines:
            return "\n".join(kept[fatal[-1]:fatal[-1] + lines])
        return "\n".join(kept[-lines:])
