"""Robustness, large outputs: tensors above compare.CHUNK_THRESHOLD are compared in chunks, with results
identical to the unchunked comparison, bounded memory, and verdicts and reports that stay small.

The 100M-element measurement lives in benchmarks/compare_memory.py (not in the suite).
"""
from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from migcheck.judging import compare, error_sample
from migcheck.judging.compare import compare_arrays
from migcheck.report.jsonfile import dumps
from migcheck.tolerance import Tolerance
from migcheck.judging.verdict import Verdict
from migcheck.serialize import verdict_to_json

F32 = Tolerance(rtol=1.3e-6, atol=1e-5)


def _pair(shape, seed=0, *, nonfinite=True, scale=1e-5, dtype=np.float32):
    rng = np.random.default_rng(seed)
    pt = rng.standard_normal(shape).astype(dtype)
    ms = (pt + rng.standard_normal(shape) * scale).astype(dtype)
    flat_pt, flat_ms = pt.reshape(-1), ms.reshape(-1)
    if nonfinite and pt.size > 100:
        n = pt.size
        flat_ms[rng.integers(0, n, 7)] = np.nan
        flat_ms[rng.integers(0, n, 5)] = np.inf
        flat_pt[rng.integers(0, n, 5)] = -np.inf
        both = rng.integers(0, n, 3)
        flat_pt[both] = flat_ms[both] = np.inf  # agreeing infinities
        flat_ms[rng.integers(0, n, 2)] = 3e38  # huge finite values
    return pt, ms


CASES = {
    "4-D value and non-finite mismatches": lambda: _pair((3, 7, 61, 83)),
    "3-D within tolerance": lambda: _pair((5, 130, 77), scale=1e-9, nonfinite=False),
    "2-D, rows wider than a chunk": lambda: _pair((7, 20011)),
    "1-D": lambda: _pair((100_003,), seed=3),
    "float64 with equal_nan": lambda: _pair((40, 2503), seed=4, dtype=np.float64),
    "int64 exact": lambda: (np.arange(90_000).reshape(300, 300), np.arange(90_000).reshape(300, 300) % 89_999),
    "complex64": lambda: tuple(a.astype(np.complex64) * (1 + 1j) for a in _pair((250, 201), seed=5)),
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_chunked_and_unchunked_comparisons_are_identical(monkeypatch, make):
    pt, ms = make()
    tol = Tolerance(rtol=1e-7, atol=1e-7, equal_nan=True) if pt.dtype == np.float64 else F32
    whole = compare_arrays("out", pt, ms, tol, "source")
    # Force chunks (of 12288 elements: aligned neither with the tensors' rows nor with their planes).
    monkeypatch.setattr(compare, "CHUNK_THRESHOLD", 1000)
    monkeypatch.setattr(compare, "CHUNK", 3 * compare.SUM_BLOCK)
    starts = []
    chunk = compare._chunk
    monkeypatch.setattr(compare, "_chunk", lambda a, b, t: starts.append(a.size) or chunk(a, b, t))
    chunked = compare_arrays("out", pt, ms, tol, "source")
    # chunk by chunk (a second pass, for the minimum tolerances, only when one chunk's own check fails)
    assert len(starts) >= -(-whole.total // compare.CHUNK) >= 2
    assert chunked == whole or repr(chunked) == repr(whole)  # repr: NaN != NaN in a dataclass comparison


def test_the_chunked_path_is_the_one_large_tensors_take_and_its_memory_stays_bounded():
    n = 1 << 22  # 4M elements, 16 MB per float32 input: above CHUNK_THRESHOLD
    pt = np.random.default_rng(0).standard_normal(n, dtype=np.float32).reshape(8, -1)
    ms = pt.copy()
    ms.reshape(-1)[::1000] += 1.0
    ms.reshape(-1)[::777_777] = np.nan
    tracemalloc.start()
    try:
        result = compare_arrays("out", pt, ms, F32)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.kind, result.total) == ("nonfinite", n) and n > compare.CHUNK_THRESHOLD
    # Unchunked, the float64 work arrays of 4M elements would take 32 MB each, several at once (about
    # 300 MB in all); in chunks the comparison's own peak stays near a few chunks' worth.
    assert peak < 60 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    # The verdict stays small: bounded samples, a bounded error picture.
    assert len(result.first_mismatches) == compare.MAX_SAMPLES
    sample = result.error_sample
    assert len(sample.map) <= error_sample.MAP_CELLS and all(len(row) <= error_sample.MAP_CELLS for row in sample.map)
    assert len(sample.hist_counts) == error_sample.HIST_BINS and sum(sample.hist_counts) == result.mismatched - sample.nonfinite
    verdict = Verdict(case="big", check="forward", mode="pynative", backend="cpu", status="fail", kind="nonfinite",
                      message=result.message, tensors=(result,))
    text = dumps(verdict_to_json(verdict))
    assert len(text) < 40_000
    json.loads(text)
