"""Functional ops a module's own forward calls (not its children's), as torch ran them: what sits "between
A's output and B's input" when the first divergence is inside a container. Pure: the torch runner records
the calls (a TorchFunctionMode) and the module spans; this module names them and picks those in between.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from migcheck.records.ops import OpCall  # noqa: F401  (re-exported)
from migcheck.runners.op_text import describe  # noqa: F401  (re-exported: the torch runner names calls with it)


def ops_between(ops: Sequence[OpCall], owner: str, after: int, before: int, limit: int = 8) -> List[str]:
    """The calls owner's own forward made after sequence number `after` and before `before`, in order."""
    found = [o.text for o in ops if o.owner == owner and after < o.seq < before]
    return found if len(found) <= limit else found[:limit] + [f"... {len(found) - limit} more"]


def span_of(calls: Sequence[Any], name: str, *, before: Optional[int] = None, after: Optional[int] = None,
            last: bool = False) -> Optional[Tuple[int, int]]:
    """(start, end) sequence numbers of a call of `name` (the last one ending before `before`, or the first
    one starting after `after`); None when the calls carry no spans."""
    spans = [(c.start, c.end) for c in calls if c.name == name and c.start >= 0]
    if before is not None:
        spans = [s for s in spans if s[1] < before]
    if after is not None:
        spans = [s for s in spans if s[0] > after]
    if not spans:
        return None
    return spans[-1] if last else spans[0]
