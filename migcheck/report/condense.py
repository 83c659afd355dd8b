"""What the pages show of a big verdict, sized by what a person reads (issue 26).

A real net's backward verdict has hundreds of failing gradients, sub-cells and weight pairs. The pages keep
every tensor's metrics row, but write prose, first mismatches and plots only for the telling tensors (those
the comparator kept an error sample or mismatches for: migcheck.judging.error_sample.keep_detail), fold runs
of like sub-cell rows into one line, and list weights paired by their own name and shape as names only.
Small tables are shown whole: nothing here applies below FOLD_FROM rows. Pure functions of the verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

FOLD_FROM = 16  # tables with fewer rows are shown row by row
RUN_FROM = 4  # consecutive like rows folded into one line
MEASURED = ("value", "nonfinite")


def detailed(tensors: Sequence[Any]) -> Tuple[List[Any], int]:
    """(failing tensors shown with their message, mismatches and plot; how many more failing ones are in the
    metrics table only). A tensor whose failure has no values (shape, dtype, ...) is always shown: its message
    is all there is. A report without kept detail (before schema 4) shows every failing tensor."""
    failing = [t for t in tensors if not t.ok]
    kept = [t for t in failing if t.error_sample is not None or t.first_mismatches or t.kind not in MEASURED]
    if not any(t.error_sample is not None or t.first_mismatches for t in failing) or len(failing) < FOLD_FROM:
        return failing, 0
    return kept, len(failing) - len(kept)


def shared_tolerance(tensors: Sequence[Any]) -> Optional[str]:
    """'rtol X, atol Y (source)' when every tensor of a big table was judged alike (the column is then left
    out and this said once); None otherwise."""
    if len(tensors) < FOLD_FROM:
        return None
    if any(getattr(t, "oracle_err_ms", None) is not None for t in tensors):  # each shows its own two errors
        return None
    kinds = {(t.rtol, t.atol, t.tolerance_source) for t in tensors}
    if len(kinds) != 1:
        return None
    rtol, atol, source = kinds.pop()
    return f"rtol {rtol:g}, atol {atol:g} ({source or 'default'})"


def shared_source(tensors: Sequence[Any]) -> Optional[str]:
    """The tolerance source every tensor of a big table shares (the error budget's description), said once above
    the table instead of in each row's tolerance cell; None when they differ or the table is small."""
    if len(tensors) < FOLD_FROM:
        return None
    sources = {t.tolerance_source or "default" for t in tensors}
    return sources.pop() if len(sources) == 1 else None


@dataclass(frozen=True)
class Fold:
    """Consecutive sub-cell rows alike in every flag, none of them the first divergence or unpaired."""

    rows: Tuple[Any, ...]

    @property
    def first(self) -> Any:
        return self.rows[0]

    @property
    def last(self) -> Any:
        return self.rows[-1]

    @property
    def what(self) -> str:
        r = self.first
        if r.inputs_ok and r.outputs_ok:
            return "agree"
        if r.outputs_ok is False and r.isolated_ok:
            return "differ only through their inputs: alone, on torch's inputs, each agrees"
        word = {True: "agree", False: "differ", None: "not compared"}
        return f"inputs {word[r.inputs_ok]}, outputs {word[r.outputs_ok]}, alone {word[r.isolated_ok]}"

    @property
    def error_range(self) -> Tuple[float, float]:
        errs = [r.max_abs_err for r in self.rows if r.max_abs_err is not None]
        return (min(errs), max(errs)) if errs else (0.0, 0.0)


def _flags(row: Any) -> Tuple[Any, ...]:
    return (row.inputs_ok, row.outputs_ok, row.isolated_ok)


def folded_rows(localization: Any) -> List[Union[Any, Fold]]:
    """The localization table's rows, with runs of RUN_FROM or more like rows folded (tables of FOLD_FROM or more
    rows only). Never folded: the first divergence, a row that is wrong on its own, an unpaired row."""
    rows = list(localization.rows)
    if len(rows) < FOLD_FROM:
        return rows

    def plain(r: Any) -> bool:
        return bool(r.ms_kind) and r.isolated_ok is not False and not (
            r.torch_name == localization.first_divergence and r.ms_name)

    out: List[Union[Any, Fold]] = []
    run: List[Any] = []

    def flush() -> None:
        out.extend([Fold(tuple(run))] if len(run) >= RUN_FROM else run)
        run.clear()

    for r in rows:
        if plain(r) and (not run or _flags(run[-1]) == _flags(r)):
            run.append(r)
            continue
        flush()
        (run.append(r) if plain(r) else out.append(r))
    flush()
    return out


def pair_groups(mapping: Sequence[Any]) -> Tuple[List[Any], List[Tuple[str, List[Any]]]]:
    """(pairs shown as table rows, [(how, pairs)] listed compactly: the pairs of one pairing rule, each with the
    same shape on both sides and no transform, RUN_FROM or more of them). Mappings under FOLD_FROM pairs are
    shown whole."""
    if len(mapping) < FOLD_FROM:
        return list(mapping), []
    groups: Dict[str, List[Any]] = {}
    for p in mapping:
        if not p.transform and tuple(p.torch_shape) == tuple(p.ms_shape):
            groups.setdefault(p.how, []).append(p)
    groups = {how: pairs for how, pairs in groups.items() if len(pairs) >= RUN_FROM}
    listed = {id(p) for pairs in groups.values() for p in pairs}
    return [p for p in mapping if id(p) not in listed], list(groups.items())


def renamed_suffix(pairs: Sequence[Any]) -> Optional[Tuple[str, str]]:
    """(torch suffix, MindSpore suffix) when every pair of a listed group is `<layer>.<torch suffix>` ->
    `<layer>.<MindSpore suffix>` (a BatchNorm rule: `bn1.running_mean` -> `bn1.moving_mean`): the list then names
    each layer once and says the two suffixes once, which spells every pair's two names; None otherwise."""
    found = set()
    for p in pairs:
        t_layer, _, t_leaf = p.torch_name.rpartition(".")
        m_layer, _, m_leaf = p.ms_name.rpartition(".")
        if not t_layer or t_layer != m_layer or t_leaf == m_leaf:
            return None
        found.add((t_leaf, m_leaf))
    return found.pop() if len(found) == 1 else None


def layer_of(name: str) -> str:
    return name.rpartition(".")[0]


def shown_rows(localization: Any) -> Tuple[Any, ...]:
    """What the localization table shows of each row (names, kinds, flags, the error to 3 digits)."""
    return tuple((r.order, r.torch_name, r.torch_kind, r.ms_name, r.ms_kind, r.inputs_ok, r.outputs_ok, r.isolated_ok,
                  f"{r.max_abs_err:.3g}" if r.max_abs_err is not None else None) for r in localization.rows)


def same_table_as(verdict: Any, verdicts: Sequence[Any]) -> Optional[Any]:
    """An earlier verdict of the page whose sub-cell table shows exactly what this one's would (a backward check
    localizes the same forward pass): the page then points to it instead of repeating a big table."""
    loc = verdict.localization
    if loc is None or len(loc.rows) < FOLD_FROM:
        return None
    mine = shown_rows(loc)
    for other in verdicts:
        if other is verdict:
            return None
        if other.localization is not None and other.localization.first_divergence == loc.first_divergence \
                and shown_rows(other.localization) == mine:
            return other
    return None
