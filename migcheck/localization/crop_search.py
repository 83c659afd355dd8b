"""A layer whose padding arguments MindSpore applies otherwise (a transposed convolution's output_padding filled
with zeros where torch computes it): the port's layer rebuilt without padding (pad_mode='valid', every other
padding argument at its default) computes the full output, and a window of it, cropped as torch's padding and
output_padding crop theirs, may equal torch's output. The windows tried are every offset that fits; only a re-run
that agrees with torch confirms one, and the fix is that call followed by the slice.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.runners.probes import MindSporeProbe

MAX_WINDOWS = 16


def crop_candidate(cell: MindSporeProbe, ms_name: str, ms_c: Any, held: dict, inputs: Sequence[np.ndarray],
                   torch_out: Any, matches: Callable[[Any], bool], tried: List[str]) -> Optional[Tuple[str, str]]:
    """(cause, fix) when the unpadded layer's output, cropped, agrees with torch; else None."""
    padding = [a for a in ms_c.arguments if "pad" in a.name.lower() and a.found and a.name in held]
    modes = [a for a in padding if isinstance(a.value, str)]
    if not padding or not isinstance(torch_out, np.ndarray) or not modes:
        return None
    kwargs = dict(held)
    for a in padding:
        if a.has_default:
            kwargs[a.name] = a.default
    mode = modes[0].name
    kwargs[mode] = "valid" if modes[0].value.islower() else "VALID"
    tried.append(f"{mode}={kwargs[mode]!r}, other padding at its defaults, output cropped")
    try:
        full = cell.rerun_arguments(ms_name, kwargs, inputs)
    except Exception:  # the unpadded layer cannot be built or run
        return None
    if not isinstance(full, np.ndarray) or full.ndim != torch_out.ndim or full.shape[:2] != torch_out.shape[:2]:
        return None
    extra = [f - t for f, t in zip(full.shape[2:], torch_out.shape[2:])]
    if any(e < 0 for e in extra) or not any(extra):
        return None
    for offsets in itertools.islice(itertools.product(*[range(e + 1) for e in extra]), MAX_WINDOWS):
        window = tuple(slice(o, o + t) for o, t in zip(offsets, torch_out.shape[2:]))
        if matches(full[(slice(None), slice(None)) + window]):
            crop = ", ".join(f"{o}:{o + t}" for o, t in zip(offsets, torch_out.shape[2:]))
            old = ", ".join(f"{a.name}={a.value!r}" for a in padding)
            new = ", ".join(f"{k}={kwargs[k]!r}" for k in [a.name for a in padding])
            cause = (f"the port's {ms_c.kind}({old}) does not pad as torch's layer does: rebuilt with {new} (its full"
                     f" output, {tuple(full.shape[2:])}) and cropped [..., {crop}], re-run on torch's recorded input,"
                     f" it agrees with torch ({len(tried)} candidates tried)")
            return cause, f"nn.{ms_c.kind}(..., {new}) and then y = y[..., {crop}] in place of nn.{ms_c.kind}(..., {old})"
    return None
