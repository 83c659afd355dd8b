"""The report's bulk per verdict is bounded: error samples and first mismatches for the most telling failing tensors."""
import numpy as np

from migcheck.judging.compare import compare_arrays
from migcheck.judging.error_sample import DETAILED_PER_VERDICT, keep_detail
from migcheck.tolerance import Tolerance
from migcheck.vocab import TENSOR_KINDS

F32 = Tolerance(rtol=1e-6, atol=1e-6)


def _failing(name, fraction):
    pt = np.zeros(100, np.float32)
    ms = pt.copy()
    ms[:int(100 * fraction)] = 1.0
    return compare_arrays(name, pt, ms, F32)


def test_only_the_most_telling_failing_tensors_keep_their_bulk():
    grads = [_failing(f"grad.param.l{k}.weight", 0.05 + 0.01 * k) for k in range(10)]
    out = _failing("out", 0.01)
    ok = compare_arrays("grad.input.x", np.ones(3, np.float32), np.ones(3, np.float32), F32)
    tensors = (ok, *grads, out)
    kept, note = keep_detail(tensors, TENSOR_KINDS)
    detailed = [t.name for t in kept if t.error_sample is not None]
    assert len(detailed) == DETAILED_PER_VERDICT
    # The output first (whatever its share), then the most mismatched gradients.
    assert "out" in detailed and "grad.param.l9.weight" in detailed and "grad.param.l0.weight" not in detailed
    assert all(t.first_mismatches == () for t in kept if t.error_sample is None and not t.ok)
    # Metrics stay for every tensor: nothing that failed reads as passing.
    assert [(t.name, t.ok, t.kind, t.max_abs_err) for t in kept] == [(t.name, t.ok, t.kind, t.max_abs_err) for t in tensors]
    assert f"kept for {DETAILED_PER_VERDICT} of 11 failing tensors" in note


def test_a_few_failing_tensors_keep_everything():
    tensors = tuple(_failing(f"t{k}", 0.5) for k in range(3))
    assert keep_detail(tensors, TENSOR_KINDS) == (tensors, "")
