"""Numpy trees: nested tuples/lists/dicts of arrays, flattened to named leaves for comparison."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np


def record_fields(tree: Any) -> Optional[List[Tuple[str, Any]]]:
    """A model-output object's (field, value) pairs, None fields left out; None when tree is not one.

    Model outputs come as dataclasses, namedtuples or dict-likes (transformers' ModelOutput is an
    OrderedDict); flattening them by field name lets two sides be compared by name, not position.
    """
    if dataclasses.is_dataclass(tree) and not isinstance(tree, type):
        pairs = [(f.name, getattr(tree, f.name)) for f in dataclasses.fields(tree)]
    elif isinstance(tree, tuple) and hasattr(type(tree), "_fields"):
        pairs = list(zip(type(tree)._fields, tree))
    elif isinstance(tree, Mapping):
        pairs = list(tree.items())
    else:
        return None
    return [(str(k), v) for k, v in pairs if v is not None]


def flatten(tree: Any, prefix: str = "out") -> List[Tuple[str, Any]]:
    """(path, leaf) pairs in a stable order: 'out', 'out[0]', 'out[1].logits'."""
    fields = record_fields(tree)
    if fields is not None:
        out: List[Tuple[str, Any]] = []
        for key, value in fields:
            out.extend(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(tree, (tuple, list)):
        out = []
        for i, item in enumerate(tree):
            out.extend(flatten(item, f"{prefix}[{i}]"))
        return out
    return [(prefix, tree)]


def leaves(tree: Any, prefix: str = "out") -> Dict[str, Any]:
    return dict(flatten(tree, prefix))


def as_array(leaf: Any) -> np.ndarray:
    """A leaf as an array; Python numbers and bools become 0-d arrays."""
    return leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf)


def index_paths(tree: Any) -> List[Tuple[Any, ...]]:
    """The index path to each leaf, in flatten() order: ints into tuples/lists, field names into records."""
    fields = record_fields(tree)
    if fields is not None:
        return [(key,) + rest for key, item in fields for rest in index_paths(item)]
    if isinstance(tree, (tuple, list)):
        return [(i,) + rest for i, item in enumerate(tree) for rest in index_paths(item)]
    return [()]


def contiguous(a: Any) -> np.ndarray:
    """A C-contiguous array of the same rank (np.ascontiguousarray would turn a 0-d array into 1-d)."""
    return np.require(a, requirements="C")


def lenient(tree: Any, convert: Any, error: type) -> Any:
    """convert() each leaf of nested tuples/lists; a leaf convert() rejects with `error` becomes None."""
    if isinstance(tree, (tuple, list)):
        return [lenient(v, convert, error) for v in tree]
    try:
        return convert(tree)
    except error:
        return None
