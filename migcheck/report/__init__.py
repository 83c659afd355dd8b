"""Reports: JSON (the record), Markdown and HTML per cell, the HTML index, and the terminal summary.

Numpy and stdlib only, plus matplotlib for the HTML report's plots: never torch or MindSpore, so a
report can be written or re-rendered on any machine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from migcheck.report.baseline import RunDiff, diff_runs
from migcheck.report.jsonfile import Run, now, read_run, write_json_report
from migcheck.report.markdown import write_markdown
from migcheck.judging.verdict import Verdict

PathLike = Union[str, Path]


def write_report(directory: PathLike, verdicts: Sequence[Verdict], errors: Sequence[str] = (),
                 partial: bool = False, run_info: Optional[Dict[str, Any]] = None) -> Path:
    """summary.json and index.html, plus one JSON, one Markdown and one HTML file per case under directory/cells/.

    Every file is written atomically (migcheck.util.atomic); a folder that holds a report already (or
    nothing) is replaced whole (migcheck.report.swap), so no cell page of an earlier run stays behind.
    partial=True marks an interrupted run: summary.json says "partial": true and index.html says the
    run did not finish. run_info: when and how the run was started ("started", "command", "seconds"),
    shown in the index's header.
    """
    from migcheck.report.html import write_html  # matplotlib comes with it: only when a report is written
    from migcheck.report.swap import replacing

    created = now()
    with replacing(Path(directory)) as root:
        write_json_report(root, verdicts, errors, created, partial=partial, run_info=run_info)
        write_markdown(root, verdicts)
        write_html(root, verdicts, errors, created, partial=partial, run_info=run_info)
    return Path(directory)


def render_report(directory: PathLike, baseline: Optional[PathLike] = None) -> Tuple[Path, Run, Optional[RunDiff]]:
    """Re-render index.html and cells/<case>.html of a written report from its summary.json alone.

    directory is the report folder (or its summary.json). With a baseline (another report folder or
    summary.json), index.html gets a section on what changed. Returns (index.html, the run read back,
    the difference or None). Raises OSError or ValueError (a schema this migcheck cannot read).
    """
    from migcheck.report.html import write_html

    run = read_run(Path(directory))
    diff = None
    if baseline is not None:
        old = read_run(Path(baseline))
        diff = diff_runs(old.verdicts, run.verdicts, str(old.path), old.created)
    index = write_html(run.path.parent, run.verdicts, run.errors, run.created, diff, partial=run.partial,
                       run_info=run.run_info)
    return index, run, diff
