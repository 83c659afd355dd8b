"""Public MindSpore functions the port bound to its own names, wrapped for an op-level trace too.

Wrapping `mindspore.ops.<name>` reaches every call written `ops.<name>(...)`; a port that bound the function
to a name of its own (`from mindspore.ops import gaussian_nll_loss`, a closure's variable, `self.act =
ops.relu`) calls the original object and would be invisible. For each cell of the traced tree, the names its
classes' modules, its construct's closure and its own attributes bind to a wrapped function are pointed at the
wrapper for the block and put back afterwards. Only objects identical to a wrapped original are touched.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, Dict, Iterator, List, Tuple


def _places(cell: Any) -> Iterator[Tuple[str, Any]]:
    """('dict', mapping) and ('cell', closure cell) for every binding a port's own code may call through."""
    seen: set = set()
    for _, sub in cell.cells_and_names():
        for cls in type(sub).__mro__:
            if cls.__module__.split(".")[0] in ("mindspore", "builtins") or id(cls) in seen:
                continue
            seen.add(id(cls))
            module = sys.modules.get(cls.__module__)
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield "dict", vars(module)
            construct = cls.__dict__.get("construct")
            for c in getattr(construct, "__closure__", None) or ():
                yield "cell", c
        yield "dict", vars(sub)


@contextlib.contextmanager
def rebound(cell: Any, wrappers: Dict[int, Any]) -> Iterator[None]:
    """Every binding in the port's code to an object whose id is a key of `wrappers` points at its wrapper."""
    undo: List[Tuple[str, Any, Any, Any]] = []
    try:
        for kind, place in _places(cell):
            if kind == "cell":
                try:
                    value = place.cell_contents
                except ValueError:  # an empty closure cell
                    continue
                if id(value) in wrappers:
                    undo.append(("cell", place, None, value))
                    place.cell_contents = wrappers[id(value)]
                continue
            for key, value in list(place.items()):
                if id(value) in wrappers and not isinstance(value, type):
                    undo.append(("dict", place, key, value))
                    place[key] = wrappers[id(value)]
        yield
    finally:
        for kind, place, key, value in reversed(undo):
            if kind == "cell":
                place.cell_contents = value
            else:
                place[key] = value
