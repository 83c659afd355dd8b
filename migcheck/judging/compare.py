"""The comparator: numpy only. Every mismatch (shape, dtype, NaN, value) becomes data, never a crash."""
from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Sequence, Tuple

import numpy as np

from migcheck.tolerance import Tolerance, dtype_kind
from migcheck.util.tree import as_array, leaves
from migcheck.judging.error_sample import ErrorSample, chunked_error_sample
from migcheck.vocab import Kind, word

MAX_SAMPLES = 5  # mismatching positions kept per tensor: reports stay small for huge outputs


@dataclass(frozen=True)
class Sample:
    index: Tuple[int, ...]
    torch: float
    mindspore: float


@dataclass(frozen=True)
class TensorComparison:
    """The verdict on one named tensor, with every metric a reader needs to act on it."""

    name: str
    ok: bool
    kind: Optional[Kind]  # None when ok; else shape, dtype, nonfinite, value, tree or empty
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
    budget_floor: Optional[float] = None  # the floor: floor_eps * eps(dtype) * max |oracle|
    standard_ok: Optional[bool] = None  # the rtol/atol verdict the error budget replaced (None: not budget-judged)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", word(Kind, self.kind))


def fmt_shape(shape: Optional[Tuple[int, ...]]) -> str:
    if shape is None:
        return "?"
    return "(" + ",".join(str(d) for d in shape) + ")" if len(shape) != 1 else f"({shape[0]},)"


def dtype_name(arr: np.ndarray) -> str:
    return str(arr.dtype)


def compare_arrays(name: str, torch_value: Any, ms_value: Any, tolerance: Tolerance,
                   tolerance_source: str = "", *, sample: bool = True) -> TensorComparison:
    """Every metric of one tensor pair; sample=False leaves out the failing tensor's error sample (the plots'
    picture: one more pass over the tensor), for comparisons no page plots (localization's sub-cell rows)."""
    pt = np.asarray(torch_value)
    ms = np.asarray(ms_value)
    base = dict(name=name, torch_shape=tuple(pt.shape), ms_shape=tuple(ms.shape),
                torch_dtype=dtype_name(pt), ms_dtype=dtype_name(ms), rtol=tolerance.rtol,
                atol=tolerance.atol, tolerance_source=tolerance_source, total=int(pt.size))
    if pt.shape != ms.shape:
        return TensorComparison(ok=False, kind=Kind.SHAPE, message=(
            f"shape mismatch in {name}: torch {fmt_shape(pt.shape)} vs mindspore {fmt_shape(ms.shape)}"), **base)
    notes = []
    dtype_problem = _dtype_problem(base["torch_dtype"], base["ms_dtype"])
    if dtype_problem == "fatal":
        return TensorComparison(ok=False, kind=Kind.DTYPE, message=(
            f"dtype mismatch in {name}: torch {base['torch_dtype']} vs mindspore {base['ms_dtype']}"), **base)
    if dtype_problem == "note":
        notes.append(f"integer widths differ (torch {base['torch_dtype']}, mindspore {base['ms_dtype']}); values compared exactly")
    if pt.size == 0:  # nothing compared proves nothing: its own kind (engine passes it when the case allows empty)
        return TensorComparison(ok=False, kind=Kind.EMPTY, message=(
            f"{name}: empty on both sides (shape {fmt_shape(pt.shape)}), so nothing was compared; a zero-size"
            f" dimension by accident? If empty is intended, set allow_empty=True on the case"), notes=tuple(notes), **base)
    if np.iscomplexobj(pt) or np.iscomplexobj(ms):
        # Casting complex to float would drop the imaginary part, so a wrong one would pass:
        # compare (real, imag) pairs along an extra trailing axis instead.
        pt, ms = _real_pairs(pt), _real_pairs(ms)
        base["total"] = int(pt.size)
        notes.append("complex values compared as (real, imag) pairs: indices carry a trailing 0 (real) or 1 (imag)")
    return _compare_values(pt, ms, tolerance, base, tuple(notes), sample)


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


# Large tensors are compared in chunks, so that peak memory stays a few chunks of float64 work
# arrays above the inputs themselves, whatever the tensor's size. Every metric is reduced across
# chunks exactly (maxima, counts, first positions, block sums added with math.fsum), so a chunked
# comparison gives the very TensorComparison an unchunked one gives (tests/judging/test_compare_large.py).
# Small chunks keep the work arrays in the CPU's caches: 64K elements per chunk compare 25-30% faster
# than 256K ones (benchmarks/README.md).
CHUNK_THRESHOLD = 1 << 18  # tensors with more elements than this (256K) are compared in chunks
CHUNK = 1 << 16  # elements per chunk (64K: 512 KB per float64 work array); a multiple of SUM_BLOCK
SUM_BLOCK = 1 << 12  # sums (mean error, cosine) are taken per block of this many elements, then fsum'd


