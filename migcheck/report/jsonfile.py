"""The JSON record of a run: summary.json and cells/<case>.json. Schema documented in the README."""
from __future__ import annotations

import gzip
import hashlib
import json
import re
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from migcheck.util.atomic import atomic_write, atomic_write_text
from migcheck.judging.verdict import Verdict
from migcheck.serialize import READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, verdict_from_json, verdict_to_json
from migcheck.vocab import STATUSES


MAX_NAME = 100  # characters of a case's file stem: with suffixes well under the usual 255-byte limit


def safe_name(case: str) -> str:
    """A file name for a case that cannot escape the report folder, distinct for distinct names, and bounded
    in length (a 300-character case name must not fail the report with "file name too long")."""
    cleaned = re.sub(r"[^0-9A-Za-z_.-]", "_", case).lstrip(".") or "_"
    if len(cleaned) > MAX_NAME:
        return f"{cleaned[:MAX_NAME - 9]}-{hashlib.sha1(case.encode()).hexdigest()[:8]}"
    if cleaned == case:
        return case
    # Cleaning merged characters ('a/b' and 'a_b'): a digest of the real name keeps them apart.
    return f"{cleaned}-{hashlib.sha1(case.encode()).hexdigest()[:8]}"


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def summary(verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
            partial: bool = False, run_info: Optional[Dict[str, Any]] = None, not_run: Sequence[str] = (),
            root: Optional[Path] = None) -> Dict[str, Any]:
    counts = Counter(v.status for v in verdicts)
    return {
        "schema_version": SCHEMA_VERSION,
        "created": created or now(),
        # How the run was started: {"started", "command", "seconds"} (absent from pytest and merged reports).
        **({"run": dict(run_info)} if run_info else {}),
        # True when the run was interrupted (Ctrl-C): the verdicts are those finished before it.
        "partial": bool(partial),
        "counts": {status: counts.get(status, 0) for status in STATUSES},
        "all_as_expected": all(v.as_expected for v in verdicts) and not errors and not partial and not not_run,
        "collection_errors": list(errors),
        # --changed: how many verdicts were taken over from an earlier report instead of re-run; absent when none.
        **({"reused": sum(1 for v in verdicts if v.reused_from)} if any(v.reused_from for v in verdicts) else {}),
        "verdicts": [summary_entry(v, root) for v in verdicts],
        # Items planned but never finished (an interrupted or dead run); absent when there are none.
        **({"not_run": list(not_run)} if not_run else {}),
    }


# What summary.json leaves to cells/<case>.json (schema 4): per-tensor results, the weight mapping and the
# localization's sub-cell rows, defects and findings. On real nets they are most of the bytes, and one file per
# case holds them.
SUMMARY_LEAVES_OUT = ("tensors", "mapping", "skipped_params")
LOCALIZATION_BULK = ("rows", "defects", "findings")
# A cell file larger than this is written gzip-compressed, as cells/<case>.json.gz (a real net's backward
# verdicts: hundreds of tensors and sub-cells compress about 8x); smaller ones stay plain JSON to read as is.
COMPRESS_OVER = 64_000


def summary_entry(verdict: Verdict, root: Optional[Path] = None) -> Dict[str, Any]:
    """A verdict as summary.json lists it: everything but the bulk, plus its tensor counts and its cell file."""
    return slim(verdict_to_json(verdict), root)


def cell_name(case: str, root: Optional[Path] = None) -> str:
    """The cell file of a case, relative to the report folder: .json.gz when root holds that one."""
    name = f"cells/{safe_name(case)}.json"
    return name + ".gz" if root is not None and (Path(root) / (name + ".gz")).is_file() else name


def slim(data: Dict[str, Any], root: Optional[Path] = None) -> Dict[str, Any]:
    """A verdict's JSON without its bulk (SUMMARY_LEAVES_OUT, localization rows, defects and findings), naming
    the cell file that has it (root: the report folder, to name a compressed one)."""
    if "cell" in data:
        return data
    tensors = data.get("tensors") or []
    out = {**data, **{key: [] for key in SUMMARY_LEAVES_OUT}}
    if isinstance(out.get("localization"), dict):
        out["localization"] = {**out["localization"], **{key: [] for key in LOCALIZATION_BULK}}
    out["tensor_counts"] = {"compared": len(tensors), "failing": sum(not t.get("ok") for t in tensors if isinstance(t, dict))}
    out["cell"] = cell_name(str(data.get("case", "")), root)
    return out


SHARED_IN_CELL = ("mapping", "skipped_params")


