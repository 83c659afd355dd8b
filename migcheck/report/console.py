"""`migcheck compare`'s terminal output, shaped like pytest's.

Default: one line per case file, a status character per item (`cases/conv.py ..x..s..F`); -v: one
line per item; -q: no progress. Then the items that are not as expected, expanded once with their
diagnosis, and a final line with the counts, the time and the report's index.html.

On a terminal the current file's line is redrawn in place with a progress bar and an ETA (plain ANSI:
carriage return and erase-line; a library such as rich would add its import time to every command).
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence, TextIO

from migcheck.report.terminal import _paint, failure_details, printable, render, verdict_line
from migcheck.judging.verdict import Verdict
from migcheck.vocab import Status
from migcheck.records.notes import is_warning

QUIET, NORMAL, VERBOSE = -1, 0, 1


def status_char(status: str) -> str:
    member = Status.of(status)
    return member.symbol if member else "?"


def shown_path(file: str, cwd: Path) -> str:
    """A verdict's file as the user would type it: relative to the working directory when below it."""
    if not file:
        return "<unknown file>"
    path = Path(file)
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def fmt_duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.2f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes}:{secs:02d}" if minutes < 60 else f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def bar(done: int, total: int, elapsed: float, width: int = 20) -> str:
    """'[#######.............]  35% 7/20 ETA 0:13': the ETA is the mean item time so far times what is left."""
    fraction = done / total if total else 1.0
    filled = int(round(fraction * width))
    eta = f" ETA {fmt_duration(elapsed / done * (total - done))}" if done and done < total else ""
    return f"[{'#' * filled}{'.' * (width - filled)}] {int(fraction * 100):3d}% {done}/{total}{eta}"


def expanded(verdicts: Sequence[Verdict], colour: bool = False) -> List[str]:
    """The failures and unexpected passes, each once: its line, its details and its diagnosis."""
    lines: List[str] = []
    for v in verdicts:
        if v.as_expected:
            continue
        lines.append(verdict_line(v, colour))
        lines += ["        " + d for d in failure_details(v)]
        if v.localization is not None:
            for f in v.localization.findings:
                lines.append("        " + printable(f"diagnosis ({f.rule}, {f.confidence}): {f.cause} Fix: {f.fix}"))
    return lines


def final_line(verdicts: Sequence[Verdict], errors: Sequence[str], elapsed: Optional[float], index: Optional[str],
               interrupted: str = "") -> str:
    """'== 3 pass, 1 fail: 1 not as expected == 1.20s; report: reports/latest/index.html'."""
    counts = render(verdicts, errors, include_expected=False, interrupted=interrupted).splitlines()[-1]
    tail = [fmt_duration(elapsed)] if elapsed is not None else []
    tail.append(f"report: {index}" if index else "no report (--no-report)")
    return f"{counts} {'; '.join(tail)}"


class Console:
    """Receives items as they start and verdicts as they finish; writes progress to stream."""

    def __init__(self, stream: TextIO, total: int, verbosity: int = NORMAL, colour: bool = False, live: bool = False,
                 cwd: Optional[Path] = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.total = total
        self.verbosity = verbosity
        self.colour = colour
        self.live = live  # a terminal: redraw the current line in place
        self.cwd = cwd or Path.cwd()
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.file: Optional[str] = None
        self.chars: List[str] = []
        self.current = ""

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def _width(self) -> int:
        return max(30, shutil.get_terminal_size((100, 24)).columns - 1)

    def _file_line(self, colour: bool) -> str:
        chars = "".join(_paint(c, s, colour) for c, s in self.chars) if colour else "".join(c for c, _ in self.chars)
        return f"{self.file} {chars}".rstrip()

    def _redraw(self) -> None:
        if not self.live or self.verbosity == QUIET:
            return
        suffix = "  " + bar(self.done, self.total, self.clock() - self.started)
        if self.verbosity >= VERBOSE:
            head = f"running {printable(self.current)}"
        else:
            shown = "".join(c for c, _ in self.chars)
            room = self._width() - len(suffix) - len(self.file or "") - 1
            head = f"{self.file} {shown[-room:] if room > 0 and len(shown) > room else shown}".rstrip()
        text = head + suffix
        if len(text) > self._width():
            text = text[: self._width() - 3] + "..."
        self._write("\r\x1b[2K" + text)

    def start(self, item_id: str, file: str) -> None:
        self.current = item_id
        path = shown_path(file, self.cwd)
        if self.verbosity == NORMAL and path != self.file:
            self._end_file()
            self.file = path
            if not self.live:
                self._write(path + " ")
        self._redraw()

    def finish(self, verdict: Verdict) -> None:
        self.done += 1
        if self.verbosity >= VERBOSE:
            if self.live:
                self._write("\r\x1b[2K")
            self._write(verdict_line(verdict, self.colour) + "\n")
        elif self.verbosity == NORMAL:
            path = shown_path(verdict.file, self.cwd)
            if path != self.file:  # a verdict that arrived without start() (none today; kept consistent)
                self.start(verdict.item, verdict.file)
            self.chars.append((status_char(verdict.status), verdict.status))
            if not self.live:
                self._write(_paint(status_char(verdict.status), verdict.status, self.colour))
        self._redraw()

    def _end_file(self) -> None:
        if self.file is None:
            return
        if self.live:
            self._write("\r\x1b[2K" + self._file_line(self.colour) + "\n")
        else:
            self._write("\n")
        self.file, self.chars = None, []

    def close(self) -> None:
        """End the progress: the last file's line is completed, the live line erased."""
        if self.verbosity == NORMAL:
            self._end_file()
        elif self.live:
            self._write("\r\x1b[2K")

    def elapsed(self) -> float:
        return self.clock() - self.started

    def summary(self, verdicts: Sequence[Verdict], errors: Sequence[str], index: Optional[str],
                interrupted: str = "", elapsed: Optional[float] = None) -> str:
        """What follows the progress: failures expanded, collection errors, the final line."""
        lines: List[str] = []
        failing = expanded(verdicts, self.colour)
        if self.verbosity > QUIET:
            lines.append("")
        if failing or errors:
            lines.append("== not as expected ==")
            lines += failing
            lines += [_paint("ERROR", "error", self.colour) + f"  {printable(e)}" for e in errors]
        warned = [(v.item, n) for v in verdicts for n in v.notes if is_warning(n)]
        if warned:  # a case that changed process-wide state is named, whatever its status
            lines.append("== warnings ==")
            lines += [_paint("WARNING", "error", self.colour) + f"  {printable(item)}  {printable(n)}" for item, n in warned]
        lines.append(final_line(verdicts, errors, self.elapsed() if elapsed is None else elapsed, index, interrupted))
        return "\n".join(lines)
