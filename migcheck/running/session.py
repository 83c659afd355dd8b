"""One run, whichever front end drives it: a RunSession owns the plan, the journal, the signals, the torch cache
and the report, and takes each item through its step (reused or run, stamped, kept, journaled).

`migcheck.run()`, and through it `migcheck compare`, drives a session as a loop (migcheck.running.api). The pytest
plugin holds one per process and calls it from its hooks: in a plain run, in pytest-xdist's controller (verdicts
arrive from the workers: received(), crashed()) and in each worker (worker=its id: it journals its verdicts in a
file of its own, DIR/journal-<worker>-<pid>.jsonl, and writes no report). The life of a session:

    session = RunSession(options, report="reports/mine")
    session.start()                                # signal handlers, before case files import the frameworks
    to_run = session.plan(items)                   # the report folder checked and locked; --changed's reuse
    for verdict in session.execute(to_run): ...    # or session.step(item), one item at a time (pytest)
    result = session.finish()                      # the report, rendered from the journal; a RunResult

The journal is opened by the first verdict, so a run that planned nothing, or was stopped before its first
verdict, leaves an earlier report untouched (an empty shard still writes its report: it merges with the others).
The report lists the verdicts in the order their items were planned, however they finished.
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from migcheck.judging.verdict import Verdict
from migcheck.options import RunOptions
from migcheck.planning.items import Item
from migcheck.report.journal import JOURNAL, Journal, command_line
from migcheck.report.outdir import OutputError  # raised by check_folder(): the front ends catch it from here
from migcheck.running import changed
from migcheck.util import signals
from migcheck.vocab import STATUSES


@dataclass(frozen=True)
class RunResult:
    """What a run produced: its items, their verdicts, what could not be collected, where the report went."""

    items: Tuple[Item, ...]
    verdicts: Tuple[Verdict, ...]
    collection_errors: Tuple[str, ...] = ()
    interrupted: bool = False  # Ctrl-C or SIGTERM: the verdicts are those finished before it
    report: Optional[Path] = None  # the report folder, when one was written
    terminated: bool = False  # the run was stopped by SIGTERM (exit 143), not Ctrl-C (130)
    write_error: str = ""  # the report folder could not be written (disk full, permissions): why, in one line
    reuse_note: str = ""  # with changed=True: what was reused from the last report, or why nothing was
    report_size: Dict[str, int] = dataclasses.field(default_factory=dict)  # bytes of the report by kind of file

    @property
    def stopped_by(self) -> str:
        return "" if not self.interrupted else "terminated (SIGTERM)" if self.terminated else "interrupted (Ctrl-C)"

    @property
    def signal_exit(self) -> Optional[int]:
        """The exit code a signal that stopped the run asks for (130 Ctrl-C, 143 SIGTERM); None when none did."""
        if not self.interrupted:
            return None
        return signals.EXIT_TERMINATED if self.terminated else signals.EXIT_INTERRUPTED

    @property
    def ok(self) -> bool:
        """Every verdict as the case expected, nothing left uncollected, the run not cut short."""
        return (all(v.as_expected for v in self.verdicts) and not self.collection_errors and not self.interrupted
                and not self.write_error)

    @property
    def counts(self) -> Dict[str, int]:
        found = Counter(v.status for v in self.verdicts)
        return {s: found.get(s, 0) for s in STATUSES if found.get(s)}

    def summary(self) -> str:
        parts = [f"{n} {s}" for s, n in self.counts.items()] or ["no verdicts"]
        if self.collection_errors:
            parts.append(f"{len(self.collection_errors)} collection error(s)")
        return ", ".join(parts) + (" (interrupted)" if self.interrupted else "")


class RunSession:
    """One run's state and its steps; see the module's docstring for the order they come in."""

    def __init__(self, options: RunOptions, *, report: Optional[Union[str, "os.PathLike[str]"]] = None,
                 shard: bool = False, run_info: Optional[Mapping[str, Any]] = None, worker: str = "",
                 run_id: str = "") -> None:
        self.options = options
        self.report = os.fspath(report) if report is not None else None
        self.shard = shard  # an empty shard still writes its (empty) report
        self.worker = worker  # a pytest-xdist worker's id: journals its own verdicts, writes no report
        self.run_id = run_id or uuid.uuid4().hex  # shared by a controller's journal and its workers'
        self.run_info = dict(run_info or {})
        self.items: List[Item] = []
        self.planned: List[str] = []
        self.errors: List[str] = []
        self.verdicts: List[Verdict] = []
        self.partial = False  # stopped before its end (a signal, pytest stopping): the report says so
        self.stopped: Optional[KeyboardInterrupt] = None  # the signal (KeyboardInterrupt or Terminated) that did
        self.write_error = ""  # the journal or the report could not be written: why, in one line
        self.reuse_note = ""
        self._by_id: Dict[str, Item] = {}
        self._reused: Dict[str, Verdict] = {}
        self._journal: Optional[Journal] = None
        self._checked = False
        self._env: Optional[str] = None
        self._started = time.monotonic()

    # ------------------------------------------------------------------ the start and the plan
    def start(self) -> None:
        """Python's SIGINT and SIGTERM handlers (migcheck.util.signals): before the case files import the frameworks,
        so that MindSpore's own handler never ends the process without a report."""
        signals.install()

    def safe_point(self) -> None:
        """Raise a Ctrl-C held back while a framework imported (after the case files were loaded)."""
        signals.check()

    def reclaim_signals(self) -> None:
        """Python's handlers back, whatever a framework installed meanwhile (after each item, or each pytest phase)."""
        signals.reclaim()

    def check_folder(self) -> None:
        """Check and lock the report folder (once): an unusable one is an OutputError naming it, before any case
        runs, not a traceback after the whole run. A worker leaves that to its controller."""
        if self.report is None or self.worker or self._checked:
            return
        from migcheck.report.outdir import prepare

        try:
            prepare(self.report)
        except (OSError, OutputError) as exc:  # OutputError is a ValueError: both named with the folder
            raise OutputError(f"{self.report}: {exc}") from None
        self._checked = True

    def plan(self, items: Sequence[Item]) -> List[Item]:
        """The run's items, in order; the items to run: without those whose last verdict --changed reuses."""
        self.items = list(items)
        self._by_id = {i.id: i for i in self.items}
        if self.items or self.shard:
            self.check_folder()
        self.plan_ids([i.id for i in self.items])
        if not self.options.changed:
            return list(self.items)
        reused, to_run, self.reuse_note = changed.plan_reuse(self.items, self.options, self.report)
        self._reused = {v.item: v for v in reused}
        return to_run

    def plan_ids(self, ids: Sequence[str]) -> None:
        """Item ids planned where this process does not run them (pytest-xdist's workers collect the controller's)."""
        self.planned.extend(ids)
        if self._journal is not None and ids and not self.worker:
            self._journal.planned(list(ids))

    def collection_error(self, message: str) -> None:
        if message in self.errors:  # under pytest-xdist every worker reports the same file
            return
        self.errors.append(message)
        if self._journal is not None and not self.worker:
            self._write(lambda journal: journal.collection_error(message))

    # ------------------------------------------------------------------ the steps
    def step(self, item: Item) -> Verdict:
        """One item in this process: the last report's verdict where --changed reuses it, else run now."""
        from migcheck.running.pipeline import run_item

        verdict = self._reused.pop(item.id, None)
        return self.record(verdict if verdict is not None else run_item(item, self.options), item)

    def execute(self, items: Sequence[Item], *, isolate: bool = False, timeout: Optional[float] = None,
                on_start: Optional[Callable[[Item], None]] = None) -> Iterator[Verdict]:
        """The planned run's verdicts as each is final and journaled: the reused ones, then items run here, or each
        case in a child process (isolate, timeout: migcheck.running.isolation). Ends after a verdict that could not
        be journaled (write_error says why)."""
        from migcheck.running.isolation import run_items

        reused, self._reused = list(self._reused.values()), {}
        fresh = run_items(items, self.options, isolate=isolate or timeout is not None, timeout=timeout,
                          on_start=on_start)
        try:
            for verdict in itertools.chain(reused, fresh):
                yield self.record(verdict)
                if self.write_error:
                    return
        finally:  # stopped early (a Ctrl-C while a verdict was journaled): a child still running is killed now,
            close = getattr(fresh, "close", None)  # not when the interpreter exits with its pipe readers still
            if close is not None:                  # reading (a fatal error there, exit -6)
                close()

    def record(self, verdict: Verdict, item: Optional[Item] = None) -> Verdict:
        """A verdict final in this process (or in its child): stamped with its fingerprint, kept, journaled."""
        if self._env is None:
            self._env = changed.environment()
        verdict = changed.stamp(verdict, item or self._by_id.get(verdict.item), self.options, self._env)
        self._keep(verdict, journal=True)
        return verdict

    def timed_out(self, item: Item, message: str) -> Verdict:
        """pytest-timeout stopped the item while it ran: its `timeout` verdict, recorded."""
        from migcheck.running.outcome import timed_out_verdict

        return self.record(timed_out_verdict(item, self.options, message), item)

    def received(self, data: Mapping[str, Any]) -> Verdict:
        """A verdict a pytest-xdist worker sent (in the report's schema); the worker journaled it already."""
        from migcheck.serialize import verdict_from_json

        verdict = verdict_from_json(dict(data))
        self._keep(verdict, journal=False)
        return verdict

    def crashed(self, path: Path, item_text: str, detail: str) -> Optional[Verdict]:
        """The `crashed` verdict of the item a dead pytest-xdist worker was running, recorded here (no worker
        journaled it); None when item_text is no item id."""
        from migcheck.running.outcome import worker_died_verdict

        verdict = worker_died_verdict(path, item_text, detail, self.options)
        if verdict is not None:
            self._keep(verdict, journal=True)
        return verdict

    def interrupted(self, exc: BaseException) -> None:
        """The run was stopped: by a signal (KeyboardInterrupt, signals.Terminated: exit 130 or 143), or by the
        front end (pytest stopping on collection errors). Either way the report is partial."""
        self.partial = True
        if type(exc) in (KeyboardInterrupt, signals.Terminated):
            self.stopped = exc  # type: ignore[assignment]

    def hold(self) -> None:
        """The end has begun: a signal from now on is only recorded (finish() turns it into the exit code)."""
        signals.hold()

    def release(self) -> None:
        """After finish(), for a caller that goes on: signals raise again; one held since hold() is raised now."""
        signals.release()

    # ------------------------------------------------------------------ the end
    def finish(self, settle: Optional[Callable[[int], None]] = None) -> RunResult:
        """The end: a worker closes its journal; any other session with a journal writes the report from it.
        settle: the front end lives on after the run (pytest's own end): a signal from then on only calls settle
        with its exit code."""
        if (self._journal is None and self.report is not None and self.shard and not self.planned
                and self.stopped is None and not self.worker):
            self._write(lambda journal: None)  # an empty shard's report still merges
        written, size = None, {}
        if self._journal is not None and self.worker:
            self._journal.close()
        elif self._journal is not None:
            written, size = self._write_report(self._journal)
        if settle is not None:
            signals.settle(settle)
        self.stopped = self.stopped or signals.held()  # a signal while the report was written
        return RunResult(tuple(self.items), tuple(self.verdicts), tuple(self.errors), self.stopped is not None,
                         written, terminated=isinstance(self.stopped, signals.Terminated),
                         write_error=self.write_error, reuse_note=self.reuse_note, report_size=size)

    # ------------------------------------------------------------------ the journal and the report
    def _keep(self, verdict: Verdict, journal: bool) -> None:
        self.verdicts.append(verdict)
        self._write(lambda j: j.verdict(verdict) if journal else None)
        self.reclaim_signals()

    def _write(self, write: Callable[[Journal], None]) -> None:
        """Write to the journal, opening it first; a journal that cannot be written ends the run's journaling
        (write_error), with what was written kept."""
        if self.report is None or self.write_error:
            return
        try:
            write(self._journal or self._open())
        except (OSError, ValueError) as exc:  # OutputError is a ValueError
            self.write_error = write_failure(self.report, exc, len(self.verdicts), len(self.planned))

    def _open(self) -> Journal:
        assert self.report is not None
        if self.worker:  # its own file; the controller prepared the folder and merges
            path = Path(self.report) / f"journal-{self.worker}-{os.getpid()}.jsonl"
            self._journal = Journal(path, run=self.run_id, worker=self.worker)
            return self._journal
        self.check_folder()
        try:
            self._journal = Journal(Path(self.report) / JOURNAL, command=command_line(), planned=self.planned,
                                    run=self.run_id)
        except OSError as exc:
            raise OutputError(f"{self.report}: {exc}") from None
        for error in self.errors:
            self._journal.collection_error(error)
        return self._journal

    def _write_report(self, journal: Journal) -> Tuple[Optional[Path], Dict[str, int]]:
        from migcheck.report import write_report_from_journal
        from migcheck.report.journal import compact
        from migcheck.report.size import record_size

        assert self.report is not None
        info = {**self.run_info, "seconds": round(time.monotonic() - self._started, 2)}
        info.setdefault("started", journal.created)
        partial = self.partial or bool(self.write_error)
        written = None
        with signals.deferred():  # a Ctrl-C while the report is written takes effect once it is whole
            try:
                written = write_report_from_journal(self.report, in_plan_order=True, partial=partial, run_info=info)
                journal.end(partial=partial, reason=signals.describe(self.stopped) if self.stopped is not None
                            else self.write_error)
            except OSError as exc:  # no end record: `migcheck report DIR` renders the journal once it can write
                journal.close()
                self.write_error = self.write_error or write_failure(self.report, exc, len(self.verdicts),
                                                                     len(self.planned), finished=True)
        if written is None:
            return None, {}
        compact(self.report)  # the cells now hold each verdict's bulk: the journal need not repeat it
        return written, record_size(Path(self.report))


def write_failure(report: Any, exc: BaseException, done: int, planned: int, finished: bool = False) -> str:
    """One line: what could not be written, why, and what was kept."""
    why = f"{exc.strerror}: {exc.filename}" if isinstance(exc, OSError) and exc.strerror else str(exc)
    if finished:
        return (f"cannot write the report in {report} ({why}); every verdict is in its journal:"
                f" `migcheck report {report}` renders it once the folder can be written")
    return (f"cannot write the report folder {report} ({why}); the run stopped after {done} of {planned} item(s);"
            f" the verdicts journaled before are kept: `migcheck report {report}` renders them")


def with_torch_cache(options: RunOptions) -> RunOptions:
    """options with torch's results kept between runs in the default folder (migcheck.running.torch_cache), unless
    a folder is set already or the run reads goldens (torch never runs)."""
    if options.golden or options.torch_cache:
        return options
    from migcheck.running.torch_cache import default_dir

    return dataclasses.replace(options, torch_cache=str(default_dir()))
