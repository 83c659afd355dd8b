"""What every localization stage starts from: torch's module as the failing run loaded it, and whether a
MindSpore cell is a library class (searched by its settings) or the port's own (searched inside)."""
from __future__ import annotations

from typing import Any, Tuple

from migcheck.runners.probes import MindSporeProbe, TorchProbe


def loaded_torch(case: Any, ref: Any) -> Tuple[TorchProbe, int]:
    """(torch's module with the reference weights and the case's precision, the number of network inputs):
    inputs passed by keyword as the run passed them, so a forward whose order differs from the case's reads
    the same values."""
    from migcheck.precision import apply_precision
    from migcheck.runners.torch_side import TorchModule

    module = TorchModule(case.torch, input_names=case.network_inputs)
    module.load(ref.weights)
    apply_precision(case.precision, module)
    return module, len(ref.input_names) - len(case.targets)


def is_library(cell: MindSporeProbe, ms_name: str, unreadable: bool) -> bool:
    """Whether the cell at ms_name is a mindspore.nn class; `unreadable`: the answer for a cell whose
    constructor cannot be read (the caller says which way that errs safely)."""
    try:
        return bool(cell.constructor(ms_name).library)
    except Exception:  # reading a port's own cell runs its properties, which may raise anything
        return unreadable
