"""The HTML report: index.html (counts, a sortable and filterable verdict table, changes against a
baseline) and cells/<case>.html (verdicts, metrics, error plots, weight mapping).

Self-contained: CSS and JS inline, plots embedded as PNG data URIs, and a Content-Security-Policy
that lets the browser fetch nothing at all. Built from Verdicts alone, so `migcheck report DIR`
re-renders it from the JSON record without torch or MindSpore.
"""
from __future__ import annotations

import base64
import html
import math
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from migcheck.atomic import atomic_write_text
from migcheck.compare import TensorComparison, ceil_sig, fmt_shape
from migcheck.report.baseline import CATEGORIES, RunDiff, mismatched, summary_line, worst_error
from migcheck.report.jsonfile import by_case, safe_name
from migcheck.verdict import STATUSES, Verdict

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
UNEXPECTED = ("fail", "error", "xpass", "crashed", "timeout")
# Sort order of the status column; a status this version does not know sorts last (9) and gets a grey badge.
SEVERITY = {"crashed": -2, "timeout": -1, "error": 0, "fail": 1, "xpass": 2, "xfail": 3, "skip": 4, "pass": 5}

STYLE = """
:root { --pass:#1e7d32; --fail:#c62828; --error:#7b1fa2; --xfail:#a86b00; --xpass:#d84315; --skip:#546e7a;
        --crashed:#8e0000; --timeout:#4a148c; --unknown:#37474f;
        --line:#d9dde3; --muted:#5f6b7a; --bg-alt:#f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto; padding: 16px 24px;
       max-width: 1500px; color: #1d2430; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; } h3 { font-size: 15px; margin: 18px 0 6px; }
a { color: #1a5fb4; } code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: var(--bg-alt); border: 1px solid var(--line); padding: 8px; overflow-x: auto; white-space: pre-wrap; }
.muted { color: var(--muted); }
.chips { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0; }
.chip { border: 1px solid var(--line); border-radius: 16px; padding: 3px 12px; background: #fff; cursor: pointer; font: inherit; }
.chip b { font-size: 16px; } .chip.zero { opacity: .45; } .chip.active { outline: 2px solid #1a5fb4; }
.badge { display: inline-block; border-radius: 4px; padding: 0 6px; color: #fff; font-size: 12px; font-weight: 600;
         background: var(--unknown);
         text-transform: uppercase; letter-spacing: .02em; }
.s-pass { background: var(--pass); } .s-fail { background: var(--fail); } .s-error { background: var(--error); }
.s-xfail { background: var(--xfail); } .s-xpass { background: var(--xpass); } .s-skip { background: var(--skip); }
.s-crashed { background: var(--crashed); } .s-timeout { background: var(--timeout); }
.c-pass { color: var(--pass); } .c-fail { color: var(--fail); } .c-error { color: var(--error); }
.c-xfail { color: var(--xfail); } .c-xpass { color: var(--xpass); } .c-skip { color: var(--skip); }
.c-crashed { color: var(--crashed); } .c-timeout { color: var(--timeout); }
.box.partial { border-color: #f0c36d; background: #fff8e1; }
.verdict-ok { color: var(--pass); font-weight: 600; } .verdict-bad { color: var(--fail); font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-alt); position: sticky; top: 0; z-index: 1; white-space: nowrap; }
th[data-sort] { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; font-size: 10px; }
th[aria-sort=descending]::after { content: " \\25BC"; font-size: 10px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.msg { min-width: 300px; overflow-wrap: break-word; }
#verdicts { font-size: 13px; } #verdicts td.case { min-width: 150px; max-width: 260px; overflow-wrap: anywhere; }
#verdicts td.tensor { min-width: 110px; max-width: 220px; overflow-wrap: anywhere; }
.clamp { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
.scroll { overflow-x: auto; } table.metrics { font-size: 13px; } td.at { min-width: 160px; } td.tol { min-width: 150px; }
tr.unexpected td:first-child { box-shadow: inset 3px 0 0 var(--fail); }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.filters input[type=search] { min-width: 320px; padding: 4px 8px; font: inherit; }
.filters select { font: inherit; padding: 3px; }
.box { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 10px 0; background: #fff; }
.box.bad { border-color: #efb3b3; background: #fff6f6; }
details.verdict { border: 1px solid var(--line); border-radius: 6px; margin: 12px 0; padding: 0 12px 8px; }
details.verdict > summary { cursor: pointer; padding: 8px 0; font-weight: 600; }
figure { margin: 8px 0; } figure img { max-width: 100%; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: 12px; }
.tensor-detail { border-left: 3px solid var(--fail); padding-left: 10px; margin: 14px 0; }
.cat-newly-failing, .cat-worse { color: var(--fail); font-weight: 600; }
.cat-newly-passing, .cat-better { color: var(--pass); font-weight: 600; }
tr.first-divergence td{background:#fde8e8;font-weight:600}
"""

