"""The run journal: DIR/journal.jsonl, one JSON line per verdict, appended (flushed and fsynced) the moment
the verdict is final, so a run that dies (SIGKILL, OOM kill, segfault) loses at most the item in flight.

Lines, each a JSON object with one key saying what it is:

- ``{"header": {"journal": 1, "schema_version", "created", "command", "planned": [item ids], "run", "pid", "worker"}}``
- ``{"planned": [item ids]}``: more planned items (pytest-xdist's controller learns them after starting)
- ``{"verdict": {...}}``: a verdict, in the report's schema (summary.json's "verdicts" entries)
- ``{"collection_error": "path: problem"}``
- ``{"end": {"finished", "partial", "reason"}}``: the run ended and wrote its report; a journal without it
  belongs to a run that died, and ``migcheck report DIR`` renders a partial report from it.

Under pytest-xdist each worker journals its own ``journal-<worker>.jsonl``; the controller's
journal.jsonl holds the header, collection errors and the end, and the report merges them all.
A torn last line (the process died while writing it) is ignored. Any other unreadable line, or a verdict
that cannot be read, is skipped and reported (a collection error of the rendered report naming the file and
line, see skipped_note), so every intact verdict still renders.
"""
from __future__ import annotations

import json
import os
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from migcheck.judging.verdict import Verdict
from migcheck.report.jsonfile import cell_verdicts, slim, with_bulk
from migcheck.serialize import SCHEMA_VERSION, verdict_from_json, verdict_to_json
from migcheck.util.atomic import atomic_write_text

JOURNAL = "journal.jsonl"
WORKER_GLOB = "journal-*.jsonl"
FORMAT = 1


def encode_verdict(verdict: Verdict) -> Dict[str, Any]:
    return verdict_to_json(verdict)


def decode_verdict(data: Dict[str, Any]) -> Verdict:
    return verdict_from_json(data)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Journal:
    """An append-only journal file. Every write is one os.write of a whole line, then fsync."""

    def __init__(self, path: os.PathLike, *, command: Sequence[str] = (), planned: Sequence[str] = (),
                 run: str = "", worker: str = "", fresh: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if fresh else 0)
        self._fd: Optional[int] = os.open(self.path, flags, 0o666)
        self.run = run or uuid.uuid4().hex
        self.created = now()
        self._write({"header": {"journal": FORMAT, "schema_version": SCHEMA_VERSION, "created": self.created,
                                "command": list(command), "planned": list(planned), "run": self.run,
                                "pid": os.getpid(), "worker": worker}})

    def _write(self, record: Dict[str, Any]) -> None:
        if self._fd is None:
            return
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def planned(self, ids: Sequence[str]) -> None:
        self._write({"planned": list(ids)})

    def verdict(self, verdict: Any) -> None:
        """A Verdict, or a dict already in the report's schema."""
        self._write({"verdict": verdict if isinstance(verdict, dict) else encode_verdict(verdict)})

    def collection_error(self, message: str) -> None:
        self._write({"collection_error": str(message)})

    def end(self, partial: bool = False, reason: str = "") -> None:
        self._write({"end": {"finished": now(), "partial": bool(partial), "reason": reason}})
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@dataclass(frozen=True)
class JournalRun:
    """What one or more journal files say about a run."""

    verdicts: Tuple[Verdict, ...]
    errors: Tuple[str, ...]
    planned: Tuple[str, ...]
    created: str
    ended: bool  # the run reached its end (and wrote its report)
    partial: bool  # the run was interrupted, or never reached its end
    reason: str
    skipped: Tuple[str, ...] = ()  # the unreadable lines left out, each a skipped_note (also in errors)

    @property
    def not_run(self) -> Tuple[str, ...]:
        done = {v.item for v in self.verdicts}
        return tuple(i for i in self.planned if i not in done)


class JournalError(ValueError):
    pass


SKIPPED = "was skipped"


def skipped_note(path: Path, number: int, why: str) -> str:
    """The message for an unreadable journal line left out of the report (is_skipped_note finds it again)."""
    return f"{path}: line {number} {SKIPPED} ({why}); the other lines were read"


def is_skipped_note(text: str) -> bool:
    return f" {SKIPPED} (" in text and text.endswith("the other lines were read")


def warn_skipped(errors: Sequence[str]) -> None:
    """`migcheck report`: one stderr warning per journal line that was left out."""
    for note in filter(is_skipped_note, errors):
        print(f"migcheck: warning: {note}", file=sys.stderr)


