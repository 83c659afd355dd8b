"""A backward (or step) pass that raised because the port's outputs are nested differently from torch's.

The objective reaches each output leaf by torch's index path (("a",) in a dict, (1, 0) in a tuple), so a port
that returns a tuple where torch returns a dict made MindSpore's grad raise its own words ("If you set has_aux
... should be multi output"). After such a raise, one forward pass of the port shows its output nesting;
when that differs from torch's, the verdict is a `tree` failure that names both, as the forward check does.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from migcheck.running.outcome import Outcome
from migcheck.util.tree import index_paths
from migcheck.vocab import Kind

Path = Tuple[Any, ...]


def describe(paths: Sequence[Path]) -> str:
    """('a',), ('b',) -> "a dict/record with fields 'a', 'b'"; (0,), (1,) -> 'a tuple of 2'; () -> 'one tensor'."""
    if list(paths) == [()]:
        return "one tensor"
    heads = list(dict.fromkeys(p[0] for p in paths if p))
    if all(isinstance(h, str) for h in heads):
        return "a dict/record with fields " + ", ".join(repr(h) for h in heads)
    return f"a tuple/list of {len(heads)}" + (" (nested)" if any(len(p) > 1 for p in paths) else "")


def structure_outcome(exc: Exception, torch_paths: Sequence[Path], ms_outputs: Any) -> Optional[Outcome]:
    """A `tree` Outcome when the port's outputs are nested differently from torch's, else None (the raise is
    the port's own error)."""
    ms_paths = index_paths(ms_outputs)
    if not torch_paths or list(ms_paths) == list(torch_paths):
        return None
    message = (f"output structure differs: torch returns {describe(torch_paths)}, MindSpore {describe(ms_paths)};"
               " the gradient check pairs each output leaf by its place in torch's output, so it could not run."
               " Fix: return the same structure from the port (or give the case a loss=FrameworkPair(...))")
    return Outcome(Kind.TREE, message, error=f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}")