# Sorting (numbers by data-sort, text otherwise) and filtering, for every table.sortable; the
# index's filters also. Sets data-ready="1" on <body> when wired, which the tests look for.
SCRIPT = r"""
(function () {
  "use strict";
  function key(cell, numeric) {
    if (!cell) { return numeric ? -Infinity : ""; }
    var raw = cell.getAttribute("data-sort");
    if (numeric) { var n = parseFloat(raw === null ? cell.textContent : raw); return isNaN(n) ? -Infinity : n; }
    return (raw === null ? cell.textContent : raw).trim().toLowerCase();
  }
  function sortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      if (!th.hasAttribute("data-sort")) { return; }
      th.tabIndex = 0;
      function sort() {
        var numeric = th.getAttribute("data-sort") === "num";
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows).map(function (r, i) { return [key(r.cells[col], numeric), i, r]; });
        rows.sort(function (a, b) { return a[0] < b[0] ? -dir : a[0] > b[0] ? dir : a[1] - b[1]; });
        rows.forEach(function (r) { body.appendChild(r[2]); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  var table = document.getElementById("verdicts");
  if (table) {
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var text = document.getElementById("q");
    var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
    var shown = document.getElementById("shown");
    var chips = Array.prototype.slice.call(document.querySelectorAll("button[data-status]"));
    var apply = function () {
      var words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
      var n = 0;
      rows.forEach(function (row) {
        var ok = words.every(function (w) { return row.textContent.toLowerCase().indexOf(w) >= 0; });
        selects.forEach(function (s) {
          var want = s.value, field = s.getAttribute("data-filter");
          if (!want) { return; }
          if (field === "status" && want === "unexpected") { ok = ok && row.getAttribute("data-unexpected") === "1"; }
          else { ok = ok && row.getAttribute("data-" + field) === want; }
        });
        row.hidden = !ok;
        if (ok) { n += 1; }
      });
      shown.textContent = n + " of " + rows.length + " shown";
      var status = document.getElementById("f-status").value;
      chips.forEach(function (c) { c.classList.toggle("active", c.getAttribute("data-status") === status); });
    };
    // A link can open the table filtered and sorted: index.html?status=unexpected&q=conv&sort=max-abs-err&order=desc
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) { text.value = params.get("q"); }
    selects.forEach(function (s) {
      var want = params.get(s.getAttribute("data-filter"));
      if (want !== null) { s.value = want; }
    });
    text.addEventListener("input", apply);
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    chips.forEach(function (c) {
      c.addEventListener("click", function () {
        var s = document.getElementById("f-status");
        s.value = s.value === c.getAttribute("data-status") ? "" : c.getAttribute("data-status");
        apply();
      });
    });
    apply();
    var by = params.get("sort");
    var th = by && table.querySelector('th[data-key="' + by.replace(/[^\w-]/g, "") + '"]');
    if (th) {
      th.click();
      if (params.get("order") === "desc") { th.click(); }
    }
  }
  document.body.setAttribute("data-ready", "1");
  window.addEventListener("load", function () {  // a plot that failed to decode shows up here
    var broken = Array.prototype.filter.call(document.images, function (img) { return !img.naturalWidth; });
    document.body.setAttribute("data-images", document.images.length + " shown, " + broken.length + " broken");
  });
})();
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


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
    return repr(float(value))


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{STYLE}</style></head>\n"
            f'<body data-ready="0">\n{body}\n<script>{SCRIPT}</script>\n</body></html>\n')


def badge(status: str) -> str:
    return f'<span class="badge s-{esc(status)}">{esc(status)}</span>'


MEASURED = (None, "value", "nonfinite")  # tensor kinds whose values were compared, so their errors mean something


def key_tensor(v: Verdict) -> Optional[TensorComparison]:
    """The tensor a one-line summary names: the worst failing one, else the one with the largest error."""
    worst = v.worst
    if worst is not None:
        return worst
    finite = [t for t in v.tensors if math.isfinite(t.max_abs_err)]
    return max(finite, key=lambda t: t.max_abs_err, default=None)


def _err_cells(t: Optional[TensorComparison], *fields: str) -> str:
    """Numeric <td>s of a key tensor; empty for one whose values were never compared (shape, dtype, tree)."""
    measured = t is not None and t.kind in MEASURED
    return "".join(f'<td class="num" data-sort="{sort_key(getattr(t, f)) if measured else ""}">'
                   f'{num(getattr(t, f)) if measured else ""}</td>' for f in fields)


def case_href(case: str, from_cells: bool = False) -> str:
    return ("" if from_cells else "cells/") + f"{safe_name(case)}.html"


# ---------------------------------------------------------------- index.html

def render_index(verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
                 baseline: Optional[RunDiff] = None, partial: bool = False,
                 run_info: Optional[dict] = None) -> str:
    counts = Counter(v.status for v in verdicts)
    unexpected = sum(not v.as_expected for v in verdicts) + len(errors)
    cases = len({v.case for v in verdicts})
    verdict_text = ('<span class="verdict-ok">all as expected</span>' if not unexpected
                    else f'<span class="verdict-bad">{unexpected} not as expected</span>')
    parts = ["<h1>migcheck report</h1>",
             f'<p class="muted">{len(verdicts)} verdict(s) over {cases} case(s)'
             + (f", created {esc(created)}" if created else "") + f" &middot; {verdict_text}</p>",
             _run_header(run_info),
             '<div class="chips" id="counts">']
    # Statuses of this version, then any other a report from a later version holds (read back, not made up).
    for status in list(STATUSES) + sorted(set(counts) - set(STATUSES)):
        zero = "" if counts.get(status) else " zero"
        s = esc(status)
        parts.append(f'<button type="button" class="chip{zero}" data-status="{s}" id="count-{s}"'
                     f' title="show only {s}"><b class="c-{s}">{counts.get(status, 0)}</b> {s}</button>')
    parts.append("</div>")
    if partial:
        parts.append('<div class="box partial" id="partial"><b>Partial report</b>: the run was interrupted'
                     f" (Ctrl-C) after {len(verdicts)} verdict(s); the items after that did not run.</div>")
    if errors:
        parts.append('<div class="box bad"><b>Collection errors</b> (these case files or cases did not run):<ul>'
                     + "".join(f"<li><code>{esc(e)}</code></li>" for e in errors) + "</ul></div>")
    if baseline is not None:
        parts.append(render_baseline(baseline))
    parts.append(_filters(verdicts))
    parts.append(_verdict_table(verdicts))
    return page("migcheck report", "\n".join(parts))


def _run_header(run_info: Optional[dict]) -> str:
    """The run's start time, duration and command line (written by `migcheck compare`)."""
    if not run_info:
        return ""
    seconds = run_info.get("seconds")
    took = f", took {esc(seconds)} s" if isinstance(seconds, (int, float)) else ""
    return (f'<p class="muted" id="run">started {esc(run_info.get("started", "?"))}{took}:'
            f' <code>{esc(run_info.get("command", ""))}</code></p>')


