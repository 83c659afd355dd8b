"""A failing item whose port holds a constant built in its constructor with other values than torch's: which
construction call's argument explains it, found by rebuilding either side with one argument changed and confirmed
by re-running the item (localization/build_constants.py pairs, proposes and words)."""
from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, List, Optional, Tuple

from migcheck.localization.build_constants import (agrees, candidates, constant_defect, differing_constants,
                                                   dtype_defect, port_call_defect, torch_call_defect, value_text)
from migcheck.localization.defect_findings import findings_of
from migcheck.localization.param_defects import with_defects
from migcheck.records.constants import BuildChange
from migcheck.running.outcome import Outcome

BUDGET_S = 20.0
MAX_REBUILDS = 40


def _kinds(torch_module: Any, network: Any, owner: str) -> Tuple[str, str]:
    t = torch_module.get_submodule(owner) if owner else torch_module
    m = dict(network.cells_and_names()).get(owner, network)
    return type(t).__name__, type(m).__name__


def with_constant_causes(outcome: Outcome, case: Any, network: Any, torch_module: Any, rerun: Callable[[], Outcome],
                         passes_with: Callable[[Callable[[], Any]], bool]) -> Outcome:
    from migcheck.runners.build_calls import built_with, library_calls
    from migcheck.runners.constants_read import (mindspore_constants, put_back_mindspore_constant,
                                                 set_mindspore_constant, torch_constants)
    from migcheck.runners.torch_build_calls import torch_build_calls, torch_built_with

    if not hasattr(network, "cells_and_names"):
        return outcome
    torch_c, ms_c = torch_constants(torch_module), mindspore_constants(network)
    diffs = differing_constants(torch_c, ms_c)
    if not diffs:
        return outcome
    started = time.perf_counter()
    kinds = _kinds(torch_module, network, diffs[0].owner)
    if all(d.dtypes for d in diffs):  # torch's values in another dtype: re-run with them in torch's dtype
        in_torchs = _with_torch_values(network, _paths(diffs), torch_c, rerun,
                                       lambda n, p, v: set_mindspore_constant(n, p, v, own_dtype=False),
                                       put_back_mindspore_constant)
        return _said(outcome, dtype_defect(diffs, kinds, in_torchs))
    diffs = [d for d in diffs if not d.dtypes]  # values first: a dtype alone is said once they agree
    paths = _paths(diffs)
    _, ms_calls = library_calls(case.mindspore)
    _, torch_calls = torch_build_calls(case.torch)
    tried: List[str] = []

    def spent() -> Tuple[float, Tuple[str, ...]]:
        return time.perf_counter() - started, tuple(tried)

    def over() -> bool:
        return len(tried) >= MAX_REBUILDS or time.perf_counter() - started > BUDGET_S

    for change in candidates(ms_calls, torch_calls):
        if over():
            break
        tried.append(f"port {change.function}({change.argument}={value_text(change.value)})")
        rebuilt = _quietly(lambda: mindspore_constants(built_with(case.mindspore, change)))
        if rebuilt is not None and all(agrees(torch_c[t], rebuilt.get(m)) for t, m in paths):
            confirmed = passes_with(_factory(built_with, case.mindspore, change))
            defect = port_call_defect(diffs, ms_calls, change, kinds, confirmed, spent())
            return _said(outcome, defect)
    replaced = _with_torch_values(network, paths, torch_c, rerun, set_mindspore_constant, put_back_mindspore_constant)
    for change in candidates(torch_calls, ms_calls):
        if over():
            break
        tried.append(f"torch {change.function}({change.argument}={value_text(change.value)})")
        rebuilt = _quietly(lambda: torch_constants(torch_built_with(case.torch, change)))
        if rebuilt is not None and all(agrees(rebuilt.get(t), ms_c[m]) for t, m in paths):
            return _said(outcome, torch_call_defect(diffs, torch_calls, change, kinds, replaced, spent()))
    return _said(outcome, constant_defect(diffs, kinds, replaced, spent()))


def _paths(diffs: List[Any]) -> List[Tuple[str, str]]:
    """(torch's path, the port's path) of each differing constant."""
    return [((f"{d.owner}." if d.owner else "") + d.torch_attr, (f"{d.owner}." if d.owner else "") + d.ms_attr)
            for d in diffs]


def _factory(built_with: Callable[..., Any], factory: Callable[[], Any], change: BuildChange) -> Callable[[], Any]:
    return lambda: built_with(factory, change)


def _quietly(read: Callable[[], Any]) -> Optional[Any]:
    try:
        return read()
    except Exception:  # a value the call refuses: not a candidate
        return None


def _with_torch_values(network: Any, paths: List[Tuple[str, str]], torch_c: dict, rerun: Callable[[], Outcome],
                       put: Callable[..., Any], put_back: Callable[..., Any]) -> bool:
    """Whether the item, re-run with torch's values in the port's constants (then put back), agrees."""
    saved = []
    try:
        for t, m in paths:
            saved.append((m, put(network, m, torch_c[t])))
        again = rerun()
        return again.kind is None and not again.structure
    except Exception:  # a constant that cannot be replaced: the difference is said, no fix
        return False
    finally:
        for m, old in reversed(saved):
            put_back(network, m, old)


def _said(outcome: Outcome, defect: Any) -> Outcome:
    """A confirmed constant leads the item's defects; an unconfirmed one follows what localization found (a
    constant that differs harmlessly must not stand before the defect that fails the item)."""
    loc = outcome.localization
    if defect.confirmed or loc is None or not loc.defects:
        said = defect.cause.split(":", 1)[0]
        return dataclasses.replace(outcome, localization=with_defects(loc, [defect], said))
    return dataclasses.replace(outcome, localization=dataclasses.replace(
        loc, defects=loc.defects + (defect,), findings=loc.findings + tuple(findings_of([defect]))))
