"""Replace a report folder whole: the new report is written beside it, then swapped in by two renames.

A reader sees the old report or the new one, never a mix of both runs' cell pages. Only a folder that
holds a report (a summary.json) or nothing is replaced: `--report .` or a folder of other files is
written into in place, file by file, as before, so that nothing of the user's is ever deleted.
"""
from __future__ import annotations

import contextlib
import fnmatch
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, Sequence


def replaceable(root: Path, keep: Sequence[str] = ()) -> bool:
    if not root.exists():
        return True
    if not root.is_dir() or root.is_symlink():
        return False
    names = {p.name for p in root.iterdir() if not any(fnmatch.fnmatch(p.name, k) for k in keep)}
    return not names or "summary.json" in names


@contextlib.contextmanager
def replacing(root: Path, keep: Sequence[str] = ()) -> Iterator[Path]:
    """Yields the folder to write into; on success that folder becomes root. On an exception the old
    report stays and the half-written one is removed. Files in root matching a pattern of keep (a running
    run's journal and lock) are moved into the new folder just before the swap."""
    root = Path(root)
    if not replaceable(root, keep):
        root.mkdir(parents=True, exist_ok=True)
        yield root
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{root.name}.new-", dir=root.parent))
    try:
        yield fresh
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    moved, old = [], None
    try:
        if root.is_dir():
            for pattern in keep:
                for path in root.glob(pattern):
                    os.replace(path, fresh / path.name)
                    moved.append(path)
        os.chmod(fresh, 0o777 & ~_umask())  # mkdtemp makes it 0700; a report folder is an ordinary folder
        if root.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{root.name}.old-", dir=root.parent))
            os.replace(root, old / root.name)
        os.replace(fresh, root)
    except OSError:  # disk full or permissions: the old folder, journal and lock go back where they were
        _undo(root, fresh, old, moved)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _undo(root: Path, fresh: Path, old: "Path | None", moved: Sequence[Path]) -> None:
    with contextlib.suppress(OSError):
        if old is not None and (old / root.name).exists() and not root.exists():
            os.replace(old / root.name, root)
    for path in moved:
        with contextlib.suppress(OSError):
            os.replace(fresh / path.name, path)
    shutil.rmtree(fresh, ignore_errors=True)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
