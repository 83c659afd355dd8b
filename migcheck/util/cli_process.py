"""The CLI process itself: output that never raises on encoding, and an exit that threads left running by a
case cannot block.

Under LANG=C or PYTHONIOENCODING=ascii, a case named 'café' used to end a run with UnicodeEncodeError at
its first verdict line, after which the report was never written. Escaping what the locale cannot print
(caf\\xe9) keeps every line and every result.
"""
from __future__ import annotations

import os
import sys


def never_raise_on_encoding() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass


def leave(code: int) -> int:
    """code; but when a case left non-daemon threads running (named in its verdict by migcheck.running.guard),
    Python would wait for them at exit, forever: everything is written by now, so exit at once."""
    guard = sys.modules.get("migcheck.running.guard")
    if guard is not None and guard.left_running():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
