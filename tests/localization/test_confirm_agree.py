"""confirm.agree: torch's own float32 error (its float64 re-run) widens the agreement band only where it is
rounding noise; a float64 re-run that computes something else (an eps of finfo(dtype).eps, as RMSNorm's eps=None)
would otherwise let any candidate agree. Pure numpy."""
import numpy as np

from migcheck.localization.confirm import agree


def _tol(dtype):
    return 1.3e-6, 1e-5


def test_rounding_noise_widens_the_band_where_the_reference_is_ill_conditioned():
    torch_out = np.array([1.0, 2.0, 3.0], np.float32)
    float64_run = torch_out.astype(np.float64) + np.array([0.0, 2e-3, 0.0])  # cancellation at one element
    candidate = torch_out + np.array([0.0, 4e-3, 0.0], np.float32)
    assert not agree(torch_out, candidate, _tol)
    assert agree(torch_out, candidate, _tol, float64_run)


def test_a_float64_run_far_from_the_float32_one_is_not_noise_and_widens_nothing():
    torch_out = np.array([0.28, -0.25, 0.3], np.float32)
    float64_run = np.array([1.0, -0.9, 1.1])  # eps=finfo(float64).eps instead of finfo(float32).eps
    port_out = np.array([0.1, -0.09, 0.11], np.float32)  # an eps of 1e-6: wrong
    assert not agree(torch_out, port_out, _tol, float64_run)
