"""The comparator: numpy only. Every mismatch (shape, dtype, NaN, value) becomes data, never a crash."""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Tuple

import numpy as np

from migcheck.tolerance import Tolerance, dtype_kind
from migcheck.tree import as_array, leaves

MAX_SAMPLES = 5  # mismatching positions kept per tensor: reports stay small for huge outputs
# The error sample of a failing tensor (for the report's plots) is bounded whatever the tensor's size:
MAP_CELLS = 64  # error-map cells per axis (so at most 64 x 64 numbers), and at most 64 channel bars
HIST_BINS = 32  # histogram bins of |ms - pt|
MAX_NONFINITE_CELLS = 64  # map cells listed as holding a NaN/Inf mismatch


@dataclass(frozen=True)
class Sample:
    index: Tuple[int, ...]
    torch: float
    mindspore: float


@dataclass(frozen=True)
class ErrorSample:
    """A bounded picture of where a failing tensor's error sits: enough to plot it, small enough for JSON.

    Errors are |ms - pt| at positions where both sides are finite (non-finite positions count 0
    there and are counted in `nonfinite` instead). Map and channel values are block maxima,
    rounded to 4 significant digits.
    """

    hist_edges: Tuple[float, ...] = ()  # HIST_BINS+1 log-spaced edges from the least to the largest non-zero error (2 if all equal)
    hist_counts: Tuple[int, ...] = ()  # elements per bin
    zero: int = 0  # positions with no error at all, matching NaN/Inf included (not in the histogram: log scale)
    nonfinite: int = 0  # positions where NaN/Inf differ
    map: Tuple[Tuple[float, ...], ...] = ()  # max error per cell; rows x cols, at most MAP_CELLS each; () for a scalar
    map_axes: Tuple[int, ...] = ()  # tensor axes behind rows and columns: (ndim-2, ndim-1), or (0,) for 1-D (one row)
    map_block: Tuple[int, ...] = ()  # tensor elements per map cell along each of map_axes
    map_nonfinite: Tuple[Tuple[int, int], ...] = ()  # (row, col) map cells holding a NaN/Inf mismatch
    channel_axis: Optional[int] = None  # 1 for tensors of 3 or more dimensions, else None
    channel_max: Tuple[float, ...] = ()  # max error per block of channel_block channels along channel_axis
    channel_block: int = 1


@dataclass(frozen=True)
class TensorComparison:
    """The verdict on one named tensor, with every metric a reader needs to act on it."""

    name: str
    ok: bool
    kind: Optional[str]  # None when ok; else shape, dtype, nonfinite, value or tree
    message: str
    torch_shape: Optional[Tuple[int, ...]] = None
    ms_shape: Optional[Tuple[int, ...]] = None
    torch_dtype: str = ""
    ms_dtype: str = ""
    rtol: float = 0.0
    atol: float = 0.0
    tolerance_source: str = ""
    total: int = 0
    mismatched: int = 0
    mismatched_fraction: float = 0.0
    max_abs_err: float = 0.0
    max_abs_at: Optional[Sample] = None
    max_rel_err: float = 0.0
    max_rel_at: Optional[Sample] = None
    mean_abs_err: float = 0.0
    cosine: Optional[float] = None
    min_atol: float = 0.0  # smallest atol that passes with this rtol
    min_rtol: float = 0.0  # smallest rtol that passes with this atol
    first_mismatches: Tuple[Sample, ...] = ()
    notes: Tuple[str, ...] = field(default_factory=tuple)
    error_sample: Optional[ErrorSample] = None  # failing value/nonfinite tensors only (schema 2)
    # Which tolerance profile judged it (migcheck.tolerance.PROFILES), and in error-budget mode the
    # two errors against the float64 oracle, side by side, with the limit MindSpore's had to meet.
    profile: str = ""
    oracle_err_ms: Optional[float] = None  # max |mindspore - oracle|
    oracle_err_pt: Optional[float] = None  # max |torch - oracle|
    budget_limit: Optional[float] = None  # factor * oracle_err_pt + floor


def fmt_shape(shape: Optional[Tuple[int, ...]]) -> str:
    if shape is None:
        return "?"
    return "(" + ",".join(str(d) for d in shape) + ")" if len(shape) != 1 else f"({shape[0]},)"


def dtype_name(arr: np.ndarray) -> str:
    return str(arr.dtype)


