"""Closeness as localization tests it: complex values are compared with their imaginary parts (pure)."""
import numpy as np

from migcheck.localization.op_align import same_value
from migcheck.util.closeness import close


def test_complex_values_differing_only_in_their_imaginary_parts_are_not_close():
    a = np.array([1 + 1j, 2 + 0j], np.complex64)
    conjugated = np.conj(a)
    assert not close(a, conjugated, 1e-5, 1e-6) and close(a, a.copy(), 1e-5, 1e-6)
    assert not same_value(1e-5, 1e-6)(a, conjugated)


def test_nan_is_close_to_nan_and_an_infinity_only_to_itself():
    a = np.array([np.nan, np.inf, 1.0])
    assert close(a, a.copy(), 0.0, 0.0) and not close(a, np.array([np.nan, -np.inf, 1.0]), 0.0, 0.0)
