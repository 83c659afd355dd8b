"""Checkpoint conversion through the mapping engine: torch state_dict <-> MindSpore .ckpt (`migcheck convert`).

The files are read and written as numpy by the runners (runners/checkpoint.py). Every tensor's shape is
checked against the case's modules before anything is written; the output is written atomically (a
temporary file, then os.replace). Bookkeeping buffers MindSpore has no parameter for (BatchNorm's
num_batches_tracked) travel in the .ckpt under their torch names, so a round trip keeps them exactly.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import numpy as np

from migcheck.mapping.transfer import BOOKKEEPING, WeightMapping, to_mindspore, to_torch
from migcheck.runners import checkpoint as ckpt


@dataclass(frozen=True)
class Conversion:
    written: str
    converted: int
    missing: Tuple[str, ...]  # names the mapping needs that the source lacks
    unexpected: Tuple[str, ...]  # names in the source that the mapping does not use


def _atomic(dst: Path, write: Any) -> None:
    """write(temporary path) then os.replace onto dst: a failed conversion never leaves a broken dst."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=dst.suffix, dir=dst.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, dst)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _shape_problems(src: Path, arrays: Dict[str, np.ndarray], params: list) -> None:
    wrong = [f"{p.name!r} is {list(arrays[p.name].shape)}, the case's module has {list(p.shape)}"
             for p in params if p.name in arrays and tuple(arrays[p.name].shape) != tuple(p.shape)]
    if wrong:
        raise ValueError(f"{src}: {len(wrong)} tensor(s) of the wrong shape, nothing written: " + "; ".join(wrong[:3])
                         + ("; ..." if len(wrong) > 3 else ""))


def convert(src: Path, dst: Path, mapping: WeightMapping, *, allow_partial: bool = False,
            key: Optional[str] = None) -> Conversion:
    """Convert src to dst in the direction their suffixes say; refuse unmatched names unless allowed, and
    wrong shapes always (ValueError, before anything is written)."""
    bookkeeping = {s.torch_name for s in mapping.skipped if s.torch_name.rpartition(".")[2] in BOOKKEEPING}
    if src.suffix in ckpt.TORCH_SUFFIXES and dst.suffix == ".ckpt":
        arrays = ckpt.read_torch(src, key)
        needed = {t.name for link in mapping.links for t in link.torch}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        usable = [link for link in mapping.links if all(t.name in arrays for t in link.torch)]
        _shape_problems(src, arrays, [t for link in usable for t in link.torch])
        ms_arrays = to_mindspore(arrays, _only(mapping, usable))
        # Kept under the torch name (load_param_into_net leaves names it does not know alone): the way back restores it.
        ms_arrays.update({n: arrays[n] for n in sorted(bookkeeping) if n in arrays})
        _atomic(dst, lambda tmp: ckpt.write_ckpt(tmp, ms_arrays))
        return Conversion(str(dst), len(ms_arrays), missing, unexpected)
    if src.suffix == ".ckpt" and dst.suffix in ckpt.TORCH_SUFFIXES:
        if key:
            raise ValueError("--key reads a nested torch checkpoint; a .ckpt has no nesting")
        arrays = ckpt.read_ckpt(src)
        kept = {n: arrays.pop(n) for n in list(arrays) if n in bookkeeping}
        needed = {m.name for link in mapping.links for m in link.ms}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        _shape_problems(src, arrays, [m for link in mapping.links for m in link.ms])
        torch_arrays = to_torch(arrays, mapping)
        # MindSpore keeps no BatchNorm step counter; torch's strict load wants one: the value the .ckpt carried
        # (written by this converter), else 0.
        torch_arrays.update({n: kept.get(n, np.array(0, np.int64)) for n in bookkeeping})
        _atomic(dst, lambda tmp: ckpt.write_torch(tmp, torch_arrays))
        return Conversion(str(dst), len(torch_arrays), missing, unexpected)
    raise ValueError(f"convert goes between a torch file ({', '.join(ckpt.TORCH_SUFFIXES)}) and a MindSpore .ckpt;"
                     f" got {src.suffix or 'no suffix'} -> {dst.suffix or 'no suffix'}")


class UnmatchedKeys(ValueError):
    def __init__(self, missing: Tuple[str, ...], unexpected: Tuple[str, ...]) -> None:
        self.missing, self.unexpected = missing, unexpected
        lines = [f"missing from the source: {n}" for n in missing] + [f"not used by the mapping: {n}" for n in unexpected]
        super().__init__("unmatched keys (pass --allow-partial to convert the rest):\n  " + "\n  ".join(lines))


def _check(arrays: Dict[str, np.ndarray], needed: set, mapping: WeightMapping, allow_partial: bool) -> Tuple[tuple, tuple]:
    skipped = {s.torch_name for s in mapping.skipped}
    missing = tuple(sorted(needed - set(arrays)))
    unexpected = tuple(sorted(set(arrays) - needed - skipped))
    if (missing or unexpected) and not allow_partial:
        raise UnmatchedKeys(missing, unexpected)
    return missing, unexpected


def _only(mapping: WeightMapping, links: list) -> WeightMapping:
    import dataclasses

    return dataclasses.replace(mapping, links=tuple(links))
