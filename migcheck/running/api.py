"""`migcheck.run()`: the public entry point that the CLI and user scripts share.

    result = migcheck.run("cases", modes=("pynative",), atol=1e-4, report="reports/mine")
    assert result.ok, result.summary()

Case files are discovered, items planned and filtered, and a RunSession (migcheck.running.session) takes them
through its loop: run in-process, or a child per case with isolate/timeout; journaled, reported when asked for.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from migcheck.judging.verdict import Verdict
from migcheck.options import RunOptions
from migcheck.planning.items import Item, in_shard, plan
from migcheck.running.session import RunResult, RunSession

CaseSource = Union[str, "os.PathLike[str]", Any]  # a path, a PairedCase, or an iterable of either

__all__ = ["run", "RunResult", "collect", "select"]


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
    session = RunSession(_options(options, option_values), report=report, shard=shard is not None,
                         run_info=run_info)
    session.start()  # before the case files import the frameworks: a Ctrl-C there waits for the import to end
    try:
        cases, errors = collect(sources)
        session.safe_point()  # a Ctrl-C held back while a case file imported the frameworks
        items = select(cases, session.options, keyword=keyword, shard=shard)
        if on_plan is not None:
            chosen = on_plan(items)
            items = list(items if chosen is None else chosen)
    except KeyboardInterrupt as exc:  # nothing ran, nothing was written
        session.interrupted(exc)
        return _end(session)
    for error in errors:
        session.collection_error(error)
    to_run = session.plan(items)
    verdicts = session.execute(to_run, isolate=isolate, timeout=timeout, on_start=on_start)
    try:
        for verdict in verdicts:
            if on_verdict is not None:
                on_verdict(verdict)
    except KeyboardInterrupt as exc:  # keep what finished; the caller decides how to exit
        session.interrupted(exc)
    finally:
        try:
            verdicts.close()  # a child process of an isolated case is stopped here, whatever stopped the loop
        except KeyboardInterrupt as exc:  # one that came while it was stopped (held until it was)
            session.interrupted(exc)
    return _end(session)


def _end(session: RunSession) -> RunResult:
    """Write the report with signals held (a Ctrl-C now marks the result interrupted instead of cutting the report
    short), then let them raise again: one that came after the report was whole is raised to the caller."""
    session.hold()
    result = session.finish()
    session.release()
    return result


def _options(options: Optional[RunOptions], option_values: Dict[str, Any]) -> RunOptions:
    if options is None:
        unknown = sorted(set(option_values) - {f.name for f in dataclasses.fields(RunOptions)})
        if unknown:
            raise TypeError(f"unknown run option(s) {', '.join(unknown)}; see migcheck.options.RunOptions")
        return RunOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in option_values.items()})
    return dataclasses.replace(options, **option_values) if option_values else options
