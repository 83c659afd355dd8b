"""`migcheck.run()`: the public entry point that the CLI and user scripts share.

    result = migcheck.run("cases", modes=("pynative",), atol=1e-4, report="reports/mine")
    assert result.ok, result.summary()

Case files are discovered, items planned and filtered, run (in-process, or a child per case with
isolate/timeout), and the verdicts returned; a report folder is written when asked for.
"""
from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from migcheck.judging.verdict import Verdict
from migcheck.options import RunOptions
from migcheck.planning.items import Item, in_shard, plan
from migcheck.vocab import STATUSES

CaseSource = Union[str, "os.PathLike[str]", Any]  # a path, a PairedCase, or an iterable of either


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


def collect(sources: Union[CaseSource, Sequence[CaseSource]]) -> Tuple[List[Any], List[str]]:
    """(cases, collection errors) from paths (files or folders) and PairedCase objects, in the order given."""
    from migcheck.case import PairedCase
    from migcheck.planning.discovery import discover

    if isinstance(sources, (str, os.PathLike, PairedCase)):
        sources = [sources]
    cases: List[Any] = []
    errors: List[str] = []
    paths: List[str] = []

    def flush() -> None:
        if paths:
            found = discover(list(paths))
            cases.extend(found.cases)
            errors.extend(str(e) for e in found.errors)
            paths.clear()

    for source in sources:
        if isinstance(source, PairedCase):
            flush()
            cases.append(source if source.name else dataclasses.replace(source, name=f"case{len(cases)}"))
        elif isinstance(source, (str, os.PathLike)):
            paths.append(os.fspath(source))
        else:
            raise TypeError(f"migcheck.run takes paths and PairedCase objects, not {type(source).__name__}")
    flush()
    return cases, errors


def select(cases: Sequence[Any], options: RunOptions, *, keyword: Optional[str] = None,
           shard: Optional[Tuple[int, int]] = None) -> List[Item]:
    """The planned items, filtered by a -k expression (ValueError when it does not parse) and a shard."""
    from migcheck.planning.keyword import keyword_matcher

    items = plan(cases, options)
    if keyword:
        match = keyword_matcher(keyword)
        items = [i for i in items if match(" ".join((i.id,) + tuple(i.case.tags)))]
    if shard:
        items = [i for i in items if in_shard(i.case.name, shard)]
    return items


