"""How big a report folder is, by kind of file: the size line of the terminal and of summary.json (issue 26)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict

from migcheck.report.jsonfile import dumps, read_json_object
from migcheck.util.atomic import atomic_write_text


def by_kind(folder: Path) -> Dict[str, int]:
    """Bytes per kind: cell pages (html), cell records (json, json.gz), cell Markdown, index.html, summary.json,
    journal; the lock and temporary files are not counted."""
    out: Counter = Counter()
    for path in Path(folder).rglob("*"):
        if not path.is_file() or path.name.startswith("."):
            continue
        rel = path.relative_to(folder)
        if rel.parts[0] == "cells":
            kind = "cell records" if ".json" in path.name else "cell pages" if path.suffix == ".html" else "cell markdown"
        else:
            kind = "journal" if "journal" in path.name else path.name
        out[kind] += path.stat().st_size
    return dict(out)


def megabytes(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1_000_000 else f"{n / 1e3:.0f} kB"


def size_line(sizes: Dict[str, int]) -> str:
    """'1.16 MB: cell pages 0.76 MB, cell records 0.18 MB, ...', largest first."""
    parts = ", ".join(f"{kind} {megabytes(n)}" for kind, n in sorted(sizes.items(), key=lambda kv: -kv[1]))
    return f"{megabytes(sum(sizes.values()))}: {parts}"


def record_size(folder: Path) -> Dict[str, int]:
    """Add the folder's size to its summary.json ("size": bytes by kind, "total"), summary.json counted as it
    was before this field; the sizes, or {} when there is no summary.json to add them to."""
    summary = Path(folder) / "summary.json"
    data = read_json_object(summary)
    if data is None:
        return {}
    sizes = by_kind(folder)
    data["size"] = {"total": sum(sizes.values()), **sizes}
    atomic_write_text(summary, dumps(data))
    return sizes