@dataclass
class _Chunk:
    """The element-wise work arrays of one chunk of the flattened tensors (float64)."""

    a: np.ndarray  # torch, float64
    b: np.ndarray  # mindspore, float64
    both_finite: np.ndarray
    nonfinite_bad: np.ndarray
    diff: np.ndarray  # |a - b| where both are finite, else 0
    mag: np.ndarray  # |a| where both are finite, else 0
    bad: np.ndarray  # mismatching positions (value or non-finite)
    all_finite: bool = False  # both sides finite everywhere: both_finite all True, nonfinite_bad all False
    rmag: Optional[np.ndarray] = None  # rtol * mag, kept by the all-finite path (it is needed three times)


def _chunk(pt: np.ndarray, ms: np.ndarray, tol: Tolerance) -> _Chunk:
    a = pt.astype(np.float64)
    b = ms.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = a - b
    np.abs(diff, out=diff)
    if np.isfinite(diff).all():
        # The common case, and a fast path: a NaN or an infinity on either side (or an overflowing
        # difference) makes |a - b| non-finite, so here both sides are finite everywhere and the masks
        # of the general path below are all True / all False. The arrays are the same as it makes.
        mag = np.abs(a)
        rmag = tol.rtol * mag
        bad = diff > tol.atol + rmag
        return _Chunk(a, b, np.ones(a.size, dtype=bool), np.zeros(a.size, dtype=bool), diff, mag, bad, True, rmag)
    both_finite = np.isfinite(a) & np.isfinite(b)
    # Non-finite positions agree when both are the same infinity, or both NaN and NaN is allowed.
    nonfinite_ok = np.isinf(a) & np.isinf(b) & (a == b)
    if tol.equal_nan:
        nonfinite_ok |= np.isnan(a) & np.isnan(b)
    nonfinite_bad = ~both_finite & ~nonfinite_ok
    diff = np.where(both_finite, diff, 0.0)  # inf - inf at non-finite positions, masked out right here
    mag = np.abs(np.where(both_finite, a, 0.0))
    bad = both_finite & (diff > tol.atol + tol.rtol * mag)
    bad |= nonfinite_bad
    return _Chunk(a, b, both_finite, nonfinite_bad, diff, mag, bad)


def _block_sums(x: np.ndarray) -> np.ndarray:
    """Sums of consecutive SUM_BLOCK-element blocks of a chunk that starts on a block boundary."""
    whole = x.size // SUM_BLOCK * SUM_BLOCK
    sums = x[:whole].reshape(-1, SUM_BLOCK).sum(axis=1) if whole else np.zeros(0)
    return np.concatenate([sums, [x[whole:].sum()]]) if whole < x.size else sums


def _fsum(values: np.ndarray) -> float:
    """The correctly rounded sum of block sums (so independent of how the blocks were grouped in chunks);
    numpy's overflowing sum (inf, or nan for inf - inf) where the exact one overflows."""
    try:
        return math.fsum(values.tolist())
    except (OverflowError, ValueError):
        with np.errstate(over="ignore", invalid="ignore"):
            return float(np.sum(values))


class _Chunks:
    """The flattened pair, chunk by chunk; recomputed on each pass unless it is a single chunk."""

    def __init__(self, pt: np.ndarray, ms: np.ndarray, tol: Tolerance) -> None:
        self.pt, self.ms, self.tol = pt.reshape(-1), ms.reshape(-1), tol
        n = self.pt.size
        step = n if n <= CHUNK_THRESHOLD else CHUNK
        self.bounds = [(s, min(s + step, n)) for s in range(0, n, step)]
        self._only: Optional[_Chunk] = None

    def __iter__(self) -> Iterator[Tuple[int, _Chunk]]:
        for start, stop in self.bounds:
            if len(self.bounds) == 1:
                if self._only is None:
                    self._only = _chunk(self.pt, self.ms, self.tol)
                yield start, self._only
            else:
                yield start, _chunk(self.pt[start:stop], self.ms[start:stop], self.tol)

    def sample(self, flat: int, shape: Tuple[int, ...]) -> Sample:
        index = tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
        value = lambda x: float(x[flat:flat + 1].astype(np.float64)[0])  # noqa: E731  (as the chunks convert)
        return Sample(index, value(self.pt), value(self.ms))


