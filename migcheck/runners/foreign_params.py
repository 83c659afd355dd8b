"""Parameters of torch-like MindSpore ports that are not mindspore.Parameter (mindnlp-style: a Tensor subclass
with its own requires_grad), made differentiable for one gradient pass.

mindspore.grad differentiates only mindspore.Parameter weights: given such a tensor it returns zeros, silently.
So for the pass, each one is swapped, in its owner's `_parameters` table (the torch-like convention that
named_parameters() reads), for a mindspore.Parameter holding the same value, and put back afterwards.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, List, Sequence, Tuple

import mindspore as ms

from migcheck.runners.mindspore_objective import MindSporeSideError


def is_foreign_trainable(p: Any) -> bool:
    """A Tensor subclass (not a mindspore.Parameter) that asks for gradients with its own requires_grad."""
    return (isinstance(p, ms.Tensor) and not isinstance(p, ms.Parameter) and type(p) is not ms.Tensor
            and getattr(p, "requires_grad", False) is True)


def _slot(module: Any, name: str) -> dict:
    owner = module
    for part in name.split(".")[:-1]:
        owner = getattr(owner, part, None)
    table = getattr(owner, "__dict__", {}).get("_parameters")
    if not isinstance(table, dict) or name.rpartition(".")[2] not in table:
        raise MindSporeSideError(
            f"MindSpore '{name}' is a {type(getattr(owner, name.rpartition('.')[2], None)).__name__} (a Tensor subclass,"
            f" not mindspore.Parameter) that migcheck cannot swap for the gradient pass (its owner keeps no"
            f" `_parameters` table); hint: hold it as a mindspore.Parameter, or compare forward only")
    return table


@contextlib.contextmanager
def as_parameters(module: Any, named: Sequence[Tuple[str, Any]]) -> Iterator[List[Tuple[str, Any]]]:
    """`named` with every foreign trainable tensor replaced, for the duration, by a mindspore.Parameter."""
    swapped: List[Tuple[dict, str, Any]] = []
    out: List[Tuple[str, Any]] = []
    try:
        for name, p in named:
            if not is_foreign_trainable(p):
                out.append((name, p))
                continue
            table, leaf = _slot(module, name), name.rpartition(".")[2]
            param = ms.Parameter(ms.Tensor(p.asnumpy(), dtype=p.dtype), name=name, requires_grad=True)
            swapped.append((table, leaf, table[leaf]))
            table[leaf] = param
            out.append((name, param))
        yield out
    finally:
        for table, leaf, original in swapped:
            table[leaf] = original
