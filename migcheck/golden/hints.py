"""The `migcheck record` command that (re-)records a case: golden errors name it as their fix."""
from __future__ import annotations

import os
from typing import Any


def record_hint(case: Any, root: str) -> str:
    """The command that (re-)records one case, for messages."""
    where = display_path(case.file) if case.file else ""
    return f"migcheck record {where + ' ' if where else ''}-k {case.name} --fixtures {root}"


def display_path(path: str) -> str:
    """Relative to the working directory when below it, else as given."""
    try:
        return os.path.relpath(path) if path and not os.path.relpath(path).startswith("..") else path
    except ValueError:  # another drive (Windows)
        return path