def _filters(verdicts: Sequence[Verdict]) -> str:
    def select(field: str, label: str, values: Iterable[str], extra: str = "") -> str:
        options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        return (f'<label>{label} <select id="f-{field}" data-filter="{field}"><option value="">any</option>'
                f"{extra}{options}</select></label>")

    present = lambda attr: sorted({getattr(v, attr) for v in verdicts})  # noqa: E731
    return ('<div class="filters"><input type="search" id="q" placeholder="filter: words in case, tensor or message"'
            ' aria-label="filter rows">'
            + select("status", "status", STATUSES, '<option value="unexpected">not as expected</option>')
            + select("check", "check", present("check")) + select("mode", "mode", present("mode"))
            + select("backend", "backend", present("backend"))
            + '<span id="shown" class="muted"></span></div>')


# (header, sort type) of the index table; ?sort=<header with dashes> picks one when the page opens.
INDEX_COLUMNS = (("case", "text"), ("check", "text"), ("mode", "text"), ("backend", "text"), ("status", "num"),
                 ("expected", "text"), ("kind", "text"), ("tensor", "text"), ("max abs err", "num"),
                 ("max rel err", "num"), ("mismatched", "num"), ("message", "text"))


def _measured(v: Verdict) -> bool:
    return any(t.kind in MEASURED for t in v.tensors)


