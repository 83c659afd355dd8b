"""`migcheck record`: run only the torch side and store its reference as golden fixtures."""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

import migcheck
from migcheck.golden import store as golden
from migcheck.case import PairedCase
from migcheck.golden.fingerprint import case_fingerprint
from migcheck.golden.hints import display_path as _display_path, record_hint  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Recorded:
    """What happened to one case x check: recorded, exists, skip or error."""

    case: str
    check: str
    status: str
    message: str

    @property
    def item(self) -> str:
        return f"{self.case}[{self.check}]"

    @property
    def ok(self) -> bool:
        return self.status in ("recorded", "exists", "skip")


def record_case(case: PairedCase, checks: Sequence[str], root: str, *, update: bool = False,
                torch_device: str = "cpu", oracle: bool = True) -> List[Recorded]:
    """Record each check of one case under root; existing goldens stay unless update is set."""
    from migcheck.running.reference import SkipCheck, torch_oracle, torch_reference
    from migcheck.runners import torch_side

    fingerprint, parts = case_fingerprint(case)
    try:
        manifest = golden.read_manifest(root, case.name)
    except ValueError as exc:
        if not update:
            return [Recorded(case.name, c, "error", f"{exc}; use --update to replace it") for c in checks]
        manifest = None
    entries: Dict[str, golden.CheckEntry] = dict(manifest.checks) if manifest else {}
    device = torch_side.resolve_device(torch_device)
    unavailable = torch_side.device_unavailable(device)
    if unavailable:
        return [Recorded(case.name, c, "skip", unavailable) for c in checks]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    env = {"migcheck": migcheck.__version__, **torch_side.versions(),
           "numpy": np.__version__, "python": platform.python_version(), "torch_device": device}
    out: List[Recorded] = []
    changed = False
    for check in checks:
        path = golden.check_path(root, case.name, check)
        old = entries.get(check)
        if not update and (path.exists() or (old is not None and old.skip)):
            stale = old is not None and old.fingerprint != fingerprint
            out.append(Recorded(case.name, check, "error" if stale else "exists",
                                f"{path if path.exists() else golden.case_dir(root, case.name) / golden.MANIFEST}"
                                f" exists{' and is stale (the case changed)' if stale else ''}, use --update"))
            continue
        if check in case.skip:
            out.append(Recorded(case.name, check, "skip", f"the case skips {check}: {case.skip[check]}"))
            continue
        base = dict(check=check, fingerprint=fingerprint, fingerprint_parts=parts, recorded=now,
                    torch_version=env["torch"], torch_device=device)
        try:
            ref = torch_reference(case, check, device=device)
        except SkipCheck as skip:
            entries[check] = golden.CheckEntry(skip=str(skip), **base)
            changed = True
            out.append(Recorded(case.name, check, "skip", f"{skip} (recorded as a skip)"))
            continue
        except Exception as exc:
            out.append(Recorded(case.name, check, "error", f"torch side raised {type(exc).__name__}: {exc}"))
            continue
        fields = {f.name: getattr(ref, f.name) for f in dataclasses.fields(ref)}
        note = ""
        if oracle:
            try:
                fields["oracle"] = torch_oracle(case, check, device=device)
            except Exception as exc:
                note = f"the float64 oracle could not run: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        else:
            note = "recorded with --no-oracle"
        try:
            path, sha, size, tensors = golden.write_check(root, case.name, check, fields)
        except Exception as exc:
            out.append(Recorded(case.name, check, "error", f"could not write {path}: {type(exc).__name__}: {exc}"))
            continue
        entries[check] = golden.CheckEntry(file=path.name, sha256=sha, size=size, oracle=fields.get("oracle") is not None,
                                           oracle_note=note, tensors=tensors, **base)
        changed = True
        results = sum(t.role == "result" for t in tensors)
        out.append(Recorded(case.name, check, "recorded",
                            f"{_display_path(str(path))}: {results} tensor(s), {size / 1024:.1f} KiB"
                            + (f"; {note}" if note else "")))
    if changed:
        golden.write_manifest(root, golden.Manifest(
            case=case.name, case_file=_display_path(case.file), case_file_sha256=_file_sha(case.file),
            fingerprint=fingerprint, fingerprint_parts=parts, recorded_with=env,
            seed={"scheme": golden.SEED_SCHEME, "case_name": case.name}, checks=entries))
    return out


def _file_sha(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def line(r: Recorded) -> str:
    tag = {"recorded": "RECORD", "exists": "EXISTS", "skip": "SKIP", "error": "ERROR"}[r.status]
    return f"{tag.ljust(6)} {r.item}  {r.message}"


def summary(results: Sequence[Recorded], collection_errors: Sequence[str] = ()) -> str:
    counts: Dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    parts = [f"{counts[s]} {s}" for s in ("recorded", "exists", "skip", "error") if counts.get(s)]
    if collection_errors:
        parts.append(f"{len(collection_errors)} collection error(s)")
    return f"== {', '.join(parts) or 'nothing recorded'} =="
