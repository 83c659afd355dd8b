"""A torch tensor as numpy however torch holds it (runners/torch_numpy.py)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


@pytest.mark.needs_torch
def test_a_lazy_conjugate_and_bfloat16_come_back_as_plain_numpy_copies():
    z = torch.tensor([1 + 2j, 3 - 1j])
    from migcheck.runners.torch_numpy import as_numpy

    np.testing.assert_array_equal(as_numpy(torch.conj(z)), np.array([1 - 2j, 3 + 1j]))
    assert as_numpy(torch.ones(2, dtype=torch.bfloat16)).dtype == np.float32
    x = torch.zeros(2)
    copy = as_numpy(x)
    x += 1
    assert copy.tolist() == [0.0, 0.0]
