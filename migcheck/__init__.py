"""migcheck: prove a MindSpore port of a PyTorch model computes the same thing as the original.

Public API: for case files PairedCase, Tolerance and the input specs; for scripts run() -> RunResult
and RunOptions. They are imported on first use (PEP 562), so that `migcheck --help` and a warm
`migcheck list` start without numpy.
"""
from typing import Any, List

__version__ = "0.1.0"
__all__ = ["PairedCase", "FrameworkPair", "Tolerance", "InputSpec", "uniform", "normal", "integers", "mask", "given", "Precision",
           "with_precision", "run", "RunResult", "RunOptions"]

_HOMES = {"PairedCase": "migcheck.case", "FrameworkPair": "migcheck.case", "Tolerance": "migcheck.tolerance",
          "InputSpec": "migcheck.specs", "uniform": "migcheck.specs", "normal": "migcheck.specs",
          "integers": "migcheck.specs", "mask": "migcheck.specs", "given": "migcheck.specs",
          "Precision": "migcheck.precision", "with_precision": "migcheck.case",
          "run": "migcheck.running.api", "RunResult": "migcheck.running.session", "RunOptions": "migcheck.options"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'migcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))
