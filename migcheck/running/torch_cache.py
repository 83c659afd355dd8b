"""The torch side's results kept on disk between runs, so that a re-run after editing only the
MindSpore port does not run torch at all.

An entry is one case x check x torch device: the engine's Reference in the golden file format
(migcheck.golden.store: an .npz of plain arrays, never pickled), named by a key over the case's torch
fingerprint (migcheck.golden.fingerprint: the torch factory's source closure, inputs, weight fill, loss and
optimizer), its name (the seeds derive from it), the check, the device and the torch and migcheck
versions. Editing the MindSpore side, tolerances or expectations keeps the key; editing anything
the torch side computes from changes it. Not covered, as for goldens: code a torch factory imports
inside its body from your own modules; `--no-torch-cache` (or deleting the folder) runs torch again.

Folder: ``.migcheck-cache/torch/`` (``MIGCHECK_CACHE_DIR`` moves ``.migcheck-cache``). A file that
cannot be read is ignored and rewritten.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional

from migcheck.util.atomic import atomic_write

SCHEME = 1  # bump when what an entry holds changes meaning


def default_dir() -> Path:
    from migcheck.planning.cache import DEFAULT_DIR, ENV

    return Path(os.environ.get(ENV) or DEFAULT_DIR) / "torch"


def torch_version() -> str:
    """The installed torch's version, read from its metadata: a cache hit never imports torch."""
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return "none"


def entry_key(case: Any, check: str, device: str, part: str = "reference") -> str:
    from migcheck import __version__
    from migcheck.golden.fingerprint import case_fingerprint

    fingerprint, _ = case_fingerprint(case)
    text = json.dumps([SCHEME, part, case.name, check, device, fingerprint, torch_version(), __version__])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def path_for(root: os.PathLike, key: str) -> Path:
    return Path(root) / f"{key}.npz"


def load(root: os.PathLike, key: str) -> Optional[Dict[str, Any]]:
    """The stored Reference fields, or None (absent, or unreadable: then it is simply recomputed)."""
    import numpy as np

    from migcheck.golden.store import decode

    path = path_for(root, key)
    try:
        data = path.read_bytes()
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return decode(npz)
    except FileNotFoundError:
        return None
    except Exception:
        return None


def store(root: os.PathLike, key: str, fields: Dict[str, Any]) -> None:
    """Write an entry atomically; a failure to write (read-only folder, full disk) is not an error."""
    from migcheck.golden.store import encode, write_npz

    try:
        arrays, meta, _ = encode(fields)
        atomic_write(path_for(root, key), lambda f: write_npz(f, arrays, meta), fsync=False)
    except (OSError, ValueError, TypeError):
        pass
