"""Which functional op, with which setting, each side computed between two sub-cells. Numpy only.

When the first divergence is a functional op in forward/construct (no sub-cell to rebuild), recompute
a catalogue of common ops from the value both sides agree on (the last agreeing sub-cell's output)
with every setting the two frameworks' defaults and signatures allow (axis, ddof, approximation,
align_corners, slope, start_dim, tile vs repeat, dropout in eval). A cause is named only when one
setting reproduces torch's value, a different setting of the same op reproduces MindSpore's, and no
setting reproduces both: the recomputation is the counterfactual that confirms it.
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional, Tuple

import numpy as np

Candidate = Tuple[str, Callable[[np.ndarray, Tuple[int, ...]], Optional[np.ndarray]]]
MAX_ELEMENTS = 1 << 20  # larger regions are not recomputed (cost)


@dataclass(frozen=True)
class OpMatch:
    op: str
    torch_setting: str
    ms_setting: str

    @property
    def rule(self) -> str:
        return f"op-{self.op}"

    def cause(self, where: str) -> str:
        return (f"{self.op} computed with {self.torch_setting} in torch but {self.ms_setting} in MindSpore:"
                f" recomputing {self.op} from {where} with each setting reproduces each side's value")

    @property
    def fix(self) -> str:
        return f"call {self.op} with {self.torch_setting} in construct"


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _bilinear(x: np.ndarray, size: Tuple[int, int], align: bool) -> np.ndarray:
    """torch/MindSpore bilinear resize of (N, C, H, W); align_corners or half-pixel centres (clamped at 0)."""
    out = x
    for axis, n_out in ((2, size[0]), (3, size[1])):
        n_in = out.shape[axis]
        i = np.arange(n_out, dtype=np.float64)
        if align:
            src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros_like(i)
        else:
            src = np.maximum((i + 0.5) * n_in / n_out - 0.5, 0.0)
        lo = np.minimum(np.floor(src).astype(int), n_in - 1)
        hi = np.minimum(lo + 1, n_in - 1)
        w = (src - lo).reshape([-1 if a == axis else 1 for a in range(out.ndim)])
        out = np.take(out, lo, axis=axis) * (1 - w) + np.take(out, hi, axis=axis) * w
    return out


def _axes(nd: int) -> Iterator[int]:
    return iter(range(nd))


def _families(x: np.ndarray, shape: Tuple[int, ...]) -> Iterator[Tuple[str, List[Candidate]]]:
    nd = x.ndim
    yield "softmax", [(f"axis={a - nd}", lambda v, s, a=a: _softmax(v, a)) for a in _axes(nd)]
    yield "log_softmax", [(f"axis={a - nd}", lambda v, s, a=a: np.log(_softmax(v, a))) for a in _axes(nd)]
    yield "softmin", [(f"axis={a - nd}", lambda v, s, a=a: _softmax(-v, a)) for a in _axes(nd)]
    for name, fn in (("std", np.std), ("var", np.var)):
        yield name, [(f"axis={a - nd}, ddof={d} ({'unbiased' if d else 'biased'})",
                      lambda v, s, a=a, d=d, fn=fn: fn(v, axis=a, ddof=d)) for a in _axes(nd) for d in (0, 1)]
    for name, fn in (("argmax", np.argmax), ("argmin", np.argmin), ("amax", np.max), ("amin", np.min),
                     ("prod", np.prod), ("sum", np.sum), ("mean", np.mean)):
        yield name, [("axis=None (all elements)", lambda v, s, fn=fn: np.asarray(fn(v)))] + [
            (f"axis={a - nd}", lambda v, s, a=a, fn=fn: fn(v, axis=a)) for a in _axes(nd)]
    yield "flatten", [(f"start_dim={a}", lambda v, s, a=a: v.reshape(v.shape[:a] + (-1,))) for a in _axes(nd)]
    yield "l2-normalize", [(f"axis={a - nd}, epsilon={e:g}", lambda v, s, a=a, e=e: v / np.maximum(
        np.sqrt((v * v).sum(axis=a, keepdims=True)), e)) for a in _axes(nd) for e in (1e-12, 1e-4)]
    yield "gelu", [("the exact erf form (approximate='none')", lambda v, s: 0.5 * v * (1 + _erf(v / math.sqrt(2)))),
                   ("the tanh approximation", lambda v, s: 0.5 * v * (1 + np.tanh(
                       math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))))]
    yield "leaky_relu", [(f"negative_slope={k:g} (alpha={k:g} in mindspore.ops.leaky_relu)",
                          lambda v, s, k=k: np.where(v > 0, v, k * v))
                         for k in (0.01, 0.2)]
    tiles = []
    for a in _axes(nd):
        if len(shape) == nd and shape[a] % max(x.shape[a], 1) == 0 and shape[a] > x.shape[a]:
            r = shape[a] // x.shape[a]
            tiles += [(f"whole-tensor tiling {r}x on axis {a - nd} (torch Tensor.repeat / ops.tile)",
                       lambda v, s, a=a, r=r: np.concatenate([v] * r, axis=a)),
                      (f"element-wise repetition {r}x on axis {a - nd} (repeat_elements / repeat_interleave)",
                       lambda v, s, a=a, r=r: np.repeat(v, r, axis=a))]
    yield "repeat", tiles
    if nd == 4 and len(shape) == 4:
        yield "bilinear interpolate", [(f"align_corners={al}", lambda v, s, al=al: _bilinear(v, s[2:], al))
                                       for al in (True, False)]


def _dropout(x: np.ndarray, target: np.ndarray, close: Callable[[np.ndarray, np.ndarray], bool]) -> Optional[str]:
    """'identity' or 'dropout p=..': zeros where x is not, the rest x times one scale 1/(1-p)."""
    if target.shape != x.shape:
        return None
    if close(x, target):
        return "identity (as in eval mode)"
    zero = (target == 0) & (x != 0)
    keep = ~zero & (x != 0)
    if not zero.any() or not keep.any():
        return None
    scale = float(np.median(target[keep] / x[keep]))
    if scale <= 1 or not close(np.where(zero, 0.0, x * scale), target):
        return None
    return f"random zeroing with the survivors scaled by {scale:.3g} (dropout p={1 - 1 / scale:.2g}, i.e. training mode)"


def identify(x: np.ndarray, torch_value: np.ndarray, ms_value: np.ndarray, rtol: float, atol: float) -> Optional[OpMatch]:
    """The op and the two settings that reproduce torch's and MindSpore's values from x, or None."""
    try:
        x, t, m = (np.asarray(v, np.float64) for v in (x, torch_value, ms_value))
    except (TypeError, ValueError):
        return None
    if x.size == 0 or x.size > MAX_ELEMENTS or not np.isfinite(x).all():
        return None
    scale = max(float(np.max(np.abs(t), initial=0.0)), 1.0)

    def close(a: Optional[np.ndarray], b: np.ndarray) -> bool:
        return a is not None and np.shape(a) == b.shape and bool(
            np.allclose(a, b, rtol=max(rtol, 1e-5), atol=max(atol, 1e-6 * scale), equal_nan=True))

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ddof=1 over a length-1 axis is a candidate, not an error
        td, md = _dropout(x, t, close), _dropout(x, m, close)
        if td and md and td != md:
            return OpMatch("dropout", td, md)
        for op, candidates in _families(x, tuple(m.shape)):
            t_hits, m_hits = [], []
            for label, fn in candidates:
                try:
                    value = fn(x, tuple(m.shape) if op in ("bilinear interpolate", "repeat") else ())
                except (ValueError, IndexError):
                    continue
                if close(value, t):
                    t_hits.append(label)
                if close(value, m):
                    m_hits.append(label)
            if t_hits and m_hits and not set(t_hits) & set(m_hits):
                return OpMatch(op, " or ".join(t_hits), " or ".join(m_hits))
    return None


_SHAPE_ONLY = ("flatten", "repeat")  # families that move values without computing: a coincidence is cheap
_CALLED_AS = {"l2-normalize": ("normalize",), "bilinear interpolate": ("interpolate", "upsample"),
              "repeat": ("repeat", "tile", "expand"), "flatten": ("flatten", "view", "reshape")}


def torch_called(op: str, between: str) -> bool:
    """For an op that only moves values (flatten, repeat): whether torch's calls in the region (the "torch calls
    there: ..." list) include it, or none were recorded: a value reproduced by an op neither side called (flatten
    for a squeeze of a unit axis) is no evidence of the cause. Other families always count."""
    if op not in _SHAPE_ONLY or "torch calls there: " not in between:
        return True  # a value-changing recomputation (gelu's tanh form) matching both sides is evidence itself
    calls = between.split("torch calls there: ", 1)[1].lower()
    return any(re.search(rf"(?<![a-z]){re.escape(word)}", calls) for word in _CALLED_AS.get(op, (op,)))
