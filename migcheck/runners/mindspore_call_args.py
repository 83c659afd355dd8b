"""A MindSpore cell called with more than its tensor inputs: the optional parameters of its construct (those
defaulting to None, such as nn.LSTM's seq_length), and one PYNATIVE call with some of them given."""
from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence, Tuple

import mindspore as ms
import numpy as np

from migcheck.runners.mindspore_context import pynative
from migcheck.util.tree import contiguous


def optional_parameters(cell: Any) -> Tuple[str, ...]:
    """construct's parameters that default to None (what a call may leave out)."""
    try:
        params = inspect.signature(cell.construct).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in params if p.default is None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def call_with(cell: Any, inputs: Sequence[np.ndarray], kwargs: Mapping[str, np.ndarray],
              to_numpy: Callable[[Any], Any]) -> Any:
    """The cell on its inputs with the given optional arguments (arrays as tensors), in eval mode."""
    with pynative():
        was = bool(cell.training)
        cell.set_train(False)
        try:
            given = {k: ms.Tensor(contiguous(v)) for k, v in kwargs.items()}
            return to_numpy(cell(*[ms.Tensor(contiguous(x)) for x in inputs], **given))
        finally:
            cell.set_train(was)