def with_bulk(entry: Dict[str, Any], full: Dict[str, Any]) -> Dict[str, Any]:
    """A summary (or compacted journal) entry with the bulk its cell file holds: the entry's own fields win."""
    out = {**entry, **{key: full.get(key, []) for key in SUMMARY_LEAVES_OUT}}
    if isinstance(entry.get("localization"), dict) and isinstance(full.get("localization"), dict):
        out["localization"] = {**entry["localization"],
                               **{key: full["localization"].get(key, []) for key in LOCALIZATION_BULK}}
    return out


class CellFileError(ValueError):
    """A cells/<case>.json that summary.json or the journal names cannot be read."""


def cell_verdicts(folder: Path, cell: str, cache: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """item id -> full verdict JSON from a cell file named by summary.json or the journal; {} when the file is
    absent (a summary.json copied alone still reads, without per-tensor detail)."""
    if cell not in cache:
        path = folder / cell
        if not path.is_file() and (folder / f"{cell}.gz").is_file():  # named before it was compressed (journal)
            path = folder / f"{cell}.gz"
        if Path(cell).is_absolute() or ".." in Path(cell).parts or not path.is_file():
            cache[cell] = {}
        else:
            try:
                raw_bytes = path.read_bytes()
                record = json.loads(gzip.decompress(raw_bytes) if path.suffix == ".gz" else raw_bytes.decode())
            except (UnicodeDecodeError, json.JSONDecodeError, OSError, EOFError) as exc:
                raise CellFileError(f"{path}: not a valid cell file ({exc}); re-run, or re-render from the journal") from None
            raw = record.get("verdicts") if isinstance(record, dict) else None
            shared = record.get("shared") if isinstance(record, dict) and isinstance(record.get("shared"), dict) else {}
            cache[cell] = {v.get("item"): ({**v, **{k: x for k, x in shared.items() if x is not None}} if v.get("shared") else v)
                           for v in raw if isinstance(v, dict)} if isinstance(raw, list) else {}
    return cache[cell]


def dumps(record: Any, compact: bool = False) -> str:
    """json.dumps(record, indent=1), except that each tensor's error_sample is written on one line:
    its thousands of numbers, one per indented line, would make the record several times larger.
    compact: no indentation at all (the cell files: hundreds of tensors per verdict on a real net)."""
    if compact:
        return json.dumps(record, separators=(",", ":"))
    token = f"@migcheck-sample-{uuid.uuid4().hex}-"
    stashed: List[str] = []

    def stash(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k == "error_sample" and isinstance(v, dict):
                    stashed.append(json.dumps(v, separators=(",", ":")))
                    out[k] = f"{token}{len(stashed) - 1}"
                else:
                    out[k] = stash(v)
            return out
        if isinstance(value, (list, tuple)):
            return [stash(v) for v in value]
        return value

    text = json.dumps(stash(record), indent=1)
    return re.sub(re.escape(f'"{token}') + r'(\d+)"', lambda m: stashed[int(m.group(1))], text)


def write_json_report(root: Path, verdicts: Sequence[Verdict], errors: Sequence[str] = (), created: str = "",
                      partial: bool = False, run_info: Optional[Dict[str, Any]] = None, not_run: Sequence[str] = ()) -> None:
    """summary.json last: a run interrupted while writing leaves the previous summary.json whole (every
    file is written atomically), never one that names cell files this run did not finish."""
    cells = root / "cells"
    cells.mkdir(parents=True, exist_ok=True)
    for case, items in by_case(verdicts).items():
        record = {"schema_version": SCHEMA_VERSION, "case": case, "file": items[0].file,
                  "verdicts": [unshown_dropped(verdict_to_json(v, lean=True)) for v in items]}
        shared = {key: record["verdicts"][0].get(key) for key in SHARED_IN_CELL}
        if len(items) > 1 and shared["mapping"] and all(all(v.get(k) == shared[k] for k in SHARED_IN_CELL)
                                                        for v in record["verdicts"]):
            record["shared"] = shared  # every check of a case maps the same weights: written once
            for v in record["verdicts"]:
                for key in SHARED_IN_CELL:
                    v.pop(key, None)
                v["shared"] = True
        text = dumps(record, compact=True)
        plain, packed = cells / f"{safe_name(case)}.json", cells / f"{safe_name(case)}.json.gz"
        if len(text) > COMPRESS_OVER:  # mtime=0: the same record gives the same bytes
            atomic_write(packed, lambda f, data=gzip.compress(text.encode(), 9, mtime=0): f.write(data), fsync=False)
            plain.unlink(missing_ok=True)
        else:
            atomic_write_text(plain, text)
            packed.unlink(missing_ok=True)
    atomic_write_text(root / "summary.json", dumps(summary(verdicts, errors, created, partial, run_info, not_run, root)))


def unshown_dropped(data: Dict[str, Any]) -> Dict[str, Any]:
    """A verdict's cell record without what no page or terminal line shows: the message of a paired sub-cell
    row (its flags and error are the row; the message of an unpaired row says why it is unpaired and stays)."""
    loc = data.get("localization")
    if isinstance(loc, dict) and isinstance(loc.get("rows"), list):
        loc["rows"] = [{**r, "message": ""} if isinstance(r, dict) and r.get("ms_kind") else r for r in loc["rows"]]
    tensors = data.get("tensors")
    if isinstance(tensors, list):
        data["tensors"] = [{**t, "message": ""} if id(t) in _undetailed(tensors) else t for t in tensors]
    return data


def _undetailed(tensors: List[Any]) -> set:
    """ids of the failing tensors a page shows in its metrics table only (report.condense.detailed, on the JSON
    form): their messages, a few hundred characters each on every gradient of a real net, are shown nowhere. The
    metrics a message repeats stay in the tensor's own fields."""
    from migcheck.report.condense import FOLD_FROM, MEASURED

    failing = [t for t in tensors if isinstance(t, dict) and not t.get("ok", True)]
    has_detail = lambda t: t.get("error_sample") is not None or bool(t.get("first_mismatches"))  # noqa: E731
    if len(failing) < FOLD_FROM or not any(has_detail(t) for t in failing):
        return set()
    return {id(t) for t in failing if not has_detail(t) and t.get("kind") in MEASURED}


def read_json_object(path: Path) -> Optional[Dict[str, Any]]:
    """A JSON object from a file, or None when it is absent or not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def by_case(verdicts: Sequence[Verdict]) -> Dict[str, List[Verdict]]:
    groups: Dict[str, List[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.case].append(v)
    return dict(groups)


@dataclass(frozen=True)
class Run:
    """A run as read back from its summary.json."""

    path: Path
    verdicts: Tuple[Verdict, ...]
    errors: Tuple[str, ...] = ()  # collection errors
    created: str = ""
    schema_version: int = SCHEMA_VERSION
    partial: bool = False  # the run was interrupted; these are the verdicts finished before that
    run_info: Optional[Dict[str, Any]] = None  # summary.json's "run": started, command, seconds
    not_run: Tuple[str, ...] = ()  # planned items that never finished


def read_run(path: Path) -> Run:
    """summary.json (or a report folder holding one) -> Run. ValueError for a schema this migcheck cannot read."""
    path = Path(path)
    if path.is_dir():
        path = path / "summary.json"
    try:
        data = json.loads(path.read_text())
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a summary.json is JSON)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno} ({exc.msg});"
                         f" a summary.json cut short or edited? re-run, or `migcheck report` its folder's journal") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: holds a JSON {type(data).__name__}, not a report object")
    version = data.get("schema_version")
    if version not in READABLE_SCHEMA_VERSIONS:
        readable = " or ".join(str(v) for v in READABLE_SCHEMA_VERSIONS)
        raise ValueError(f"{path}: schema_version {version!r}, this migcheck reads {readable}")
    for field, kind in (("verdicts", list), ("collection_errors", list), ("not_run", list), ("created", str)):
        if field in data and not isinstance(data[field], kind):
            raise ValueError(f"{path}: field {field!r} is a {type(data[field]).__name__}, not a {kind.__name__}")
    if "verdicts" not in data:
        raise ValueError(f"{path}: field 'verdicts' is missing")
    verdicts = []
    cells: Dict[str, Dict[str, Any]] = {}
    for i, raw in enumerate(data["verdicts"]):
        try:
            verdict = verdict_from_json(raw)  # the summary's own entry must be whole, cell file or not
            if isinstance(raw, dict) and isinstance(raw.get("cell"), str):  # schema 4: the detail is in the cell file
                full = cell_verdicts(path.parent, raw["cell"], cells).get(raw.get("item"))
                verdict = verdict_from_json(with_bulk(raw, full)) if full is not None else verdict
            verdicts.append(verdict)
        except CellFileError:
            raise
        except Exception as exc:
            absent = re.search(r"missing \d+ required (?:keyword-only |positional )?arguments?: (.*)", str(exc))
            what = (f"missing field {exc}" if isinstance(exc, KeyError) else f"missing field {absent.group(1)}" if absent
                    else f"{type(exc).__name__}: {exc}")
            name = raw.get("item") or raw.get("case") if isinstance(raw, dict) else None
            raise ValueError(f"{path}: verdicts[{i}]" + (f" ({name})" if name else "") + f": {what}") from None
    return Run(path=path, verdicts=tuple(verdicts),
               errors=tuple(data.get("collection_errors", ())), created=data.get("created", ""), schema_version=version,
               partial=data.get("partial") is True, not_run=tuple(data.get("not_run", ())),
               run_info=data["run"] if isinstance(data.get("run"), dict) else None)


def read_summary(path: Path) -> List[Verdict]:
    return list(read_run(path).verdicts)
