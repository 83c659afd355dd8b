"""Which items a run holds: case x check x mode x backend, and which of them one shard runs.

Pure and light (no numpy, no frameworks): `migcheck list` plans from the discovery cache with it,
without importing case files or the engine. migcheck.running.pipeline re-exports Item, effective_checks and plan.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, List, Sequence, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from migcheck.case import PairedCase

# Re-exported from the vocabulary (light: `migcheck --help` needs no numpy).
from migcheck.vocab import item_id


@dataclass(frozen=True)
class Item:
    case: "PairedCase"
    check: str
    mode: str
    backend: str

    @property
    def id(self) -> str:
        return item_id(self.case.name, self.check, self.mode, self.backend)


def effective_checks(case: "PairedCase") -> Tuple[str, ...]:
    """The case's own checks, or the defaults: forward, backward, train, and step with an optimizer."""
    if case.checks is not None:
        return tuple(case.checks)
    return ("forward", "backward", "train") + (("step",) if case.optimizer is not None else ())


def plan(cases: Sequence["PairedCase"], options: Any) -> List[Item]:
    """Every case x check x mode x backend, in a stable order (options: checks, modes, backends)."""
    items = []
    for case in cases:
        checks = [c for c in effective_checks(case) if options.checks is None or c in options.checks]
        if options.checks is not None and "init" in options.checks and "init" not in checks:
            checks.append("init")  # opt-in for every case: --check init
        for check in checks:
            for mode in options.modes:
                for backend in options.backends:
                    items.append(Item(case, check, mode, backend))
    return items


# ------------------------------------------------------------------------------------------ shards
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> Tuple[int, int]:
    """'2/4' -> (2, 4): the second of four shards (1-based). ValueError with the fix otherwise."""
    m = _SHARD.match(text or "")
    if not m:
        raise ValueError(f"shard {text!r} is not I/N (e.g. 1/4: the first of four shards)")
    index, count = int(m.group(1)), int(m.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"shard {text!r}: I must be between 1 and N, and N at least 1 (e.g. 1/4 ... 4/4)")
    return index, count


def shard_of(case_name: str, count: int) -> int:
    """The shard (1-based) that runs every item of this case, out of count.

    A hash of the case name alone (sha256, not Python's salted hash()), so it is the same on every
    machine and Python version, and adding or removing another case never moves this one. All items
    of a case stay together: they share the torch reference, computed once per process.
    """
    digest = hashlib.sha256(case_name.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def in_shard(case_name: str, shard: Tuple[int, int]) -> bool:
    index, count = shard
    return shard_of(case_name, count) == index
