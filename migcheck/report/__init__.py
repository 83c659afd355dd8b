"""Reports: JSON (the record), Markdown per cell, and the terminal summary. Numpy and stdlib only."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from migcheck.report.jsonfile import write_json_report
from migcheck.report.markdown import write_markdown
from migcheck.verdict import Verdict


def write_report(directory: str | Path, verdicts: Sequence[Verdict], errors: Sequence[str] = ()) -> Path:
    """summary.json plus one JSON and one Markdown file per case under directory/cells/."""
    root = Path(directory)
    write_json_report(root, verdicts, errors)
    write_markdown(root, verdicts)
    return root
