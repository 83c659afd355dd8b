"""The case examples printed in README.md and cases/README.md must run as printed."""
from pathlib import Path

import pytest

from migcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _first_python_block(path: Path, marker: str) -> str:
    text = path.read_text()
    start = text.index("```python", text.index(marker) if marker else 0) + len("```python")
    return text[start:text.index("```", start)]


@pytest.mark.parametrize("doc, marker, expected", [
    ("README.md", "## A paired case in a few lines", "== 6 pass: all as expected =="),
    ("cases/README.md", "## Adding a case", "== 10 pass, 2 xfail: all as expected =="),
])
@pytest.mark.needs_torch
@pytest.mark.needs_mindspore
def test_documented_case_runs_as_printed(doc, marker, expected, tmp_path, capsys):
    case_file = tmp_path / "cases" / "example.py"
    case_file.parent.mkdir()
    case_file.write_text(_first_python_block(ROOT / doc, marker))
    assert main(["compare", str(case_file), "--color", "never"]) == 0
    assert expected in capsys.readouterr().out