def _verdict_table(verdicts: Sequence[Verdict]) -> str:
    head = "<thead><tr>" + "".join(f'<th data-sort="{kind}" data-key="{label.replace(" ", "-")}">{label}</th>'
                                   for label, kind in INDEX_COLUMNS) + "</tr></thead>"
    rows = []
    # Most severe first (crashed, timeout, error, fail, xpass, xfail, skip, pass), run order within a status.
    for v in sorted(verdicts, key=lambda v: SEVERITY.get(v.status, 9)):
        t = key_tensor(v)
        anchor = f"#{safe_name(v.check)}-{safe_name(v.mode)}-{safe_name(v.backend)}"
        rows.append(
            f'<tr data-status="{esc(v.status)}" data-check="{esc(v.check)}" data-mode="{esc(v.mode)}"'
            f' data-backend="{esc(v.backend)}" data-unexpected="{int(not v.as_expected)}"'
            f' class="{"unexpected" if not v.as_expected else ""}">'
            f'<td class="case"><a href="{esc(case_href(v.case) + anchor)}">{esc(v.case)}</a></td>'
            f"<td>{esc(v.check)}</td><td>{esc(v.mode)}</td><td>{esc(v.backend)}</td>"
            f'<td data-sort="{SEVERITY.get(v.status, 9)}">{badge(v.status)}</td><td>{esc(v.expected)}</td>'
            f"<td>{esc(v.kind or '')}</td><td class=\"tensor\"><code>{esc(t.name) if t else ''}</code></td>"
            + _err_cells(t, "max_abs_err", "max_rel_err") +
            f'<td class="num" data-sort="{mismatched(v)}">{mismatched(v) if _measured(v) else ""}</td>'
            f'<td class="msg"><div class="clamp" title="{esc(v.message)}">{esc(v.message)}</div></td></tr>')
    return (f'<div class="scroll"><table id="verdicts" class="sortable">{head}<tbody>\n' + "\n".join(rows)
            + "\n</tbody></table></div>")


def render_baseline(diff: RunDiff) -> str:
    counts = diff.counts()
    created = f" (created {esc(diff.baseline_created)})" if diff.baseline_created else ""
    summary = ", ".join(f"{counts[c]} {c.replace('-', ' ')}" for c in CATEGORIES) + f", {diff.unchanged} unchanged"
    parts = ['<section id="baseline"><h2>Against the baseline</h2>',
             f'<p class="muted">baseline <code>{esc(diff.baseline)}</code>{created}: {esc(summary)}</p>']
    if diff.changes:
        parts.append('<table class="sortable" id="changes"><thead><tr><th data-sort="text">change</th>'
                     '<th data-sort="text">item</th><th data-sort="num">status was</th><th data-sort="num">status now</th>'
                     '<th data-sort="num">max abs err was</th><th data-sort="num">max abs err now</th><th>detail</th>'
                     '</tr></thead><tbody>')
        for c in diff.changes:
            case = (c.new or c.old).case
            old_err = worst_error(c.old)[0] if c.old else None
            new_err = worst_error(c.new)[0] if c.new else None
            parts.append(
                f'<tr data-category="{c.category}"><td class="cat-{c.category}">{c.category.replace("-", " ")}</td>'
                f'<td><a href="{esc(case_href(case))}">{esc(c.item)}</a></td>'
                f'<td data-sort="{SEVERITY.get(c.old.status, 9) if c.old else 9}">{badge(c.old.status) if c.old else "-"}</td>'
                f'<td data-sort="{SEVERITY.get(c.new.status, 9) if c.new else 9}">{badge(c.new.status) if c.new else "-"}</td>'
                f'<td class="num" data-sort="{sort_key(old_err)}">{num(old_err) if c.old else "-"}</td>'
                f'<td class="num" data-sort="{sort_key(new_err)}">{num(new_err) if c.new else "-"}</td>'
                f'<td class="msg">{esc(c.detail)}</td></tr>')
        parts.append("</tbody></table>")
    else:
        parts.append("<p>No item changed.</p>")
    parts.append(f'<p class="muted">{esc(summary_line(diff))}</p></section>')
    return "\n".join(parts)


