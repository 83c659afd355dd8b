"""What a layer IS, read from its class's MRO: the nearest framework library class, and the children a
subclass adds. Framework-free (it only reads __mro__ and __module__); each side passes its own prefixes."""
from __future__ import annotations

from typing import Any, Iterable, Tuple

from migcheck.knowledge.table import CONTAINERS

# Containers (the knowledge table's, both sides) and the root classes say nothing about what a layer computes.
_GENERIC = {"Module", "ParameterList", "ParameterDict", "Cell"} | {name for pair in CONTAINERS for name in pair}


def library_base(obj: Any, packages: Tuple[str, ...]) -> str:
    """The first class in type(obj)'s MRO defined under one of `packages` (torch.nn, mindspore.nn), by name
    without a leading underscore; "" when the only library ancestors are containers or the root class."""
    for cls in type(obj).__mro__:
        if cls.__module__.startswith(packages) and cls.__name__.lstrip("_") not in _GENERIC:
            return cls.__name__.lstrip("_")
    return ""


def extra_children(obj: Any, base: str, children: Iterable[str]) -> Tuple[str, ...]:
    """The child names a subclass of a library layer adds (timm's BatchNormAct2d: act, drop); () otherwise."""
    if not base or type(obj).__name__ == base:
        return ()
    return tuple(children)


def cell_lineage(cell: Any) -> Tuple[str, Tuple[str, ...]]:
    """A MindSpore cell's nearest mindspore.nn layer class, and the children a subclass of it adds."""
    base = library_base(cell, ("mindspore.nn.",))
    return base, extra_children(cell, base, cell.name_cells().keys())