def compare_arrays(name: str, torch_value: Any, ms_value: Any, tolerance: Tolerance,
                   tolerance_source: str = "") -> TensorComparison:
    pt = np.asarray(torch_value)
    ms = np.asarray(ms_value)
    base = dict(name=name, torch_shape=tuple(pt.shape), ms_shape=tuple(ms.shape),
                torch_dtype=dtype_name(pt), ms_dtype=dtype_name(ms), rtol=tolerance.rtol,
                atol=tolerance.atol, tolerance_source=tolerance_source, total=int(pt.size))
    if pt.shape != ms.shape:
        return TensorComparison(ok=False, kind="shape", message=(
            f"shape mismatch in {name}: torch {fmt_shape(pt.shape)} vs mindspore {fmt_shape(ms.shape)}"), **base)
    notes = []
    dtype_problem = _dtype_problem(base["torch_dtype"], base["ms_dtype"])
    if dtype_problem == "fatal":
        return TensorComparison(ok=False, kind="dtype", message=(
            f"dtype mismatch in {name}: torch {base['torch_dtype']} vs mindspore {base['ms_dtype']}"), **base)
    if dtype_problem == "note":
        notes.append(f"integer widths differ (torch {base['torch_dtype']}, mindspore {base['ms_dtype']}); values compared exactly")
    if pt.size == 0:
        return TensorComparison(ok=True, kind=None, message=f"{name}: empty on both sides", notes=tuple(notes), **base)
    if np.iscomplexobj(pt) or np.iscomplexobj(ms):
        # Casting complex to float would drop the imaginary part, so a wrong one would pass:
        # compare (real, imag) pairs along an extra trailing axis instead.
        pt, ms = _real_pairs(pt), _real_pairs(ms)
        base["total"] = int(pt.size)
        notes.append("complex values compared as (real, imag) pairs: indices carry a trailing 0 (real) or 1 (imag)")
    return _compare_values(pt, ms, tolerance, base, tuple(notes))


def _real_pairs(x: np.ndarray) -> np.ndarray:
    return np.stack([x.real, x.imag], axis=-1)


def _dtype_problem(torch_dtype: str, ms_dtype: str) -> str:
    if torch_dtype == ms_dtype:
        return ""
    tk, mk = dtype_kind(torch_dtype), dtype_kind(ms_dtype)
    if tk != mk:
        return "fatal"
    # MindSpore returns int32 indices where torch returns int64 (argmax, topk): same values, so
    # only a note. A float width difference changes precision, so it is a failure.
    return "note" if tk == "int" else "fatal"


