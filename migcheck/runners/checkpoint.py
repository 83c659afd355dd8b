"""Checkpoint conversion through the mapping engine: torch state_dict <-> MindSpore .ckpt.

Loading never unpickles arbitrary objects: torch files load with weights_only=True, and a file that needs
more is refused in one line. A training checkpoint ({"model": state_dict, "epoch": 3}) is read through
key= (`--key model`). Every tensor's shape is checked against the case's modules before anything is
written; the output is written atomically (a temporary file, then os.replace). Bookkeeping buffers
MindSpore has no parameter for (BatchNorm's num_batches_tracked) travel in the .ckpt under their torch
names, so a round trip keeps them exactly.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import mindspore as ms
import numpy as np
import torch

from migcheck.mapping.transfer import BOOKKEEPING, WeightMapping, to_mindspore, to_torch
from migcheck.util.tree import contiguous

TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors")


@dataclass(frozen=True)
class Conversion:
    written: str
    converted: int
    missing: Tuple[str, ...]  # names the mapping needs that the source lacks
    unexpected: Tuple[str, ...]  # names in the source that the mapping does not use


def read_torch(path: Path, key: Optional[str] = None) -> Dict[str, np.ndarray]:
    if path.suffix == ".safetensors":
        try:
            from safetensors.numpy import load_file
        except ImportError:
            raise RuntimeError("reading .safetensors needs the safetensors package: pip install 'migcheck[convert]'") from None
        return dict(load_file(str(path)))
    try:
        state: Any = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as exc:  # UnpicklingError and friends: anything weights_only=True refuses
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"{path}: refused: not a plain tensor checkpoint (torch.load with weights_only=True, which never"
                         f" runs code from the file, says: {first[:200]})") from None
    for part in key.split(".") if key else ():
        if not isinstance(state, dict) or part not in state:
            found = ", ".join(map(str, state)) if isinstance(state, dict) else type(state).__name__
            raise ValueError(f"{path}: --key {key}: no entry {part!r} (found: {found})")
        state = state[part]
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected a state_dict (name -> tensor), found {type(state).__name__}")
    other = {k: "dict" if isinstance(v, dict) else type(v).__name__ for k, v in state.items()
             if not isinstance(v, torch.Tensor)}
    if other:
        nested = [k for k, v in state.items() if isinstance(v, dict)]
        raise ValueError(f"{path}: not a state_dict: " + ", ".join(f"{k} ({t})" for k, t in list(other.items())[:5])
                         + " are not tensors" + (f"; a training checkpoint? pass --key {nested[0]}" if nested else ""))
    return {k: v.detach().float().numpy() if v.dtype == torch.bfloat16 else v.detach().numpy() for k, v in state.items()}


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


def write_torch(path: Path, arrays: Dict[str, np.ndarray]) -> None:
    if path.suffix == ".safetensors":
        from safetensors.numpy import save_file

        save_file({k: contiguous(v) for k, v in arrays.items()}, str(path))
        return
    torch.save({k: torch.from_numpy(contiguous(v)) for k, v in arrays.items()}, str(path))


def convert(src: Path, dst: Path, mapping: WeightMapping, *, allow_partial: bool = False,
            key: Optional[str] = None) -> Conversion:
    """Convert src to dst in the direction their suffixes say; refuse unmatched names unless allowed, and
    wrong shapes always (ValueError, before anything is written)."""
    bookkeeping = {s.torch_name for s in mapping.skipped if s.torch_name.rpartition(".")[2] in BOOKKEEPING}
    if src.suffix in TORCH_SUFFIXES and dst.suffix == ".ckpt":
        arrays = read_torch(src, key)
        needed = {t.name for link in mapping.links for t in link.torch}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        usable = [link for link in mapping.links if all(t.name in arrays for t in link.torch)]
        _shape_problems(src, arrays, [t for link in usable for t in link.torch])
        ms_arrays = to_mindspore(arrays, _only(mapping, usable))
        # Kept under the torch name (load_param_into_net leaves names it does not know alone): the way back restores it.
        ms_arrays.update({n: arrays[n] for n in sorted(bookkeeping) if n in arrays})
        _atomic(dst, lambda tmp: ms.save_checkpoint([{"name": n, "data": ms.Tensor(a)} for n, a in ms_arrays.items()],
                                                    str(tmp)))
        return Conversion(str(dst), len(ms_arrays), missing, unexpected)
    if src.suffix == ".ckpt" and dst.suffix in TORCH_SUFFIXES:
        if key:
            raise ValueError("--key reads a nested torch checkpoint; a .ckpt has no nesting")
        try:
            arrays = {name: p.asnumpy() for name, p in ms.load_checkpoint(str(src)).items()}
        except (ValueError, RuntimeError, OSError) as exc:
            raise ValueError(f"{src}: not a readable MindSpore checkpoint"
                             f" ({(str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]})") from None
        kept = {n: arrays.pop(n) for n in list(arrays) if n in bookkeeping}
        needed = {m.name for link in mapping.links for m in link.ms}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        _shape_problems(src, arrays, [m for link in mapping.links for m in link.ms])
        torch_arrays = to_torch(arrays, mapping)
        # MindSpore keeps no BatchNorm step counter; torch's strict load wants one: the value the .ckpt carried
        # (written by this converter), else 0.
        torch_arrays.update({n: kept.get(n, np.array(0, np.int64)) for n in bookkeeping})
        _atomic(dst, lambda tmp: write_torch(tmp, torch_arrays))
        return Conversion(str(dst), len(torch_arrays), missing, unexpected)
    raise ValueError(f"convert goes between a torch file ({', '.join(TORCH_SUFFIXES)}) and a MindSpore .ckpt;"
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
