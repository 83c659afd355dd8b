"""The library calls a constructor's own code makes, recorded while it builds (runners/build_calls.py for
MindSpore/NumPy, runners/torch_build_calls.py for torch), and a rebuild with one argument changed."""
import numpy as np
import pytest

from migcheck.records.constants import BuildChange
from migcheck.runners.build_calls import built_with, library_calls


class _Window:
    def __init__(self, n=6):
        self.window = np.hanning(n)
        self.grid = np.linspace(0.0, 1.0, n, endpoint=False)


def test_numpy_calls_are_recorded_with_every_argument_and_which_were_left_at_their_defaults():
    built, calls = library_calls(_Window)
    assert isinstance(built, _Window)
    by_name = {c.function: c for c in calls}
    assert by_name["numpy.hanning"].arguments == (("M", 6),)
    linspace = by_name["numpy.linspace"]
    assert dict(linspace.arguments)["endpoint"] is False and "endpoint" not in linspace.defaulted
    assert "retstep" in linspace.defaulted and linspace.site.startswith("test_build_calls.py:")


def test_a_rebuild_changes_only_the_named_call_and_puts_the_function_back():
    rebuilt = built_with(_Window, BuildChange("numpy.linspace", 0, "endpoint", True))
    np.testing.assert_allclose(rebuilt.grid, np.linspace(0.0, 1.0, 6))
    np.testing.assert_allclose(rebuilt.window, np.hanning(6))
    assert np.linspace(0.0, 1.0, 3, endpoint=False)[-1] < 1.0  # the original is back


torch = pytest.importorskip("torch")


@pytest.mark.needs_torch
def test_torch_factory_calls_are_read_with_their_docstring_signature_and_layer_initialisation_is_left_out():
    from migcheck.runners.torch_build_calls import torch_build_calls, torch_built_with

    class Front(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.window = torch.hann_window(8)
            self.fc = torch.nn.Linear(3, 2)

    built, calls = torch_build_calls(Front)
    assert [c.function for c in calls] == ["torch.hann_window"]
    assert dict(calls[0].arguments)["periodic"] is True and "periodic" in calls[0].defaulted
    symmetric = torch_built_with(Front, BuildChange("torch.hann_window", 0, "periodic", False))
    assert torch.allclose(symmetric.window, torch.hann_window(8, periodic=False))
    assert torch.allclose(built.window, torch.hann_window(8))
