"""The HTML report: index.html (counts, a sortable and filterable verdict table, changes against a
baseline) and cells/<case>.html (verdicts, metrics, error plots, weight mapping).

The markup lives in Jinja2 templates (migcheck/report/templates/, autoescaped); this module prepares
what they show. Self-contained: CSS and JS inline, plots embedded as PNG data URIs, and a
Content-Security-Policy that lets the browser fetch nothing at all. Built from Verdicts alone, so
`migcheck report DIR` re-renders it from the JSON record without torch or MindSpore.
"""
from __future__ import annotations

import base64
import functools
import math
from collections import Counter
from pathlib import Path
from typing import Any, Optional, Sequence

from migcheck.util.atomic import atomic_write_text
from migcheck.judging.compare import TensorComparison, ceil_sig, fmt_shape
from migcheck.report import condense
from migcheck.report.baseline import CATEGORIES, RunDiff, mismatched, summary_line, worst_error
from migcheck.report.jsonfile import by_case, safe_name
from migcheck.judging.verdict import STATUSES, Verdict
from migcheck.vocab import Status
from migcheck.localization.locate import row_error

TEMPLATES = Path(__file__).with_name("templates")
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
MEASURED = (None, "value", "nonfinite")  # tensor kinds whose values were compared, so their errors mean something
# (header, sort type) of the index table; ?sort=<header with dashes> picks one when the page opens.
INDEX_COLUMNS = (("case", "text"), ("check", "text"), ("mode", "text"), ("backend", "text"), ("status", "num"),
                 ("expected", "text"), ("kind", "text"), ("tensor", "text"), ("max abs err", "num"),
                 ("max rel err", "num"), ("mismatched", "num"), ("message", "text"))


def sort_rank(status: str) -> int:
    """Sort order of the status column, most severe first: the run's errors at 0 and below (crashed -2), pass 5;
    a status this version does not know sorts last (9) and gets a grey badge."""
    member = Status.of(status)
    return Status.ERROR.severity - member.severity if member else 9


def num(value: Optional[float], digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}g}"


