"""The report folder, checked before the first case runs: it must be a folder, writable, and not in use by
another run (an advisory lock, DIR/.migcheck.lock, held until this process ends).

Two runs writing one folder would silently drop each other's verdicts, and a folder that cannot be
written used to fail only after every case had run.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict

LOCK = ".migcheck.lock"
_held: Dict[str, int] = {}  # resolved folder -> open lock file descriptor (the lock lives as long as it does)


class OutputError(ValueError):
    pass


def prepare(directory: os.PathLike) -> Path:
    """Create directory if needed, check it is writable, take its lock, and remove worker journals a previous
    run left there. OutputError (a ValueError) says why it cannot be used."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise OutputError("is a file, not a folder; give --report a folder (it will be created)")
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".migcheck-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise OutputError(f"cannot write there ({exc.strerror or exc}); choose a writable folder") from None
    lock(root)
    from migcheck.report.journal import WORKER_GLOB

    for stale in root.glob(WORKER_GLOB):
        stale.unlink()
    return root


def lock(root: Path) -> None:
    key = str(root.resolve())
    if key in _held:
        return
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, the folder is still checked writable
        return
    fd = os.open(root / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise OutputError(f"another migcheck run (pid {holder}) is writing this report folder; wait for it to"
                          " finish or give this run another folder") from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    _held[key] = fd


def unlock(root: os.PathLike) -> None:
    fd = _held.pop(str(Path(root).resolve()), None)
    if fd is not None:
        os.close(fd)
