"""The fixture engine's numbers: seeded inputs and weights drawn in numpy, never by a framework's RNG."""
from __future__ import annotations

import math
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.knowledge.lookup import is_normalization
from migcheck.runners.base import ParamInfo
from migcheck.util.seeding import rng_for
from migcheck.specs import InputSpec
from migcheck.util.tree import contiguous


def make_input(spec: InputSpec, *, seed_parts: Tuple[object, ...]) -> np.ndarray:
    """One input array drawn from its spec; the same seed parts always give the same array."""
    if spec.kind == "given":
        return np.array(spec.values, dtype=None if spec.dtype == "bfloat16" else spec.dtype, copy=True)
    rng = rng_for(*seed_parts)
    if spec.kind == "uniform":
        values = rng.uniform(spec.low, spec.high, spec.shape)
    elif spec.kind == "normal":
        values = rng.normal(0.0, spec.std, spec.shape)
    elif spec.kind == "integers":
        values = rng.integers(int(spec.low), int(spec.high), spec.shape)
    elif spec.kind == "mask":
        values = rng.random(spec.shape) < spec.p
    else:  # guarded by InputSpec.problems
        raise ValueError(f"unknown input kind {spec.kind!r}")
    # bfloat16 has no numpy dtype: draw float32; the runners cast on the framework side.
    dtype = "float32" if spec.dtype == "bfloat16" else spec.dtype
    return contiguous(values.astype(dtype))


def make_inputs(case_name: str, specs: Sequence[Tuple[str, InputSpec]]) -> Dict[str, np.ndarray]:
    return {name: make_input(spec, seed_parts=(case_name, "input", name)) for name, spec in specs}


_VARIANCE = ("running_var", "moving_variance")
_MEAN = ("running_mean", "moving_mean")


def make_weight(info: ParamInfo, *, case_name: str, fill: Union[str, float] = "seeded") -> np.ndarray:
    """A value for one parameter or buffer, chosen by its role so the layer stays well-conditioned."""
    dtype = "float32" if info.dtype == "bfloat16" else info.dtype
    if not np.issubdtype(np.dtype(dtype), np.floating):
        return np.zeros(info.shape, dtype=dtype)  # counters such as num_batches_tracked
    if not isinstance(fill, str):
        value = float(fill)
        if info.leaf in _VARIANCE:
            value = abs(value) or 1.0  # a variance must stay positive
        return np.full(info.shape, value, dtype=dtype)
    rng = rng_for(case_name, "weight", info.name)
    is_norm = is_normalization(info.owner_kind)
    if info.leaf in _VARIANCE:
        values = rng.uniform(0.5, 1.5, info.shape)
    elif info.leaf in _MEAN:
        values = rng.uniform(-0.5, 0.5, info.shape)
    elif is_norm and len(info.shape) <= 1 and info.leaf in ("weight", "gamma"):
        values = rng.uniform(0.5, 1.5, info.shape)
    elif len(info.shape) >= 2:
        fan_in = max(1, int(np.prod(info.shape[1:])))
        bound = 1.0 / math.sqrt(fan_in)
        values = rng.uniform(-bound, bound, info.shape)
    else:
        values = rng.uniform(-0.5, 0.5, info.shape)
    return contiguous(values.astype(dtype))


def make_weights(infos: Sequence[ParamInfo], *, case_name: str, fill: Union[str, float] = "seeded",
                 built: Optional[Mapping[str, np.ndarray]] = None) -> Dict[str, np.ndarray]:
    """Values for every parameter and buffer.

    Parameters and running statistics are drawn (so eval-mode normalisation is exercised). Other
    buffers are configuration, e.g. a loss's class weights or pos_weight: they keep the value the
    torch module was built with (``built``), which is deterministic and means what the author wrote.
    """
    out = {}
    for info in infos:
        keep = built is not None and info.is_buffer and info.leaf not in _VARIANCE + _MEAN and info.name in built
        out[info.name] = np.array(built[info.name], copy=True) if keep else make_weight(info, case_name=case_name, fill=fill)
    return out
