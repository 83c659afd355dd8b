"""The bounded picture of a failing tensor's error (histogram, heat map, channel maxima) for the report's plots.

Built chunk by chunk from the comparator's error arrays, so its size and memory do not grow with the tensor.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Tuple

import numpy as np

# The error sample of a failing tensor (for the report's plots) is bounded whatever the tensor's size:
MAP_CELLS = 64  # error-map cells per axis (so at most 64 x 64 numbers), and at most 64 channel bars
HIST_BINS = 32  # histogram bins of |ms - pt|
MAX_NONFINITE_CELLS = 64  # map cells listed as holding a NaN/Inf mismatch


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


class _SampleAccumulator:
    """Builds a tensor's ErrorSample from its error chunk by chunk (flat order), with exact reductions."""

    def __init__(self, shape: Tuple[int, ...]) -> None:
        self.shape = shape
        ndim = len(shape)
        self.plane = (1, shape[0]) if ndim == 1 else tuple(shape[-2:]) if ndim >= 2 else ()
        if self.plane:
            rows, cols = self.plane
            self.blocks = (max(1, -(-rows // MAP_CELLS)), max(1, -(-cols // MAP_CELLS)))
            self.cells = (-(-rows // self.blocks[0]), -(-cols // self.blocks[1]))
            self.map = np.zeros(self.cells[0] * self.cells[1])
            self.map_bad = np.zeros(self.cells[0] * self.cells[1], dtype=bool)
        if ndim >= 3:
            self.inner = int(np.prod(shape[2:], dtype=np.int64))
            self.channel_block = max(1, -(-shape[1] // MAP_CELLS))
            self.channel_max = np.zeros(-(-shape[1] // self.channel_block))

    def add_map(self, start: int, err: np.ndarray, nonfinite_bad: np.ndarray) -> None:
        if not self.plane or not err.size:
            return
        rows, cols = self.plane
        flat = np.arange(start, start + err.size, dtype=np.int64)
        if len(self.shape) > 2:
            flat %= rows * cols
        r, c = np.divmod(flat, cols)
        del flat
        cell = (r // self.blocks[0]) * self.cells[1] + c // self.blocks[1]
        del r, c
        np.maximum.at(self.map, cell, err)
        if nonfinite_bad.any():
            self.map_bad[cell[nonfinite_bad]] = True
        if len(self.shape) >= 3:
            channel = np.arange(start, start + err.size, dtype=np.int64) // self.inner % self.shape[1]
            np.maximum.at(self.channel_max, channel // self.channel_block, err)

    def sample(self, hist_edges: Tuple[float, ...], hist_counts: Tuple[int, ...], zero: int, nonfinite: int) -> ErrorSample:
        out = dict(hist_edges=hist_edges, hist_counts=hist_counts, zero=zero, nonfinite=nonfinite)
        if self.plane:
            cells = self.map.reshape(self.cells)
            bad = np.argwhere(self.map_bad.reshape(self.cells))[:MAX_NONFINITE_CELLS]
            out.update(map=tuple(tuple(_sig(float(v)) for v in row) for row in cells),
                       map_axes=(0,) if len(self.shape) == 1 else (len(self.shape) - 2, len(self.shape) - 1),
                       map_block=self.blocks[1:] if len(self.shape) == 1 else self.blocks,
                       map_nonfinite=tuple((int(r), int(c)) for r, c in bad))
        if len(self.shape) >= 3:
            out.update(channel_axis=1, channel_max=tuple(_sig(float(v)) for v in self.channel_max),
                       channel_block=self.channel_block)
        return ErrorSample(**out)


_BIG = np.finfo(np.float64).max


def chunked_error_sample(chunks: Iterable[Tuple[int, Any]], shape: Tuple[int, ...]) -> ErrorSample:
    """The bounded ErrorSample of a failing tensor: one pass for the error's range, one for the histogram."""
    acc = _SampleAccumulator(shape)
    lo = hi = loglo = loghi = None
    positives = nonfinite = total = 0
    for start, c in chunks:
        err = np.minimum(c.diff, _BIG)  # finite - finite can overflow to inf
        acc.add_map(start, err, c.nonfinite_bad)
        positive = err[err > 0]
        total += err.size
        nonfinite += int(c.nonfinite_bad.sum())
        if positive.size:
            positives += positive.size
            logs = np.log10(positive)
            pairs = [(float(positive.min()), float(positive.max())), (float(logs.min()), float(logs.max()))]
            lo = pairs[0][0] if lo is None else min(lo, pairs[0][0])
            hi = pairs[0][1] if hi is None else max(hi, pairs[0][1])
            loglo = pairs[1][0] if loglo is None else min(loglo, pairs[1][0])
            loghi = pairs[1][1] if loghi is None else max(loghi, pairs[1][1])
    edges: Tuple[float, ...] = ()
    counts: Tuple[int, ...] = ()
    if positives:
        if hi <= lo * (1 + 1e-9):  # one value: one bin
            edges, counts = (lo, hi), (positives,)
        else:  # uniform bins in log10 space, since errors span decades
            hist = np.zeros(HIST_BINS, dtype=np.int64)
            for _, c in chunks:
                err = np.minimum(c.diff, _BIG)
                logs = np.log10(err[err > 0])
                # Bin index by arithmetic and bincount: several times faster than np.histogram on big tensors.
                logs -= loglo
                logs *= HIST_BINS / (loghi - loglo)
                bins = logs.astype(np.intp)
                np.minimum(bins, HIST_BINS - 1, out=bins)
                hist += np.bincount(bins, minlength=HIST_BINS)
            grid = [float(v) for v in 10.0 ** np.linspace(loglo, loghi, HIST_BINS + 1)]
            grid[0], grid[-1] = lo, hi
            edges, counts = tuple(grid), tuple(int(c) for c in hist)
    return acc.sample(edges, counts, zero=total - positives - nonfinite, nonfinite=nonfinite)


def _sig(value: float, digits: int = 4) -> float:
    """value rounded to `digits` significant figures: short in JSON, exact through a JSON round trip."""
    return float(f"{value:.{digits}g}")


# A verdict's report keeps the bulk detail (error sample, hence a plot, and the first mismatches) of this many
# failing tensors: on a real net one defect fails hundreds of gradients downstream of it, and their plots
# repeat one story while costing megabytes and seconds each run. Every failing tensor keeps its metrics.
DETAILED_PER_VERDICT = 4


def keep_detail(tensors: Tuple[Any, ...], kind_order: Tuple[str, ...], limit: int = DETAILED_PER_VERDICT) -> Tuple[Tuple[Any, ...], str]:
    """(tensors, note): the `limit` most telling failing tensors keep error_sample and first_mismatches; the
    others lose them. Most telling: the most fundamental kind first, then the verdict's output before gradients
    and states (result order), then the largest share of mismatched elements. note says what was left out ("" if nothing)."""
    import dataclasses

    failing = [i for i, t in enumerate(tensors) if not t.ok and (t.error_sample is not None or t.first_mismatches)]
    if len(failing) <= limit:
        return tensors, ""
    rank = {kind: k for k, kind in enumerate(kind_order)}
    chosen = set(sorted(failing, key=lambda i: (rank.get(tensors[i].kind, len(rank)), not tensors[i].name.startswith("out"),
                                                -tensors[i].mismatched_fraction, i))[:limit])
    out = tuple(t if i in chosen or i not in failing else dataclasses.replace(t, error_sample=None, first_mismatches=())
                for i, t in enumerate(tensors))
    names = ", ".join(tensors[i].name for i in sorted(chosen))
    return out, (f"error plots and first mismatches kept for {limit} of {len(failing)} failing tensors ({names}):"
                 f" the most fundamental kind, outputs first, then the most mismatched; every failing tensor keeps its metrics")
