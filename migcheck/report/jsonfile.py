"""The JSON record of a run: summary.json and cells/<case>.json. Schema documented in the README."""
from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, List, Sequence

from migcheck.verdict import SCHEMA_VERSION, STATUSES, Verdict, from_dict, to_dict


def safe_name(case: str) -> str:
    """A file name for a case that cannot escape the report folder, distinct for distinct names."""
    cleaned = re.sub(r"[^0-9A-Za-z_.-]", "_", case).lstrip(".") or "_"
    if cleaned == case:
        return case
    # Cleaning merged characters ('a/b' and 'a_b'): a digest of the real name keeps them apart.
    return f"{cleaned}-{hashlib.sha1(case.encode()).hexdigest()[:8]}"


def json_safe(value: Any) -> Any:
    """A verdict dict ready for json.dumps. JSON has no NaN/Infinity: they become strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def summary(verdicts: Sequence[Verdict], errors: Sequence[str] = ()) -> Dict[str, Any]:
    counts = Counter(v.status for v in verdicts)
    return {
        "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "counts": {status: counts.get(status, 0) for status in STATUSES},
        "all_as_expected": all(v.as_expected for v in verdicts) and not errors,
        "collection_errors": list(errors),
        "verdicts": [json_safe(to_dict(v)) for v in verdicts],
    }


def write_json_report(root: Path, verdicts: Sequence[Verdict], errors: Sequence[str] = ()) -> None:
    cells = root / "cells"
    cells.mkdir(parents=True, exist_ok=True)
    (root / "summary.json").write_text(json.dumps(summary(verdicts, errors), indent=1))
    for case, items in by_case(verdicts).items():
        record = {"schema_version": SCHEMA_VERSION, "case": case, "file": items[0].file,
                  "verdicts": [json_safe(to_dict(v)) for v in items]}
        (cells / f"{safe_name(case)}.json").write_text(json.dumps(record, indent=1))


def by_case(verdicts: Sequence[Verdict]) -> Dict[str, List[Verdict]]:
    groups: Dict[str, List[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.case].append(v)
    return dict(groups)


def read_summary(path: Path) -> List[Verdict]:
    data = json.loads(Path(path).read_text())
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path}: schema_version {data.get('schema_version')!r}, this migcheck reads {SCHEMA_VERSION}")
    return [from_dict(json_restore(v)) for v in data["verdicts"]]


# The float fields of Verdict, TensorComparison and Sample: only these can hold "inf"/"nan"
# written by json_safe; a case, tensor or note that is literally named "nan" stays a string.
_FLOAT_FIELDS = frozenset(("duration_s", "rtol", "atol", "mismatched_fraction", "max_abs_err", "max_rel_err",
                           "mean_abs_err", "cosine", "min_atol", "min_rtol", "torch", "mindspore"))


def json_restore(value: Any, key: str = "") -> Any:
    """Inverse of json_safe: "nan"/"inf" strings in float fields become floats again."""
    if isinstance(value, str) and key in _FLOAT_FIELDS and value in ("inf", "-inf", "nan"):
        return float(value)
    if isinstance(value, dict):
        return {k: json_restore(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [json_restore(v) for v in value]
    return value
