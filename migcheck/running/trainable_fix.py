"""A parameter trainable on one side only: the item re-run with the port's flag set as torch's (then set back),
so the defect's fix is printed only when that re-run agrees (localization/trainable.py words it)."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, List, Tuple

from migcheck.localization.trainable import with_trainable_defects
from migcheck.runners.probes import MindSporeProbe
from migcheck.running.outcome import Outcome


def with_trainable_fix(outcome: Outcome, mapping: Any, cell: MindSporeProbe, rerun: Callable[[], Outcome]) -> Outcome:
    pairs = tuple(mapping.trainable_mismatches)
    saved: List[Tuple[str, bool]] = []
    try:
        for t, m in pairs:
            saved.append((m.name, cell.set_requires_grad(m.name, bool(t.trainable))))
        again = rerun()
        fixed = again.kind is None and not again.structure
    except Exception:  # a flag that cannot be set, or a re-run that fails: the difference is said, no fix
        fixed = False
    finally:
        for name, flag in reversed(saved):
            cell.set_requires_grad(name, flag)
    return dataclasses.replace(outcome, localization=with_trainable_defects(outcome.localization, pairs, fixed))
