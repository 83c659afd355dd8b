"""Checkpoint files as numpy: torch state_dicts (.pt, .pth, .bin, .safetensors) and MindSpore .ckpt, read and
written (the conversion between them is migcheck/mapping/convert.py).

Loading never unpickles arbitrary objects: torch files load with weights_only=True, and a file that needs
more is refused in one line. A training checkpoint ({"model": state_dict, "epoch": 3}) is read through
key= (`--key model`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional

import mindspore as ms
import numpy as np
import torch

from migcheck.util.tree import contiguous

TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".safetensors")


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


def write_torch(path: Path, arrays: Dict[str, np.ndarray]) -> None:
    if path.suffix == ".safetensors":
        from safetensors.numpy import save_file

        save_file({k: contiguous(v) for k, v in arrays.items()}, str(path))
        return
    torch.save({k: torch.from_numpy(contiguous(v)) for k, v in arrays.items()}, str(path))


def read_ckpt(path: Path) -> Dict[str, np.ndarray]:
    try:
        return {name: p.asnumpy() for name, p in ms.load_checkpoint(str(path)).items()}
    except (ValueError, RuntimeError, OSError) as exc:
        raise ValueError(f"{path}: not a readable MindSpore checkpoint"
                         f" ({(str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]})") from None


def write_ckpt(path: Path, arrays: Dict[str, np.ndarray]) -> None:
    ms.save_checkpoint([{"name": n, "data": ms.Tensor(a)} for n, a in arrays.items()], str(path))
