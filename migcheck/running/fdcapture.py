"""Capture what native code writes to stderr (file descriptor 2) while an item runs.

MindSpore's C++ logs (GRAPH compile failures, kernel errors) and torch's native warnings bypass
sys.stderr: only redirecting the descriptor itself (os.dup2) catches them. The text is attached to
the item's verdict (Verdict.framework_log) instead of landing between the terminal's verdict lines.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import Iterator

HEAD_CHARS, TAIL_CHARS = 2000, 6000  # what an excerpt keeps of a long log: its start and its end


@dataclass
class Captured:
    text: str = ""


@contextlib.contextmanager
def captured_stderr(enabled: bool = True) -> Iterator[Captured]:
    """Within the block, fd 2 writes to a temporary file; afterwards .text holds what was written."""
    captured = Captured()
    if not enabled:
        yield captured
        return
    _flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield captured
        finally:
            _flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            captured.text = tmp.read().decode("utf-8", "replace")


def _flush() -> None:
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def excerpt(text: str) -> str:
    """The log's start and end when it is long (the first error and the final one both matter)."""
    text = text.strip("\n")
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    dropped = len(text) - HEAD_CHARS - TAIL_CHARS
    return f"{text[:HEAD_CHARS]}\n[... {dropped} characters left out ...]\n{text[-TAIL_CHARS:]}"