# ---------------------------------------------------------------- cells/<case>.html

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


def _tensor_table(tensors: Sequence[TensorComparison]) -> str:
    head = ('<thead><tr><th data-sort="text">tensor</th><th data-sort="text">ok</th><th>torch</th><th>mindspore</th>'
            '<th data-sort="num">max abs err</th><th>at</th><th data-sort="num">max rel err</th>'
            '<th data-sort="num">mean abs err</th><th data-sort="num">mismatched</th><th data-sort="num">cosine</th>'
            '<th data-sort="num">min atol</th><th data-sort="num">min rtol</th><th>tolerance</th></tr></thead>')
    rows = []
    for t in tensors:
        at = t.max_abs_at
        at_text = f"{at.index}: torch {at.torch:.6g}, ms {at.mindspore:.6g}" if at is not None else ""
        ok = "yes" if t.ok else f'<b class="c-fail">no: {esc(t.kind)}</b>'
        rows.append(
            f"<tr><td><code>{esc(t.name)}</code></td><td>{ok}</td>"
            f"<td class=mono>{esc(fmt_shape(t.torch_shape))} {esc(t.torch_dtype)}</td>"
            f"<td class=mono>{esc(fmt_shape(t.ms_shape))} {esc(t.ms_dtype)}</td>"
            f'<td class="num" data-sort="{sort_key(t.max_abs_err)}">{num(t.max_abs_err)}</td>'
            f'<td class="mono at">{esc(at_text)}</td>'
            f'<td class="num" data-sort="{sort_key(t.max_rel_err)}">{num(t.max_rel_err)}</td>'
            f'<td class="num" data-sort="{sort_key(t.mean_abs_err)}">{num(t.mean_abs_err)}</td>'
            f'<td class="num" data-sort="{t.mismatched}">{t.mismatched}/{t.total}</td>'
            f'<td class="num" data-sort="{sort_key(t.cosine)}">{num(t.cosine, 6)}</td>'
            f'<td class="num" data-sort="{sort_key(t.min_atol)}">{_least(t.min_atol)}</td>'
            f'<td class="num" data-sort="{sort_key(t.min_rtol)}">{_least(t.min_rtol)}</td>'
            f"<td class=tol>rtol {t.rtol:g}, atol {t.atol:g} <span class=muted>({esc(t.tolerance_source or 'default')})</span>"
            "</td></tr>")
    return f'<div class="scroll"><table class="sortable metrics">{head}<tbody>' + "".join(rows) + "</tbody></table></div>"


def _least(value: float) -> str:
    """A smallest passing tolerance, rounded up (never down: the rounded value must still pass)."""
    return "∞" if math.isinf(value) else ceil_sig(value)


def _tensor_detail(v: Verdict, t: TensorComparison, plots_off: Optional[str]) -> str:
    parts = [f'<div class="tensor-detail" data-tensor="{esc(t.name)}"><h3><code>{esc(t.name)}</code>: {esc(t.kind)}</h3>',
             f"<p>{esc(t.message)}</p>"]
    if t.kind == "value" and t.min_atol:
        parts.append(f"<p>Smallest passing tolerance for this tensor: atol &ge; {esc(ceil_sig(t.min_atol))} "
                     f"(with rtol {t.rtol:g}) or rtol &ge; {esc(ceil_sig(t.min_rtol))} (with atol {t.atol:g}).</p>")
    if t.first_mismatches:
        parts.append("<p>First mismatches: " + "; ".join(
            f"<code>{esc(s.index)}</code> torch {s.torch:.6g}, mindspore {s.mindspore:.6g}" for s in t.first_mismatches)
            + "</p>")
    if t.error_sample is not None:
        png = None if plots_off else _png(t)
        if png is not None:
            data = base64.b64encode(png).decode("ascii")
            parts.append(f'<figure><img class="errplot" data-tensor="{esc(t.name)}" src="data:image/png;base64,{data}"'
                         f' alt="error histogram and error location of {esc(t.name)}">'
                         f"<figcaption>{esc(_caption(t))}</figcaption></figure>")
        else:
            parts.append(f'<p class="muted">No plot: {esc(plots_off or "nothing to draw")}.</p>')
    elif t.kind in ("value", "nonfinite"):
        parts.append('<p class="muted">No plot: this report has no error sample for the tensor '
                     "(written by a migcheck before schema 2).</p>")
    parts.append("</div>")
    return "\n".join(parts)


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