def _compare_values(pt: np.ndarray, ms: np.ndarray, tol: Tolerance, base: dict, notes: Tuple[str, ...],
                    sample: bool = True) -> TensorComparison:
    name = base["name"]
    shape = tuple(pt.shape)
    chunks = _Chunks(pt, ms, tol)
    mismatched = n_finite = nonfinite = 0
    max_abs, max_abs_flat, max_rel, max_rel_flat = -1.0, 0, -1.0, 0
    atol_need, rtol_need = 0.0, 0.0
    first_bad: list = []
    first_nonfinite: Optional[int] = None
    sums = {"diff": [], "ab": [], "aa": [], "bb": []}
    lifted = [True, True]  # the reported minimum atol / rtol pass as they are (see below)
    for start, c in chunks:
        bad_count = int(c.bad.sum())
        mismatched += bad_count
        n_finite += c.diff.size if c.all_finite else int(c.both_finite.sum())
        count = 0 if c.all_finite else int(c.nonfinite_bad.sum())
        if count and first_nonfinite is None:
            first_nonfinite = start + int(np.flatnonzero(c.nonfinite_bad)[0])
        nonfinite += count
        with np.errstate(divide="ignore", invalid="ignore"):
            if c.all_finite:  # the same values with fewer passes: 0/0 is the only NaN here, and means 0
                rel = c.diff / c.mag
                rel[np.isnan(rel)] = 0.0
                need = c.diff - tol.atol
                need /= c.mag
                rtol_here = float(np.max(need, where=c.diff > tol.atol, initial=0.0))
                atol_here = float(np.max(c.diff - c.rmag, initial=0.0))
                del need
            else:
                rel = np.where(c.mag > 0, c.diff / c.mag, np.where(c.diff > 0, np.inf, 0.0))
                need_rtol = np.where(c.diff > tol.atol, np.where(c.mag > 0, (c.diff - tol.atol) / c.mag, np.inf), 0.0)
                rtol_here = float(np.max(need_rtol))
                atol_here = float(np.max(np.maximum(c.diff - tol.rtol * c.mag, 0.0)))
                del need_rtol
        # Strictly greater: the first position of the maximum, as one argmax over the whole tensor gives.
        i = int(np.argmax(c.diff))
        if c.diff[i] > max_abs:
            max_abs, max_abs_flat = float(c.diff[i]), start + i
        i = int(np.argmax(rel))
        if rel[i] > max_rel:
            max_rel, max_rel_flat = float(rel[i]), start + i
        atol_need = max(atol_need, atol_here)
        rtol_need = max(rtol_need, rtol_here)
        # What _lift_both checks, with this chunk's own minima: passing with them, a chunk passes with the
        # tensor's (never smaller; float addition and multiplication are monotonic), so when every chunk
        # passes here, no second pass over the chunks (recomputing them) is needed.
        finite = True if c.all_finite else c.both_finite
        rmag = c.rmag if c.all_finite else tol.rtol * c.mag
        # (An infinite minimum makes the tensor's infinite too, which is never lifted.)
        lifted[0] = lifted[0] and (not math.isfinite(atol_here) or not np.any(finite & (c.diff > atol_here + rmag)))
        lifted[1] = lifted[1] and (not math.isfinite(rtol_here)
                                   or not np.any(finite & (c.diff > tol.atol + rtol_here * c.mag)))
        del rmag
        if bad_count and len(first_bad) < MAX_SAMPLES:
            first_bad += [start + int(j) for j in np.flatnonzero(c.bad)[:MAX_SAMPLES - len(first_bad)]]
        a0 = c.a if c.all_finite else np.where(c.both_finite, c.a, 0.0)
        b0 = c.b if c.all_finite else np.where(c.both_finite, c.b, 0.0)
        sums["diff"].append(_block_sums(c.diff))
        sums["ab"].append(_block_sums(a0 * b0))
        sums["aa"].append(_block_sums(a0 * a0))
        sums["bb"].append(_block_sums(b0 * b0))
        del rel, a0, b0
    total = {k: _fsum(np.concatenate(v)) for k, v in sums.items()}
    min_atol, min_rtol = _lift_both(atol_need, rtol_need, tol, chunks, lifted)
    metrics = dict(
        mismatched=mismatched,
        mismatched_fraction=mismatched / pt.size,
        max_abs_err=max_abs,
        max_abs_at=chunks.sample(max_abs_flat, shape),
        max_rel_err=max_rel,
        max_rel_at=chunks.sample(max_rel_flat, shape),
        mean_abs_err=total["diff"] / n_finite if n_finite else 0.0,
        cosine=_cosine(total["ab"], total["aa"], total["bb"]),
        min_atol=min_atol,
        min_rtol=min_rtol,
        first_mismatches=tuple(chunks.sample(j, shape) for j in first_bad),
    )
    if nonfinite:
        # The first non-finite position, not the first mismatch of any kind (that may be a finite one).
        first = chunks.sample(first_nonfinite, shape)
        if math.isnan(first.torch) and math.isnan(first.mindspore):  # "NaN/Inf differ" would read as a contradiction
            message = (f"NaN on both sides in {name}: {nonfinite} non-finite position(s) count as mismatches, first"
                       f" at {first.index} (NaN on both sides); NaN is not allowed by this tolerance: if NaN is the"
                       f" expected result there, use Tolerance(..., equal_nan=True), else find where it comes from")
        else:
            message = (f"non-finite mismatch in {name}: {nonfinite} position(s) where NaN/Inf differ,"
                       f" first at {first.index} (torch {first.torch}, mindspore {first.mindspore})")
        return TensorComparison(ok=False, kind=Kind.NONFINITE, message=message, notes=notes,
                                error_sample=chunked_error_sample(chunks, shape) if sample else None, **base, **metrics)
    if mismatched:
        return TensorComparison(ok=False, kind=Kind.VALUE, message=value_message(name, metrics, tol, pt.size),
                                notes=notes, error_sample=chunked_error_sample(chunks, shape) if sample else None,
                                **base, **metrics)
    return TensorComparison(ok=True, kind=None, message=f"{name}: max abs err {metrics['max_abs_err']:.3g}",
                            notes=notes, **base, **metrics)


