"""The terminal summary: one line per verdict, failures expanded, counts at the end."""
from __future__ import annotations

import re
import shutil
from collections import Counter
from typing import Dict, Sequence, TextIO, Tuple

from migcheck.judging.compare import fmt_shape
from migcheck.judging.verdict import Verdict
from migcheck.vocab import STATUSES, Status

# C0 and C1 control characters (newline, ESC, BEL, ...). Case names, messages and error excerpts
# come from user code: printed raw, an ANSI escape or a newline in them could rewrite the terminal.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    """text with every control character shown as an escape (\\n, \\x1b): safe to print on one line."""
    def escape(m: "re.Match[str]") -> str:
        c = m.group(0)
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c, f"\\x{ord(c):02x}")
    return _CONTROL.sub(escape, str(text))


def _paint(text: str, status: str, colour: bool) -> str:
    member = Status.of(status)
    code = member.colour if member else None
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def verdict_line(v: Verdict, colour: bool = False) -> str:
    status = printable(v.status)
    reused = f" [{printable(v.reuse_note)}]" if v.reused_from else ""
    return f"{_paint(status.upper().ljust(5), v.status, colour)}  {printable(v.item)}  {printable(v.message)}{reused}"


def failure_details(v: Verdict) -> list[str]:
    """Indented lines that explain a verdict that is not as expected."""
    out = []
    if v.expected != "pass":
        out.append(f"expected: {v.expected}")
    status = Status.of(v.status)
    if status is not None and status.unjudged and v.file:
        out.append(f"file: {printable(v.file)}")
    out += [f"weight transfer: {printable(p)}" for p in v.structure]
    for t in v.tensors:
        if t.ok:
            continue
        line = f"{t.name}: {t.kind}; torch {fmt_shape(t.torch_shape)} {t.torch_dtype}, mindspore {fmt_shape(t.ms_shape)} {t.ms_dtype}"
        if t.kind in ("value", "nonfinite"):
            line += (f"; max abs {t.max_abs_err:.4g}, max rel {t.max_rel_err:.4g}, {t.mismatched}/{t.total} mismatched,"
                     f" cosine {t.cosine if t.cosine is None else round(t.cosine, 6)}")
        if t.oracle_err_ms is not None:
            line += f"; vs float64: mindspore err {t.oracle_err_ms:.4g}, torch float32 err {t.oracle_err_pt:.4g}"
        out.append(printable(line))
    if v.judged_by:
        out.append(printable(f"judged by: {v.judged_by}"))
    if v.localization is not None:
        out.append(printable(f"where: {v.localization.summary}"))
    if v.error:
        out += [printable(line) for line in v.error.splitlines()[-(20 if status is not None and status.rare else 6):]]
    return out


def render(verdicts: Sequence[Verdict], errors: Sequence[str] = (), colour: bool = False,
           include_expected: bool = True, interrupted: str = "") -> str:
    """The summary; include_expected=False when the lines were already streamed during the run.

    interrupted: for a run stopped by Ctrl-C, what to say instead of judging the whole run.
    """
    lines = []
    for v in verdicts:
        if include_expected or not v.as_expected:
            lines.append(verdict_line(v, colour))
        if not v.as_expected:
            lines += ["        " + d for d in failure_details(v)]
    for e in errors:
        lines.append(_paint("ERROR", "error", colour) + f"  {printable(e)}")
    counts = Counter(v.status for v in verdicts)
    parts = [f"{counts[s]} {printable(s)}" for s in list(STATUSES) + sorted(set(counts) - set(STATUSES)) if counts.get(s)]
    if errors:
        parts.append(f"{len(errors)} collection error(s)")
    unexpected = sum(not v.as_expected for v in verdicts) + len(errors)
    verdict = "all as expected" if not unexpected else f"{unexpected} not as expected"
    if interrupted:
        verdict = f"{verdict} so far; {interrupted}" if unexpected else interrupted
    reused = sum(1 for v in verdicts if v.reused_from)
    if reused:  # --changed: say how much of the picture is taken from the last report, not re-run
        verdict += f" ({reused} of {len(verdicts)} reused from {verdicts[0].reused_from if len({v.reused_from for v in verdicts if v.reused_from}) == 1 else 'earlier reports'})"
    lines.append(f"== {', '.join(parts) or 'nothing run'}: {verdict} ==")
    return "\n".join(lines)


class Progress:
    """A status line redrawn in place on a terminal: which item runs now, how far along, counts so far.

    Finished items still get their permanent verdict line above it. Plain ANSI (carriage return and
    erase-line) rather than a library such as rich: two escape codes do not justify a dependency or
    the import time it would add to every command.
    """

    def __init__(self, stream: TextIO, total: int, colour: bool = False) -> None:
        self.stream = stream
        self.total = total
        self.colour = colour
        self.done = 0
        self.counts: Counter = Counter()

    def _width(self) -> int:
        return max(20, shutil.get_terminal_size((100, 24)).columns - 1)

    def start(self, item_id: str) -> None:
        """Show that item_id is running now."""
        so_far = ", ".join(f"{self.counts[s]} {s}" for s in STATUSES if self.counts.get(s))
        text = f"[{self.done + 1}/{self.total}] {printable(item_id)}" + (f"  ({so_far})" if so_far else "")
        if len(text) > self._width():
            text = text[: self._width() - 3] + "..."
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()

    def finish(self, verdict: Verdict) -> None:
        """Replace the status line with the item's verdict line."""
        self.done += 1
        self.counts[verdict.status] += 1
        self.stream.write("\r\x1b[2K" + verdict_line(verdict, self.colour) + "\n")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\r\x1b[2K")
        self.stream.flush()


def summary_table(verdicts: Sequence[Verdict], colour: bool = False) -> str:
    """Counts per check x mode x backend and status, with a total row; non-zero counts coloured."""
    groups: Dict[Tuple[str, str, str], Counter] = {}
    for v in verdicts:
        groups.setdefault((v.check, v.mode, v.backend), Counter())[v.status] += 1
    total = Counter(v.status for v in verdicts)
    statuses = [s for s in Status if not s.rare or total.get(s)]
    head = ("check", "mode", "backend")
    rows = [key for key in groups]
    widths = [max([len(h)] + [len(r[i]) for r in rows] + [len("total") if i == 0 else 0]) for i, h in enumerate(head)]
    cols = [max(len(s), len(str(total.get(s, 0)))) for s in statuses]

    def line(label: Tuple[str, str, str], counts: Counter) -> str:
        cells = [label[i].ljust(widths[i]) for i in range(3)]
        for status, w in zip(statuses, cols):
            n = counts.get(status, 0)
            text = str(n).rjust(w)
            cells.append(_paint(text, status, colour) if n and colour else text)
        return "  ".join(cells)

    header = "  ".join([h.ljust(w) for h, w in zip(head, widths)] + [s.rjust(w) for s, w in zip(statuses, cols)])
    lines = [header, "-" * len(header)]
    lines += [line(key, groups[key]) for key in rows]
    lines += ["-" * len(header), line(("total", "", ""), total)]
    return "\n".join(lines)