def run(sources: Union[CaseSource, Sequence[CaseSource]] = "cases", *, keyword: Optional[str] = None,
        shard: Optional[Tuple[int, int]] = None, isolate: bool = False, timeout: Optional[float] = None,
        report: Optional[Union[str, "os.PathLike[str]"]] = None, run_info: Optional[Dict[str, Any]] = None,
        on_start: Optional[Callable[[Item], None]] = None, on_verdict: Optional[Callable[[Verdict], None]] = None,
        on_plan: Optional[Callable[[Sequence[Item]], Optional[Sequence[Item]]]] = None,
        options: Optional[RunOptions] = None,
        **option_values: Any) -> RunResult:
    """Run paired cases and return their verdicts.

    option_values are RunOptions fields (checks, modes, backends, rtol, atol, golden, torch_device,
    device_id, profile, tolerance_mode, budget_factor) as Python values; or pass options= whole.
    With report=DIR every verdict is journaled in DIR the moment it is final (migcheck.report.journal) and the
    report is rendered from the journal at the end; an unusable folder raises OutputError before the first
    case runs. A run that planned nothing (outside a shard), or was stopped before its first verdict, leaves DIR
    untouched.
    Ctrl-C or SIGTERM stops the run and returns what finished, with interrupted=True (and terminated=True
    for SIGTERM), the report marked partial. The callbacks see each
    item as it starts, each verdict as it is final, and the planned items once, before the first runs
    (on_plan may return the items to run instead, e.g. only those that failed last time).
    """
    if options is None:
        unknown = sorted(set(option_values) - {f.name for f in dataclasses.fields(RunOptions)})
        if unknown:
            raise TypeError(f"unknown run option(s) {', '.join(unknown)}; see migcheck.options.RunOptions")
        options = RunOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in option_values.items()})
    elif option_values:
        options = dataclasses.replace(options, **option_values)
    from migcheck.util import signals

    signals.install()  # before the case files import the frameworks: a Ctrl-C there waits for the import to end
    try:
        cases, errors = collect(sources)
        signals.check()  # a Ctrl-C held back while a case file imported the frameworks
        items = select(cases, options, keyword=keyword, shard=shard)
        if on_plan is not None:
            chosen = on_plan(items)
            items = list(items if chosen is None else chosen)
    except KeyboardInterrupt as exc:  # nothing ran, nothing was written
        return RunResult((), (), (), True, None, terminated=signals.exit_code(exc) == signals.EXIT_TERMINATED)
    from migcheck.running import changed

    reused, to_run, reuse_note = [], list(items), ""
    if options.changed:  # the last report's verdicts for the items nothing changed for (read before it is replaced)
        reused, to_run, reuse_note = changed.plan_reuse(items, options, report)
    env = changed.environment()
    by_id = {i.id: i for i in items}
    # The folder is checked (and locked) now, but its journal is started by the first finished verdict: a run
    # that planned nothing, or was stopped before any verdict, leaves an earlier report there untouched.
    journal = None
    if report is not None and (items or shard):
        open_journal(report, (), (), check_only=True)
    verdicts: List[Verdict] = []
    stopped: Optional[BaseException] = None
    write_error = ""  # a journal write failed (disk full, permissions): the run ends with what was written
    started = time.monotonic()
    try:
        fresh = _execute(to_run, options, isolate, timeout, on_start)
        for verdict in (*reused, *(changed.stamp(v, by_id.get(v.item), options, env) for v in fresh)):
            verdicts.append(verdict)
            if report is not None and not write_error:
                try:
                    journal = journal or open_journal(report, [i.id for i in items], errors)
                    journal.verdict(verdict)
                except (OSError, ValueError) as exc:  # OutputError is a ValueError
                    write_error = write_failure(report, exc, len(verdicts), len(items))
            if on_verdict is not None:
                on_verdict(verdict)
            signals.reclaim()
            if write_error:
                break
    except KeyboardInterrupt as exc:  # keep what finished; the caller decides how to exit
        stopped = exc
    written = None
    if journal is None and report is not None and shard and not items and stopped is None:
        journal = open_journal(report, (), errors)  # an empty shard's report still merges
    report_size: Dict[str, int] = {}
    if journal is not None:
        from migcheck.report import write_report_from_journal

        info = {**(run_info or {}), "seconds": round(time.monotonic() - started, 2)}
        info.setdefault("started", journal.created)
        partial = stopped is not None or bool(write_error)
        with signals.deferred():  # a Ctrl-C while the report is written takes effect once it is whole
            try:
                written = write_report_from_journal(report, partial=partial, run_info=info)
                journal.end(partial=partial, reason=signals.describe(stopped) if stopped is not None else write_error)
            except OSError as exc:  # no end record: `migcheck report DIR` renders the journal once it can write
                journal.close()
                write_error = write_error or write_failure(report, exc, len(verdicts), len(items), finished=True)
        stopped = stopped or signals.held()
        if written is not None:  # the cells now hold each verdict's bulk: the journal need not repeat it
            from migcheck.report.journal import compact

            compact(report)
            from migcheck.report.size import record_size

            report_size = record_size(report)
    return RunResult(tuple(items), tuple(verdicts), tuple(errors), stopped is not None, written,
                     terminated=stopped is not None and signals.exit_code(stopped) == signals.EXIT_TERMINATED,
                     write_error=write_error, reuse_note=reuse_note, report_size=report_size)


def write_failure(report: Any, exc: BaseException, done: int, planned: int, finished: bool = False) -> str:
    """One line: what could not be written, why, and what was kept."""
    why = f"{exc.strerror}: {exc.filename}" if isinstance(exc, OSError) and exc.strerror else str(exc)
    if finished:
        return (f"cannot write the report in {report} ({why}); every verdict is in its journal:"
                f" `migcheck report {report}` renders it once the folder can be written")
    return (f"cannot write the report folder {report} ({why}); the run stopped after {done} of {planned} item(s);"
            f" the verdicts journaled before are kept: `migcheck report {report}` renders them")


def open_journal(directory: Union[str, "os.PathLike[str]"], planned: Sequence[str], errors: Sequence[str],
                 check_only: bool = False) -> Any:
    """The run's journal in the report folder. check_only: only check and lock the folder, before the first case
    runs, so an unusable folder is an OutputError then, not a traceback after the whole run."""
    from migcheck.report.journal import JOURNAL, Journal, command_line
    from migcheck.report.outdir import OutputError, prepare

    try:
        prepare(directory)
        if check_only:
            return None
        journal = Journal(os.path.join(directory, JOURNAL), command=command_line(), planned=planned)
    except (OSError, OutputError) as exc:  # OutputError is a ValueError: both named with the folder
        raise OutputError(f"{directory}: {exc}") from None
    for e in errors:
        journal.collection_error(e)
    return journal


def _execute(items: Sequence[Item], options: RunOptions, isolate: bool, timeout: Optional[float],
             on_start: Optional[Callable[[Item], None]]) -> Iterable[Verdict]:
    from migcheck.running.isolation import run_items

    return run_items(items, options, isolate=isolate or timeout is not None, timeout=timeout, on_start=on_start)