def _compare_values(pt: np.ndarray, ms: np.ndarray, tol: Tolerance, base: dict, notes: Tuple[str, ...]) -> TensorComparison:
    name = base["name"]
    a = pt.astype(np.float64)
    b = ms.astype(np.float64)
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    both_finite = finite_a & finite_b
    # Non-finite positions agree when both are the same infinity, or both NaN and NaN is allowed.
    same_inf = np.isinf(a) & np.isinf(b) & (a == b)
    both_nan = np.isnan(a) & np.isnan(b)
    nonfinite_ok = same_inf | (both_nan if tol.equal_nan else np.zeros_like(both_nan))
    nonfinite_bad = ~both_finite & ~nonfinite_ok

    with np.errstate(invalid="ignore"):  # inf - inf at non-finite positions, masked out right here
        diff = np.where(both_finite, np.abs(a - b), 0.0)
    mag = np.abs(np.where(both_finite, a, 0.0))
    allowed = tol.atol + tol.rtol * mag
    value_bad = both_finite & (diff > allowed)
    bad = value_bad | nonfinite_bad
    mismatched = int(bad.sum())

    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(mag > 0, diff / mag, np.where(diff > 0, np.inf, 0.0))
        need_rtol = np.where(diff > tol.atol, np.where(mag > 0, (diff - tol.atol) / mag, np.inf), 0.0)
    max_abs_flat = int(np.argmax(diff))
    max_rel_flat = int(np.argmax(rel))
    n_finite = int(both_finite.sum())
    metrics = dict(
        mismatched=mismatched,
        mismatched_fraction=mismatched / pt.size,
        max_abs_err=float(diff.flat[max_abs_flat]),
        max_abs_at=_sample(a, b, max_abs_flat),
        max_rel_err=float(rel.flat[max_rel_flat]),
        max_rel_at=_sample(a, b, max_rel_flat),
        mean_abs_err=float(diff.sum() / n_finite) if n_finite else 0.0,
        cosine=_cosine(a[both_finite], b[both_finite]),
        min_atol=_lift(float(np.max(np.maximum(diff - tol.rtol * mag, 0.0))),
                       lambda v: not np.any(both_finite & (diff > v + tol.rtol * mag))),
        min_rtol=_lift(float(np.max(need_rtol)),
                       lambda v: not np.any(both_finite & (diff > tol.atol + v * mag))),
        first_mismatches=tuple(_sample(a, b, int(i)) for i in np.flatnonzero(bad)[:MAX_SAMPLES]),
    )
    if nonfinite_bad.any():
        # The first non-finite position, not the first mismatch of any kind (that may be a finite one).
        first = _sample(a, b, int(np.flatnonzero(nonfinite_bad)[0]))
        count = int(nonfinite_bad.sum())
        message = (f"non-finite mismatch in {name}: {count} position(s) where NaN/Inf differ,"
                   f" first at {first.index} (torch {first.torch}, mindspore {first.mindspore})")
        return TensorComparison(ok=False, kind="nonfinite", message=message, notes=notes,
                                error_sample=error_sample(diff, nonfinite_bad), **base, **metrics)
    if mismatched:
        return TensorComparison(ok=False, kind="value", message=value_message(name, metrics, tol, pt.size),
                                notes=notes, error_sample=error_sample(diff, nonfinite_bad), **base, **metrics)
    return TensorComparison(ok=True, kind=None, message=f"{name}: max abs err {metrics['max_abs_err']:.3g}",
                            notes=notes, **base, **metrics)


def error_sample(diff: np.ndarray, nonfinite_bad: np.ndarray) -> ErrorSample:
    """The bounded ErrorSample of an error array (|ms - pt|, 0 where not both finite)."""
    big = np.finfo(np.float64).max
    err = np.minimum(diff, big) if diff.size and diff.max() == np.inf else diff  # finite - finite can overflow
    positive = err[err > 0]
    edges: Tuple[float, ...] = ()
    counts: Tuple[int, ...] = ()
    if positive.size:
        lo, hi = float(positive.min()), float(positive.max())
        if hi <= lo * (1 + 1e-9):  # one value: one bin
            edges, counts = (lo, hi), (int(positive.size),)
        else:  # uniform bins in log10 space: numpy's fast path, and errors span decades
            logs = np.log10(positive)
            loglo, loghi = float(logs.min()), float(logs.max())  # from the same values, so none falls outside
            # Bin index by arithmetic and bincount: several times faster than np.histogram on big tensors.
            logs -= loglo
            logs *= HIST_BINS / (loghi - loglo)
            bins = logs.astype(np.intp)
            np.minimum(bins, HIST_BINS - 1, out=bins)
            hist = np.bincount(bins, minlength=HIST_BINS)
            grid = [float(v) for v in 10.0 ** np.linspace(loglo, loghi, HIST_BINS + 1)]
            grid[0], grid[-1] = lo, hi
            edges, counts = tuple(grid), tuple(int(c) for c in hist)
    sample = dict(hist_edges=edges, hist_counts=counts, zero=int(err.size - positive.size - int(nonfinite_bad.sum())),
                  nonfinite=int(nonfinite_bad.sum()))
    if err.ndim >= 1:
        plane = err if err.ndim <= 2 else err.max(axis=tuple(range(err.ndim - 2)))
        bad_plane = nonfinite_bad if nonfinite_bad.ndim <= 2 else nonfinite_bad.any(axis=tuple(range(err.ndim - 2)))
        if err.ndim == 1:
            plane, bad_plane = plane[None, :], bad_plane[None, :]
        cells, blocks = _block_max(plane)
        bad_cells, _ = _block_max(bad_plane.astype(np.int8))
        sample.update(map=tuple(tuple(_sig(float(v)) for v in row) for row in cells),
                      map_axes=(0,) if err.ndim == 1 else (err.ndim - 2, err.ndim - 1),
                      map_block=blocks[1:] if err.ndim == 1 else blocks,
                      map_nonfinite=tuple((int(r), int(c)) for r, c in np.argwhere(bad_cells > 0)[:MAX_NONFINITE_CELLS]))
    if err.ndim >= 3:
        per_channel = err.max(axis=tuple(a for a in range(err.ndim) if a != 1))
        cells, blocks = _block_max(per_channel[None, :])
        sample.update(channel_axis=1, channel_max=tuple(_sig(float(v)) for v in cells[0]), channel_block=blocks[1])
    return ErrorSample(**sample)