def _lift_both(atol: float, rtol: float, tol: Tolerance, chunks: "_Chunks",
               passing: Sequence[bool] = (False, False)) -> Tuple[float, float]:
    """The reported minimum atol and rtol, each nudged up past float rounding until re-comparing with it
    passes (at most 16 ulps); both checked in one pass over the chunks. passing: already known to pass."""
    values = [atol, rtol]
    tries = [0 if math.isfinite(v) else 16 for v in values]
    done = [not math.isfinite(v) or bool(p) for v, p in zip(values, passing)]
    while not all(done):
        fails = [False, False]
        for _, c in chunks:
            finite = True if c.all_finite else c.both_finite
            if not done[0] and not fails[0]:
                rmag = c.rmag if c.all_finite else tol.rtol * c.mag
                fails[0] = bool(np.any(finite & (c.diff > values[0] + rmag)))
            if not done[1] and not fails[1]:
                fails[1] = bool(np.any(finite & (c.diff > tol.atol + values[1] * c.mag)))
        for k in (0, 1):
            if done[k]:
                continue
            if not fails[k]:
                done[k] = True
                continue
            values[k] = float(np.nextafter(values[k], np.inf))
            tries[k] += 1
            done[k] = tries[k] >= 16
    return values[0], values[1]


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


def _cosine(ab: float, aa: float, bb: float) -> Optional[float]:
    """Cosine similarity from the sums of a*b, a*a and b*b over the positions where both are finite."""
    na, nb = math.sqrt(aa), math.sqrt(bb)
    if na == 0.0 or nb == 0.0:
        return None
    return float(ab / (na * nb))


def missing_tensor(name: str, side: str) -> TensorComparison:
    other = "mindspore" if side == "torch" else "torch"
    return TensorComparison(name=name, ok=False, kind=Kind.TREE,
                            message=f"output structure differs: {name} exists in {other} output but not in {side} output")


ToleranceFor = Callable[[str, str], Tuple[Tolerance, str]]  # (tensor name, torch dtype) -> tolerance, source


def compare_trees(torch_tree: Any, ms_tree: Any, tolerance_for: ToleranceFor,
                  prefix: str = "out", *, sample: bool = True) -> Tuple[TensorComparison, ...]:
    """Compare two numpy trees leaf by leaf; a leaf present on one side only is a 'tree' failure.
    sample: as compare_arrays'."""
    pt = leaves(torch_tree, prefix)
    ms = leaves(ms_tree, prefix)
    out = []
    for name, value in pt.items():
        if name not in ms:
            out.append(missing_tensor(name, "mindspore"))
            continue
        value = as_array(value)
        tol, source = tolerance_for(name, dtype_name(value))
        out.append(compare_arrays(name, value, as_array(ms[name]), tol, source, sample=sample))
    out.extend(missing_tensor(name, "torch") for name in ms if name not in pt)
    return tuple(out)
