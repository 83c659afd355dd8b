"""Error plots kept on disk between runs: a PNG depends only on the tensor's error sample and atol,
so a re-run whose failures did not change (the usual edit-rerun loop: the known-bad cases fail the
same way every time) copies them instead of drawing them again (about 0.15 s each with matplotlib).

Folder: ``.migcheck-cache/plots/`` (``MIGCHECK_CACHE_DIR`` moves ``.migcheck-cache``); one file per
distinct plot, named by a sha256 of what it is drawn from and the matplotlib version.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Optional

from migcheck.util.atomic import atomic_write
from migcheck.judging.compare import TensorComparison


def _folder() -> Path:
    from migcheck.planning.cache import DEFAULT_DIR, ENV

    return Path(os.environ.get(ENV) or DEFAULT_DIR) / "plots"


def _key(t: TensorComparison) -> str:
    from importlib import metadata

    try:
        version = metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        version = "?"
    text = repr((dataclasses.astuple(t.error_sample), float(t.atol), version, 3))  # 3: 64-colour octree palette PNGs
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def error_png(t: TensorComparison) -> Optional[bytes]:
    """plots.error_png(t), read from the cache when an earlier run drew the same plot."""
    from migcheck.report import plots

    if t.error_sample is None:
        return None
    path = _folder() / f"{_key(t)}.png"
    try:
        return path.read_bytes()
    except OSError:
        pass
    png = plots.error_png(t)
    if png is not None:
        try:
            atomic_write(path, lambda f: f.write(png), fsync=False)
        except OSError:  # a read-only or full disk only costs the redraw next time
            pass
    return png
