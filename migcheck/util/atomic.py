"""Atomic file writes: a reader (or a later run) sees the old file or the new one, never half of one.

Every file migcheck writes for later use goes through here: goldens and their manifests
(migcheck.golden.store) and every report file (summary.json, index.html, cells/<case>.json|md|html).
The content goes to a temporary file in the same folder, which then replaces the target with
``os.replace`` (atomic on POSIX and Windows within one file system). A write that fails or is
interrupted (an exception, Ctrl-C) removes its temporary file and leaves the target untouched. A
process killed outright (SIGKILL) may leave a ``.<name>.*.tmp`` file behind, never a partial target.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Callable


def atomic_write(path: os.PathLike, write: Callable[[BinaryIO], Any], *, fsync: bool = True) -> None:
    """Call write(file) on a temporary binary file next to path, then move it into place.

    fsync=True also flushes the data to disk before the rename, so that a power loss cannot leave an
    empty file under the final name either (goldens). Reports skip it: they are rewritten by the next
    run anyway, and hundreds of fsyncs would slow every report down.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; these are ordinary files
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: os.PathLike, text: str, *, encoding: str = "utf-8", fsync: bool = False) -> None:
    """path.write_text(text), atomically."""
    data = text.encode(encoding)
    atomic_write(path, lambda f: f.write(data), fsync=fsync)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import: setting and restoring it around each write would briefly leave the process
# with umask 0 while other threads create files.
_UMASK = _umask()