def _block_max(plane: np.ndarray) -> Tuple[np.ndarray, Tuple[int, int]]:
    """A 2-D array reduced by block maxima to at most MAP_CELLS x MAP_CELLS cells, and the block size."""
    rows, cols = plane.shape
    br, bc = max(1, -(-rows // MAP_CELLS)), max(1, -(-cols // MAP_CELLS))
    if (br, bc) == (1, 1):
        return plane, (1, 1)
    padded = np.zeros((-(-rows // br) * br, -(-cols // bc) * bc), dtype=plane.dtype)
    padded[:rows, :cols] = plane
    return padded.reshape(padded.shape[0] // br, br, padded.shape[1] // bc, bc).max(axis=(1, 3)), (br, bc)


def _sig(value: float, digits: int = 4) -> float:
    """value rounded to `digits` significant figures: short in JSON, exact through a JSON round trip."""
    return float(f"{value:.{digits}g}")


def value_message(name: str, m: dict, tol: Tolerance, total: int) -> str:
    at: Sample = m["max_abs_at"]
    return (f"value mismatch in {name}: {m['mismatched']} of {total}"
            f" elements ({100 * m['mismatched_fraction']:.3g}%) exceed atol={tol.atol:g} rtol={tol.rtol:g};"
            f" max abs err {m['max_abs_err']:.4g} at {at.index} (torch {at.torch:.6g}, mindspore {at.mindspore:.6g});"
            f" would pass with atol>={ceil_sig(m['min_atol'])} or rtol>={ceil_sig(m['min_rtol'])}")


def ceil_sig(value: float, digits: int = 3) -> str:
    """value to `digits` significant figures, rounded up, so a tolerance hint never undershoots."""
    if not math.isfinite(value) or value <= 0:
        return f"{value:g}"
    scale = 10.0 ** (math.floor(math.log10(value)) - digits + 1)
    up = math.ceil(value / scale - 1e-9) * scale
    text = f"{up:.{digits}g}"
    return text if float(text) >= value else f"{float(text) + scale:.{digits}g}"


def _sample(a: np.ndarray, b: np.ndarray, flat: int) -> Sample:
    index = tuple(int(i) for i in np.unravel_index(flat, a.shape)) if a.ndim else ()
    return Sample(index, float(a.flat[flat]), float(b.flat[flat]))


def _lift(value: float, passes: Callable[[float], bool]) -> float:
    """A reported minimum tolerance, nudged up past float rounding so that re-comparing with it passes."""
    if not np.isfinite(value):
        return value
    for _ in range(16):
        if passes(value):
            return value
        value = float(np.nextafter(value, np.inf))
    return value


def _cosine(a: np.ndarray, b: np.ndarray) -> Optional[float]:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return None
    return float(np.dot(a.ravel(), b.ravel()) / (na * nb))


def missing_tensor(name: str, side: str) -> TensorComparison:
    other = "mindspore" if side == "torch" else "torch"
    return TensorComparison(name=name, ok=False, kind="tree",
                            message=f"output structure differs: {name} exists in {other} output but not in {side} output")


ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]  # (tensor name, torch dtype) -> tolerance, source


def compare_trees(torch_tree: Any, ms_tree: Any, tolerance_for: ToleranceFor,
                  prefix: str = "out") -> Tuple[TensorComparison, ...]:
    """Compare two numpy trees leaf by leaf; a leaf present on one side only is a 'tree' failure."""
    pt = leaves(torch_tree, prefix)
    ms = leaves(ms_tree, prefix)
    out = []
    for name, value in pt.items():
        if name not in ms:
            out.append(missing_tensor(name, "mindspore"))
            continue
        value = as_array(value)
        tol, source = tolerance_for(name, dtype_name(value))
        out.append(compare_arrays(name, value, as_array(ms[name]), tol, source))
    out.extend(missing_tensor(name, "torch") for name in ms if name not in pt)
    return tuple(out)
