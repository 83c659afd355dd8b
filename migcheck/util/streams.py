"""Terminal streams that never raise on encoding.

Under LANG=C or PYTHONIOENCODING=ascii, a case named 'café' used to end a run with UnicodeEncodeError at
its first verdict line, after which the report was never written. Escaping what the locale cannot print
(caf\\xe9) keeps every line and every result.
"""
from __future__ import annotations

import sys


def never_raise_on_encoding() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to print to anyway
                pass
