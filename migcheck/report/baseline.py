"""What changed between two runs: items matched by id (case[check-mode-backend]), then classified.

- newly-failing: was as expected (pass, xfail, skip), now is not (fail, error, xpass)
- newly-passing: was not as expected, now is
- worse / better: as-expectedness unchanged, but more (fewer) tensor elements mismatch, or the
  worst max abs err grew (shrank) more than ERROR_FACTOR times while above NOISE of its atol
- changed: another status or failure kind on the same side of expected (pass -> skip, fail -> error)
- added / removed: in one run only
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from migcheck.judging.verdict import Verdict

CATEGORIES = ("newly-failing", "worse", "newly-passing", "better", "changed", "added", "removed")
ERROR_FACTOR = 2.0  # a max abs err must move by more than this factor to count as better or worse
NOISE = 0.1  # ... and the larger of the two must be at least this fraction of the tensor's atol


@dataclass(frozen=True)
class Change:
    item: str
    category: str  # one of CATEGORIES
    old: Optional[Verdict]
    new: Optional[Verdict]
    detail: str


@dataclass(frozen=True)
class RunDiff:
    baseline: str  # where the baseline was read from
    baseline_created: str
    changes: Tuple[Change, ...]
    unchanged: int

    def of(self, category: str) -> List[Change]:
        return [c for c in self.changes if c.category == category]

    def counts(self) -> Dict[str, int]:
        return {c: len(self.of(c)) for c in CATEGORIES}


def worst_error(v: Verdict) -> Tuple[float, float]:
    """(largest finite max abs err over the verdict's tensors, that tensor's atol); (0, 0) without any."""
    best = (0.0, 0.0)
    for t in v.tensors:
        if math.isfinite(t.max_abs_err) and t.max_abs_err > best[0]:
            best = (t.max_abs_err, t.atol)
    return best


def mismatched(v: Verdict) -> int:
    return sum(t.mismatched for t in v.tensors)


def classify(old: Verdict, new: Verdict) -> Tuple[Optional[str], str]:
    """(category or None when unchanged, detail) for one item present in both runs."""
    transition = f"{old.status} -> {new.status}"
    if old.as_expected and not new.as_expected:
        return "newly-failing", f"{transition}: {new.message}"
    if not old.as_expected and new.as_expected:
        return "newly-passing", f"{transition}: {new.message}"
    if old.status != new.status or old.kind != new.kind:
        kinds = f" ({old.kind or 'agreed'} -> {new.kind or 'agreed'})" if old.kind != new.kind else ""
        return "changed", f"{transition}{kinds}: {new.message}"
    (old_err, old_atol), (new_err, new_atol) = worst_error(old), worst_error(new)
    old_bad, new_bad = mismatched(old), mismatched(new)
    detail = f"max abs err {old_err:.3g} -> {new_err:.3g}; mismatched {old_bad} -> {new_bad}"
    if new_bad != old_bad:
        return ("worse" if new_bad > old_bad else "better"), detail
    if new_err > ERROR_FACTOR * old_err and new_err >= NOISE * new_atol:
        return "worse", detail
    if old_err > ERROR_FACTOR * new_err and old_err >= NOISE * old_atol:
        return "better", detail
    return None, detail


def diff_runs(old: Sequence[Verdict], new: Sequence[Verdict], baseline: str = "", baseline_created: str = "") -> RunDiff:
    before = {v.item: v for v in old}
    after = {v.item: v for v in new}
    changes: List[Change] = []
    unchanged = 0
    for item, v in after.items():
        was = before.get(item)
        if was is None:
            changes.append(Change(item, "added", None, v, f"new item: {v.status}: {v.message}"))
            continue
        category, detail = classify(was, v)
        if category is None:
            unchanged += 1
        else:
            changes.append(Change(item, category, was, v, detail))
    changes += [Change(item, "removed", v, None, f"was {v.status}: {v.message}")
                for item, v in before.items() if item not in after]
    order = {c: i for i, c in enumerate(CATEGORIES)}
    changes.sort(key=lambda c: order[c.category])  # stable: run order within a category
    return RunDiff(baseline, baseline_created, tuple(changes), unchanged)


_COLOURS = {"newly-failing": "31", "worse": "33", "newly-passing": "32", "better": "32", "changed": "36",
            "added": "34", "removed": "34"}


def summary_line(diff: RunDiff) -> str:
    counts = diff.counts()
    parts = [f"{counts[c]} {c.replace('-', ' ')}" for c in CATEGORIES] + [f"{diff.unchanged} unchanged"]
    return f"== against the baseline: {', '.join(parts)} =="


def render_terminal(diff: RunDiff, colour: bool = False) -> str:
    created = f" (created {diff.baseline_created})" if diff.baseline_created else ""
    lines = [f"baseline: {diff.baseline}{created}"]
    width = max(len(c) for c in CATEGORIES)
    for change in diff.changes:
        label = change.category.upper().ljust(width)
        if colour:
            label = f"\x1b[{_COLOURS[change.category]}m{label}\x1b[0m"
        lines.append(f"{label}  {change.item}  {change.detail}")
    lines.append(summary_line(diff))
    return "\n".join(lines)