def _png(t: TensorComparison) -> Optional[bytes]:
    from migcheck.report.plots import error_png

    return error_png(t)


def render_case_page(case: str, verdicts: Sequence[Verdict]) -> str:
    from migcheck.report.plots import available

    plots_off = available()
    name = safe_name(case)
    parts = ['<p><a href="../index.html">&larr; all verdicts</a></p>',
             f"<h1>{esc(case)}</h1>",
             f'<p class="muted">file <code>{esc(verdicts[0].file)}</code> &middot; record '
             f'<a href="{esc(name)}.json">{esc(name)}.json</a> &middot; <a href="{esc(name)}.md">{esc(name)}.md</a></p>',
             '<table class="sortable" id="case-verdicts"><thead><tr><th data-sort="text">check</th><th data-sort="text">mode</th>'
             '<th data-sort="text">backend</th><th data-sort="num">status</th><th data-sort="text">expected</th>'
             '<th data-sort="text">kind</th><th data-sort="num">max abs err</th><th data-sort="num">seconds</th>'
             "<th>message</th></tr></thead><tbody>"]
    for v in verdicts:
        t = key_tensor(v)
        anchor = f"{safe_name(v.check)}-{safe_name(v.mode)}-{safe_name(v.backend)}"
        check = f'<a href="#{esc(anchor)}">{esc(v.check)}</a>' if v.status != "skip" else esc(v.check)
        parts.append(
            f'<tr class="{"unexpected" if not v.as_expected else ""}"><td>{check}</td><td>{esc(v.mode)}</td>'
            f'<td>{esc(v.backend)}</td><td data-sort="{SEVERITY.get(v.status, 9)}">{badge(v.status)}</td>'
            f"<td>{esc(v.expected)}</td><td>{esc(v.kind or '')}</td>" + _err_cells(t, "max_abs_err") +
            f'<td class="num" data-sort="{v.duration_s!r}">{v.duration_s:.2f}</td><td class="msg">{esc(v.message)}</td></tr>')
    parts.append("</tbody></table>")
    if plots_off:
        parts.append(f'<div class="box bad">{esc(plots_off)}</div>')
    for v in verdicts:
        if v.status == "skip":
            continue
        parts.append(_verdict_section(v, plots_off))
    parts.append(_mapping(verdicts))
    return page(f"{case}: migcheck", "\n".join(parts))


def _verdict_section(v: Verdict, plots_off: Optional[str]) -> str:
    anchor = f"{safe_name(v.check)}-{safe_name(v.mode)}-{safe_name(v.backend)}"
    is_open = " open" if v.status != "pass" else ""
    parts = [f'<details class="verdict" id="{esc(anchor)}"{is_open}><summary>{esc(v.check)} &middot; {esc(v.mode)}'
             f" &middot; {esc(v.backend)} {badge(v.status)}</summary>",
             f'<p>{esc(v.message)}</p><p class="muted">expected: {esc(v.expected)}'
             + (f"; found: {esc(v.kind)}" if v.kind else "") + "</p>"]
    tolerance = smallest_passing_tolerance(v)
    if tolerance:
        parts.append(f'<p class="tolerance"><b>Smallest passing tolerance:</b> {esc(tolerance)}</p>')
    if v.structure:
        parts.append("<p><b>Weight transfer problems</b></p><ul>" + "".join(f"<li>{esc(p)}</li>" for p in v.structure)
                     + "</ul>")
    if v.error:
        parts.append(f"<pre>{esc(v.error)}</pre>")
    if v.localization is not None:
        parts.append(_localization(v.localization))
    if v.tensors:
        parts.append(_tensor_table(v.tensors))
    for t in v.tensors:
        if not t.ok:
            parts.append(_tensor_detail(v, t, plots_off))
    if v.notes:
        parts.append("<p><b>Notes</b></p><ul>" + "".join(f"<li>{esc(n)}</li>" for n in sorted(set(v.notes))) + "</ul>")
    if v.framework_log:
        parts.append('<details class="framework-log"><summary>Framework log (MindSpore/torch stderr during this'
                     f' item)</summary><pre>{esc(v.framework_log)}</pre></details>')
    parts.append("</details>")
    return "\n".join(parts)


