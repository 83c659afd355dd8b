"""Checkpoint conversion through the mapping engine: torch state_dict <-> MindSpore .ckpt.

Loading never unpickles arbitrary objects: torch files load with weights_only=True.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Tuple

import mindspore as ms
import numpy as np
import torch

from migcheck.running.mapping import BOOKKEEPING, WeightMapping, to_mindspore, to_torch
from migcheck.util.tree import contiguous

TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors")


@dataclass(frozen=True)
class Conversion:
    written: str
    converted: int
    missing: Tuple[str, ...]  # names the mapping needs that the source lacks
    unexpected: Tuple[str, ...]  # names in the source that the mapping does not use


def read_torch(path: Path) -> Dict[str, np.ndarray]:
    if path.suffix == ".safetensors":
        try:
            from safetensors.numpy import load_file
        except ImportError:
            raise RuntimeError("reading .safetensors needs the safetensors package: pip install 'migcheck[convert]'") from None
        return dict(load_file(str(path)))
    state = torch.load(str(path), map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected a state_dict (name -> tensor), found {type(state).__name__}")
    return {k: v.detach().float().numpy() if v.dtype == torch.bfloat16 else v.detach().numpy() for k, v in state.items()}


def write_torch(path: Path, arrays: Dict[str, np.ndarray]) -> None:
    if path.suffix == ".safetensors":
        from safetensors.numpy import save_file

        save_file({k: contiguous(v) for k, v in arrays.items()}, str(path))
        return
    torch.save({k: torch.from_numpy(contiguous(v)) for k, v in arrays.items()}, str(path))


def convert(src: Path, dst: Path, mapping: WeightMapping, *, allow_partial: bool = False) -> Conversion:
    """Convert src to dst in the direction their suffixes say; refuse unmatched names unless allowed."""
    if src.suffix in TORCH_SUFFIXES and dst.suffix == ".ckpt":
        arrays = read_torch(src)
        needed = {t.name for link in mapping.links for t in link.torch}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        usable = [link for link in mapping.links if all(t.name in arrays for t in link.torch)]
        ms_arrays = to_mindspore(arrays, _only(mapping, usable))
        ms.save_checkpoint([{"name": n, "data": ms.Tensor(a)} for n, a in ms_arrays.items()], str(dst))
        return Conversion(str(dst), len(ms_arrays), missing, unexpected)
    if src.suffix == ".ckpt" and dst.suffix in TORCH_SUFFIXES:
        arrays = {name: p.asnumpy() for name, p in ms.load_checkpoint(str(src)).items()}
        needed = {m.name for link in mapping.links for m in link.ms}
        missing, unexpected = _check(arrays, needed, mapping, allow_partial)
        torch_arrays = to_torch(arrays, mapping)
        # MindSpore keeps no BatchNorm step counter; torch's strict load wants one: start it at 0.
        torch_arrays.update({s.torch_name: np.array(0, np.int64) for s in mapping.skipped
                             if s.torch_name.rpartition(".")[2] in BOOKKEEPING})
        write_torch(dst, torch_arrays)
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
