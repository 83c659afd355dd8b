"""Join the reports of several shards (`compare --shard`, `pytest --migcheck-shard`) into one report.

Reads each shard's summary.json (schema 1 or 2), checks that no item was run by two shards, and
writes the union through the ordinary report writer: summary.json, index.html and the per-case
pages, exactly as an unsharded run writes them. Numpy, stdlib and matplotlib only: no frameworks.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

from migcheck.vocab import BACKENDS, CHECKS, MODES
from migcheck.report.jsonfile import Run, read_run
from migcheck.judging.verdict import Verdict

PathLike = Union[str, Path]


def _order(v: Verdict) -> tuple:
    """A stable order for the merged report: by case file, case name, then check, mode, backend."""
    rank = lambda value, known: (known.index(value), "") if value in known else (len(known), value)  # noqa: E731
    return (v.file, v.case, rank(v.check, CHECKS), rank(v.mode, MODES), rank(v.backend, BACKENDS))


def merge_runs(runs: Sequence[Run]) -> Tuple[List[Verdict], List[str], bool]:
    """(verdicts, collection errors, partial) of the union. ValueError when two shards ran the same item."""
    where: Dict[str, Path] = {}
    verdicts: List[Verdict] = []
    for run in runs:
        for v in run.verdicts:
            if v.item in where:
                raise ValueError(f"{v.item} is in both {where[v.item]} and {run.path}: the reports overlap"
                                 " (shards of one run are --shard 1/N ... N/N with the same N and the same cases)")
            where[v.item] = run.path
            verdicts.append(v)
    # Every shard collects every file, so a broken case file is reported by each: keep one of each.
    errors = list(dict.fromkeys(e for run in runs for e in run.errors))
    return sorted(verdicts, key=_order), errors, any(run.partial for run in runs)


def merge_reports(output: PathLike, inputs: Sequence[PathLike]) -> Tuple[Path, List[Verdict], List[str], bool]:
    """Read the shard reports (folders or their summary.json), write the merged report to output."""
    from migcheck.report import write_report

    runs = [read_run(Path(p)) for p in inputs]
    verdicts, errors, partial = merge_runs(runs)
    root = write_report(output, verdicts, errors, partial=partial)
    return root, verdicts, errors, partial