def _flag(ok: Optional[bool]) -> str:
    return "&ndash;" if ok is None else ("agree" if ok else "<b>differ</b>")


def _localization(loc: Any) -> str:
    """The sub-cell tree in completion order, the first divergence marked, and the likely causes."""
    parts = ['<div class="localization"><p><b>Where it first diverges</b></p>', f"<p>{esc(loc.summary)}</p>"]
    if loc.findings:
        parts.append("<ul>" + "".join(
            f"<li><b>{esc(f.rule)}</b> ({esc(f.confidence)}) at {esc(f.where)}: {esc(f.cause)}."
            f" Fix: <code>{esc(f.fix)}</code></li>" for f in loc.findings) + "</ul>")
    rows = ["<table><thead><tr><th>#</th><th>torch sub-cell</th><th>MindSpore sub-cell</th><th>inputs</th>"
            "<th>outputs</th><th>alone, on torch's inputs</th><th>max abs err</th></tr></thead><tbody>"]
    for r in loc.rows:
        first = ' class="first-divergence"' if r.torch_name == loc.first_divergence and r.ms_name else ""
        marker = " &larr; first divergence" if first else ""
        ms = f"{esc(r.ms_name or '<root>')} ({esc(r.ms_kind)})" if r.ms_kind else f'<span class="muted">{esc(r.message)}</span>'
        rows.append(f"<tr{first}><td>{r.order}</td><td>{esc(r.torch_name or '<root>')} ({esc(r.torch_kind)}){marker}</td>"
                    f"<td>{ms}</td><td>{_flag(r.inputs_ok)}</td><td>{_flag(r.outputs_ok)}</td>"
                    f"<td>{_flag(r.isolated_ok)}</td><td>{num(r.max_abs_err) if r.ms_kind else ''}</td></tr>")
    parts.append("".join(rows) + "</tbody></table></div>")
    return "\n".join(parts)


def _mapping(verdicts: Sequence[Verdict]) -> str:
    mapped = next((v for v in verdicts if v.mapping or v.skipped_params), None)
    if mapped is None:
        return '<h2 id="weight-mapping">Weight mapping</h2><p class="muted">No weights were transferred.</p>'
    rows = []
    for p in mapped.mapping:
        transform = getattr(p, "transform", "") or ""
        rows.append(f"<tr><td><code>{esc(p.torch_name)}</code></td><td class=mono>{esc(fmt_shape(p.torch_shape))}</td>"
                    f"<td><code>{esc(p.ms_name)}</code></td><td class=mono>{esc(fmt_shape(p.ms_shape))}</td>"
                    f"<td>{esc(transform or '-')}</td><td>{esc(p.how)}</td></tr>")
    for s in mapped.skipped_params:
        rows.append(f"<tr><td><code>{esc(s.torch_name)}</code></td><td></td><td class=muted>(not transferred)</td>"
                    f"<td></td><td>-</td><td>{esc(s.reason)}</td></tr>")
    return ('<h2 id="weight-mapping">Weight mapping</h2><table class="sortable" id="mapping"><thead><tr>'
            '<th data-sort="text">torch</th><th>shape</th><th data-sort="text">mindspore</th><th>shape</th>'
            '<th data-sort="text">transform</th><th data-sort="text">how</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


# ---------------------------------------------------------------- files

def write_html(root: Path, verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
               baseline: Optional[RunDiff] = None, partial: bool = False, run_info: Optional[dict] = None) -> Path:
    """root/index.html and root/cells/<case>.html; returns the index's path."""
    cells = root / "cells"
    cells.mkdir(parents=True, exist_ok=True)
    for case, items in by_case(verdicts).items():
        atomic_write_text(cells / f"{safe_name(case)}.html", render_case_page(case, items))
    index = root / "index.html"
    atomic_write_text(index, render_index(verdicts, errors, created, baseline, partial=partial, run_info=run_info))
    return index