def sort_key(value: Optional[float]) -> str:
    """A data-sort value JavaScript's parseFloat reads (Infinity included); empty when absent."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return f"{float(value):.7g}"  # finer than any shown value (3-6 digits); repr's 17 would double a big table


def num_cell(value: Optional[float], text: str) -> str:
    """A numeric <td>: the shown text sorts by itself when it parses as a number (JavaScript's parseFloat);
    data-sort only where it does not ('∞', '-', 'nan'), so a table of hundreds of tensors is not written twice."""
    try:  # no class: table.metrics aligns its numeric columns by position (style.css)
        float(text)
        return f"<td>{text}</td>"
    except ValueError:
        return f'<td data-sort="{sort_key(value)}">{text}</td>'


def key_tensor(v: Verdict) -> Optional[TensorComparison]:
    """The tensor a one-line summary names: the worst failing one, else the one with the largest error."""
    worst = v.worst
    if worst is not None:
        return worst
    finite = [t for t in v.tensors if math.isfinite(t.max_abs_err)]
    return max(finite, key=lambda t: t.max_abs_err, default=None)


def case_href(case: str, from_cells: bool = False) -> str:
    return ("" if from_cells else "cells/") + f"{safe_name(case)}.html"


def anchor(v: Verdict, prefix: str = "") -> str:
    return f"{prefix}{safe_name(v.check)}-{safe_name(v.mode)}-{safe_name(v.backend)}"


def smallest_passing_tolerance(v: Verdict) -> Optional[str]:
    """One sentence: the smallest --atol / --rtol that would make every tensor of this verdict pass."""
    failing = [t for t in v.tensors if not t.ok]
    if not failing:
        return None
    blocked = sorted({t.kind for t in failing if t.kind != "value"})
    if blocked:
        return f"No tolerance makes this pass: {', '.join(str(k) for k in blocked)} mismatch."
    compared = [t for t in v.tensors if t.kind in (None, "value") and t.total]
    atol = max(t.min_atol for t in compared)
    rtol = max(t.min_rtol for t in compared)
    rtol_text = (f"--rtol {ceil_sig(rtol)} (each tensor's atol kept)" if math.isfinite(rtol)
                 else "no --rtol (an element is off where torch is exactly 0)")
    return f"Would pass with --atol {ceil_sig(atol)} (each tensor's rtol kept), or with {rtol_text}."


def _least(value: float) -> str:
    """A smallest passing tolerance, rounded up (never down: the rounded value must still pass)."""
    return "∞" if math.isinf(value) else ceil_sig(value)


def _caption(t: TensorComparison) -> str:
    s = t.error_sample
    where = ""
    if s is not None and s.map and len(s.map_axes) == 2:
        where = f"; map over axes {s.map_axes[0]} x {s.map_axes[1]}"
        if s.map_axes[0] > 0:
            where += f" (max over axes 0..{s.map_axes[0] - 1})"
    if s is not None and s.channel_max:
        where += f"; bars per channel along axis {s.channel_axis}"
    return f"|ms - pt| of {t.name}, shape {fmt_shape(t.torch_shape)}{where}. Dashed red: atol {t.atol:g}."


def _plot_uri(t: TensorComparison) -> Optional[str]:
    from migcheck.report.plot_cache import error_png

    png = error_png(t)
    return None if png is None else "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _mapping_source(verdicts: Sequence[Verdict]) -> Optional[Verdict]:
    return next((v for v in verdicts if v.mapping or v.skipped_params), None)


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    """The Jinja2 environment: autoescaping everything, with the helpers above as globals."""
    import jinja2
    from markupsafe import Markup, escape

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True, trim_blocks=True,
                             lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.globals.update(
        csp=Markup(CSP), style=Markup((TEMPLATES / "style.css").read_text()), script=Markup((TEMPLATES / "script.js").read_text()),
        MEASURED=MEASURED, severity=sort_rank, sort_key=sort_key, num=num,
        key_tensor=key_tensor, case_href=case_href, anchor=anchor, mismatched=mismatched,
        measured=lambda v: any(t.kind in MEASURED for t in v.tensors), worst_error=worst_error,
        summary_line=summary_line, smallest_passing_tolerance=smallest_passing_tolerance, shape=fmt_shape,
        ceil_sig=ceil_sig, least=_least, caption=_caption, plot_uri=_plot_uri, mapping_source=_mapping_source,
        g=lambda x: f"{x:g}", g6=lambda x: f"{x:.6g}", detailed=condense.detailed, folded_rows=condense.folded_rows,
        is_fold=lambda r: isinstance(r, condense.Fold), shared_tolerance=condense.shared_tolerance,
        shared_source=condense.shared_source, renamed_suffix=condense.renamed_suffix, layer_of=condense.layer_of,
        pair_groups=condense.pair_groups, num_cell=lambda v, text: Markup(num_cell(v, str(escape(text)))), same_table_as=condense.same_table_as,
        row_error=row_error)
    return env


def render_index(verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
                 baseline: Optional[RunDiff] = None, partial: bool = False,
                 run_info: Optional[dict] = None, not_run: Sequence[str] = ()) -> str:
    counts = Counter(v.status for v in verdicts)
    baseline_summary = ""
    if baseline is not None:
        n = baseline.counts()
        baseline_summary = (", ".join(f"{n[c]} {c.replace('-', ' ')}" for c in CATEGORIES)
                            + f", {baseline.unchanged} unchanged")
    return environment().get_template("index.html").render(
        title="migcheck report", verdicts=verdicts, errors=list(errors), created=created, partial=partial,
        not_run=list(not_run), run_info=run_info, baseline=baseline, baseline_summary=baseline_summary, counts=counts,
        unexpected=sum(not v.as_expected for v in verdicts) + len(errors), n_cases=len({v.case for v in verdicts}),
        # Statuses of this version, then any other a report from a later version holds (read back, not made up).
        chip_statuses=list(STATUSES) + sorted(set(counts) - set(STATUSES)), statuses=STATUSES,
        present={a: sorted({getattr(v, a) for v in verdicts}) for a in ("check", "mode", "backend")},
        columns=INDEX_COLUMNS,
        # Most severe first (crashed, timeout, error, fail, xpass, xfail, skip, pass), run order within a status.
        rows=sorted(verdicts, key=lambda v: sort_rank(v.status)))


def render_case_page(case: str, verdicts: Sequence[Verdict]) -> str:
    from migcheck.report.plots import available

    return environment().get_template("case.html").render(
        title=f"{case}: migcheck", case=case, name=safe_name(case), verdicts=verdicts, plots_off=available())


def write_html(root: Path, verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
               baseline: Optional[RunDiff] = None, partial: bool = False, run_info: Optional[dict] = None,
               not_run: Sequence[str] = ()) -> Path:
    """root/index.html and root/cells/<case>.html; returns the index's path."""
    cells = root / "cells"
    cells.mkdir(parents=True, exist_ok=True)
    for case, items in by_case(verdicts).items():
        atomic_write_text(cells / f"{safe_name(case)}.html", render_case_page(case, items))
    index = root / "index.html"
    atomic_write_text(index, render_index(verdicts, errors, created, baseline, partial=partial, run_info=run_info,
                                          not_run=not_run))
    return index
