"""Numpy trees: nested tuples/lists/dicts of arrays, flattened to named leaves for comparison."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

import numpy as np


def flatten(tree: Any, prefix: str = "out") -> List[Tuple[str, Any]]:
    """(path, leaf) pairs in a stable order: 'out', 'out[0]', 'out[1].logits'."""
    if isinstance(tree, Mapping):
        out: List[Tuple[str, Any]] = []
        for key in tree:
            out.extend(flatten(tree[key], f"{prefix}.{key}" if prefix else str(key)))
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


def index_paths(tree: Any) -> List[Tuple[int, ...]]:
    """For nested tuples/lists: the index path to each leaf, in flatten() order."""
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
