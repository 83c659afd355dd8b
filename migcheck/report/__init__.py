"""Reports: JSON (the record), Markdown and HTML per cell, the HTML index, and the terminal summary.

Numpy and stdlib only, plus matplotlib for the HTML report's plots: never torch or MindSpore, so a
report can be written or re-rendered on any machine.
"""
from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, Union

from migcheck.report.baseline import RunDiff, diff_runs
from migcheck.report.jsonfile import Run, now, read_run, write_json_report
from migcheck.report.markdown import write_markdown
from migcheck.judging.verdict import Verdict

PathLike = Union[str, Path]


def write_report(directory: PathLike, verdicts: Sequence[Verdict], errors: Sequence[str] = (),
                 partial: bool = False, run_info: Optional[Dict[str, Any]] = None, not_run: Sequence[str] = (),
                 created: str = "") -> Path:
    """summary.json and index.html, plus one JSON, one Markdown and one HTML file per case under directory/cells/.

    Every file is written atomically (migcheck.util.atomic); a folder that holds a report already (or
    nothing) is replaced whole (migcheck.report.swap), so no cell page of an earlier run stays behind.
    partial=True marks an interrupted run: summary.json says "partial": true and index.html says the
    run did not finish. run_info: when and how the run was started ("started", "command", "seconds"),
    shown in the index's header.
    """
    from migcheck.report.html import write_html  # matplotlib comes with it: only when a report is written
    from migcheck.report.swap import replacing

    from migcheck.report.journal import JOURNAL, WORKER_GLOB
    from migcheck.report.outdir import LOCK

    created = created or now()
    # The run's journals and its lock move into the new folder with it (a rename keeps open files working).
    with replacing(Path(directory), keep=(JOURNAL, WORKER_GLOB, LOCK)) as root:
        write_json_report(root, verdicts, errors, created, partial=partial, run_info=run_info, not_run=not_run)
        write_markdown(root, verdicts)
        write_html(root, verdicts, errors, created, partial=partial, run_info=run_info, not_run=not_run)
    return Path(directory)


def write_report_from_journal(directory: PathLike, in_plan_order: bool = False, partial: Optional[bool] = None,
                              run_info: Optional[Dict[str, Any]] = None) -> Path:
    """The whole report (summary, cells, HTML) rendered from directory's journal(s) (migcheck.report.journal): at the
    end of a run, or afterwards for a run that died. A journal without its end record gives a partial report
    listing the planned items that never finished. The live run passes partial itself (its end is not
    journaled yet); in_plan_order lists the verdicts in the order their items were planned, whatever order they
    finished in (reused ones first, pytest-xdist's workers), those of no planned item last."""
    from migcheck.report.journal import read_journal

    return _write_journal_run(directory, read_journal(directory), in_plan_order, partial, run_info)


def _write_journal_run(directory: PathLike, run: Any, in_plan_order: bool = False, partial: Optional[bool] = None,
                       run_info: Optional[Dict[str, Any]] = None) -> Path:
    verdicts = run.verdicts
    if in_plan_order:
        position = {item: n for n, item in enumerate(run.planned)}
        verdicts = tuple(sorted(verdicts, key=lambda v: position.get(v.item, len(position))))
    return write_report(directory, verdicts, run.errors, partial=run.partial if partial is None else partial,
                        not_run=run.not_run, created=run.created, run_info=run_info)


def _unfinished_journal(directory: Path) -> bool:
    """directory holds a journal whose run never reached its end, or one with no summary.json beside it."""
    from migcheck.report.journal import JOURNAL, read_journal

    if not (directory / JOURNAL).is_file():
        return False
    return not (directory / "summary.json").is_file() or not read_journal(directory).ended


def render_report(directory: PathLike, baseline: Optional[PathLike] = None) -> Tuple[Path, Run, Optional[RunDiff]]:
    """Re-render index.html and cells/<case>.html of a written report from its summary.json alone.

    directory is the report folder (or its summary.json). With a baseline (another report folder or
    summary.json), index.html gets a section on what changed. Returns (index.html, the run read back,
    the difference or None). Raises OSError or ValueError (a schema this migcheck cannot read).
    """
    from migcheck.report.html import write_html
    from migcheck.report.journal import read_journal

    if Path(directory).is_dir() and _unfinished_journal(Path(directory)):
        journaled = read_journal(directory)
        with _writing(directory, journaled.verdicts, journaled.partial):
            _write_journal_run(directory, journaled)
    run = read_run(Path(directory))
    diff = None
    if baseline is not None:
        old = read_run(Path(baseline))
        diff = diff_runs(old.verdicts, run.verdicts, str(old.path), old.created)
    with _writing(run.path.parent, run.verdicts, run.partial):
        index = write_html(run.path.parent, run.verdicts, run.errors, run.created, diff, partial=run.partial,
                           run_info=run.run_info, not_run=run.not_run)
    return index, run, diff


class ReportWriteError(OSError):
    """The report was read but cannot be written (disk full, a read-only folder): says what it holds."""


@contextlib.contextmanager
def _writing(directory: PathLike, verdicts: Sequence[Verdict], partial: bool) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        counts = Counter(v.status for v in verdicts)
        held = ", ".join(f"{n} {s}" for s, n in counts.items()) or "no verdicts"
        raise ReportWriteError(exc.errno, f"cannot write the report in {directory} ({exc.strerror or exc}:"
                               f" {exc.filename}); it holds {len(verdicts)} verdict(s): {held}"
                               f"{' (partial)' if partial else ''}; nothing in it was changed") from None