def _numbered(path: Path, skipped: Optional[List[str]] = None) -> List[Tuple[int, Dict[str, Any]]]:
    """(line number, record) of each readable line. An unreadable line mid-file is noted in skipped (or is a
    JournalError when skipped is None); a torn last line (no newline: the writer died) is dropped silently."""
    lines = path.read_bytes().split(b"\n")
    out = []
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict) or len(record) != 1:
                raise ValueError("not an object with one key")
        except ValueError as exc:
            if number == len(lines):  # a last line with no newline: the process died while writing it
                break
            why = f"not a journal record: {str(exc)[:80]}"
            if skipped is None:
                raise JournalError(f"{path}: line {number} is not a journal record ({exc})") from None
            skipped.append(skipped_note(path, number, why))
            continue
        out.append((number, record))
    return out


def _records(path: Path) -> List[Dict[str, Any]]:
    return [record for _, record in _numbered(path)]


def journal_files(directory: os.PathLike) -> List[Path]:
    root = Path(directory)
    return [p for p in [root / JOURNAL] + sorted(root.glob(WORKER_GLOB)) if p.is_file()]


def read_journal(directory: os.PathLike) -> JournalRun:
    """The run recorded by DIR/journal.jsonl and its workers' journals. JournalError (a ValueError) names a
    corrupt file and line; FileNotFoundError when there is no journal."""
    files = journal_files(directory)
    if not files:
        raise FileNotFoundError(f"{directory}: no {JOURNAL}")
    verdicts: Dict[str, Verdict] = {}
    errors: List[str] = []
    planned: List[str] = []
    created, ended, partial, reason = "", False, False, ""
    run = None
    cells: Dict[str, Dict[str, Any]] = {}
    skipped: List[str] = []
    for path in files:
        for number, record in _numbered(path, skipped):
            (key, value), = record.items()
            if key == "header":
                if not isinstance(value, dict) or value.get("journal") != FORMAT:
                    raise JournalError(f"{path}: header.journal is {value.get('journal') if isinstance(value, dict) else value!r},"
                                       f" this migcheck reads {FORMAT}")
                if path.name == JOURNAL:
                    run, created = value.get("run"), value.get("created", "")
                elif run is not None and value.get("run") not in (run, None):
                    break  # a worker journal left by another run
                planned.extend(value.get("planned") or ())
            elif key == "planned" and not isinstance(value, list):
                skipped.append(skipped_note(path, number, "planned is not a list"))
            elif key == "planned":
                planned.extend(str(v) for v in value)
            elif key == "verdict":
                if isinstance(value, dict) and isinstance(value.get("cell"), str):  # compacted: the cell has the rest
                    full = cell_verdicts(Path(directory), value["cell"], cells).get(value.get("item"))
                    value = with_bulk(value, full) if full is not None else value
                try:
                    verdict = decode_verdict(value)
                except Exception as exc:  # a damaged record costs its own verdict, never the others
                    skipped.append(skipped_note(path, number, f"verdict cannot be read: {type(exc).__name__}: {str(exc)[:80]}"))
                    continue
                verdicts[verdict.item] = verdict
            elif key == "collection_error":
                errors.append(str(value))
            elif key == "end" and path.name == JOURNAL and not isinstance(value, dict):
                skipped.append(skipped_note(path, number, "end is not an object"))
            elif key == "end" and path.name == JOURNAL:
                ended, partial, reason = True, bool(value.get("partial")), str(value.get("reason", ""))
            elif key != "end":
                skipped.append(skipped_note(path, number, f"unknown key {str(key)[:40]!r}"))
    return JournalRun(verdicts=tuple(verdicts.values()), errors=tuple(dict.fromkeys(errors + skipped)),
                      planned=tuple(dict.fromkeys(planned)), created=created, ended=ended,
                      partial=partial or not ended, reason=reason, skipped=tuple(skipped))


def compact(directory: os.PathLike) -> None:
    """Once a run's report is written and its journal ended: each verdict record keeps what summary.json
    keeps, and names the cell file that holds the rest (read_journal reads it back whole). The journal
    stays a full record of the run at a fraction of the size; left as it was if it cannot be rewritten."""
    for path in journal_files(directory):
        try:
            records = _records(path)
            lines = [json.dumps({"verdict": slim(r["verdict"], Path(directory))} if "verdict" in r and isinstance(r["verdict"], dict) else r,
                                separators=(",", ":")) for r in records]
            atomic_write_text(path, "".join(line + "\n" for line in lines))
        except (OSError, ValueError):
            continue


def command_line() -> List[str]:
    name = os.path.basename(sys.argv[0])
    if name == "__main__.py":  # python -m pytest
        name = os.path.basename(os.path.dirname(sys.argv[0]))
    return ["migcheck" if name == "cli.py" else name] + sys.argv[1:]
