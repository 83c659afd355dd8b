"""Parameters that differ in kind from torch's: trainable on one side only, or held in another dtype. The item is
re-run with the port's parameter set as torch's (then set back), so a defect's fix is printed only when that
re-run agrees (localization/param_defects.py words them)."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, List, Optional, Tuple

from migcheck.localization.param_defects import dtype_defect, with_defects, with_trainable_defects
from migcheck.runners.probes import MindSporeProbe, TorchProbe
from migcheck.running.outcome import Outcome


def with_trainable_fix(outcome: Outcome, mapping: Any, cell: MindSporeProbe, rerun: Callable[[], Outcome]) -> Outcome:
    pairs = tuple(mapping.trainable_mismatches)
    fixed = _rerun_with(pairs, lambda t, m: cell.set_requires_grad(m.name, bool(t.trainable)),
                        lambda m, old: cell.set_requires_grad(m.name, old), rerun)
    return dataclasses.replace(outcome, localization=with_trainable_defects(outcome.localization, pairs, fixed))


def with_dtype_fix(outcome: Outcome, mapping: Any, cell: MindSporeProbe, rerun: Callable[[], Outcome]) -> Outcome:
    """Only for a failing item: a parameter in another dtype that the check does not mind is no defect."""
    pairs = tuple(mapping.dtype_mismatches)
    if not pairs or outcome.kind is None:
        return outcome
    fixed = _rerun_with(pairs, lambda t, m: cell.set_parameter_dtype(m.name, t.dtype),
                        lambda m, old: cell.set_parameter_dtype(m.name, old), rerun)
    defects = [dtype_defect(t, m, fixed) for t, m in pairs]
    said = "; ".join(f"parameter '{m.name}' is {m.dtype} where torch's is {t.dtype}" for t, m in pairs)
    return dataclasses.replace(outcome, localization=with_defects(outcome.localization, defects, said))


def with_rerun_causes(outcome: Outcome, case: Any, mapping: Any, cell: MindSporeProbe,
                      torch_side: Callable[[], TorchProbe], weights: Any, rerun: Callable[[], Outcome],
                      passes_with: Callable[[Callable[[], Any]], bool]) -> Outcome:
    """Every difference found by reading both networks and confirmed by re-running the item: a constant built with
    other values than torch's (constant_fixes.py), a parameter torch ties or leaves unset, one trainable on one side
    only, one held in another dtype."""
    module = torch_side() if outcome.kind is not None or mapping.unset_ms else None  # built once, for both
    if outcome.kind is not None:
        from migcheck.running.constant_fixes import with_constant_causes
        outcome = with_constant_causes(outcome, case, cell.cell, module.module, rerun, passes_with)
    if mapping.unset_ms:
        outcome = with_unset_causes(outcome, mapping, module, cell, weights, rerun)
    if mapping.trainable_mismatches:
        outcome = with_trainable_fix(outcome, mapping, cell, rerun)
    if mapping.dtype_mismatches and case.precision is None:  # a mixed-precision case holds narrower parameters by design
        outcome = with_dtype_fix(outcome, mapping, cell, rerun)
    return outcome


def _rerun_with(pairs: Tuple[Tuple[Any, Any], ...], apply: Callable[[Any, Any], Any], undo: Callable[[Any, Any], Any],
                rerun: Callable[[], Outcome]) -> bool:
    """Whether the item, re-run with every pair's change applied (then undone), agrees."""
    saved: List[Tuple[Any, Any]] = []
    try:
        for t, m in pairs:
            saved.append((m, apply(t, m)))
        again = rerun()
        return again.kind is None and not again.structure
    except Exception:  # a setting that cannot be applied, or a re-run that fails: the difference is said, no fix
        return False
    finally:
        for m, old in reversed(saved):
            undo(m, old)


def with_unset_causes(outcome: Outcome, mapping: Any, module: Optional[TorchProbe], cell: MindSporeProbe,
                      weights: Any, rerun: Callable[[], Outcome]) -> Outcome:
    """Parameters of the port's that no torch parameter sets, explained where torch ties the tensor to another name
    (re-run with it holding torch's tensor) or builds its layer without them (localization/unset_params.py)."""
    from migcheck.localization.unset_params import built_without, by_owner, tied_defect, tied_pairs

    tied = tied_pairs(mapping.torch_params, mapping.unset_ms)
    defects = []
    for t, m in tied:
        value = weights.get(t.name) if hasattr(weights, "get") else None
        fixed = value is not None and _rerun_with(((t, m),), lambda _t, _m: cell.set_parameter_value(_m.name, value),
                                                  lambda _m, old: cell.set_parameter_value(_m.name, old), rerun)
        defects.append(tied_defect(t, m, fixed))
    done = {m.name for _, m in tied}
    for owner, unset in by_owner([m for m in mapping.unset_ms if m.name not in done]).items():
        found = built_without(module, owner, unset) if module is not None else None
        defects += [found] if found is not None else []
    if not defects:
        return outcome
    said = "; ".join(d.cause.split(":", 1)[0] for d in defects)
    return dataclasses.replace(outcome, localization=with_defects(outcome.localization, defects, said))

