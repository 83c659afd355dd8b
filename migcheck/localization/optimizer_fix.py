"""The optimizer argument search run on the two sides (optimizer_search.py decides what to try and what agrees).

A candidate is judged over more steps than the case asks for when the case asks for few: on the first step
several rules coincide (AdaMax's first update is Adagrad's, any Adam's is lr * sign(g)), so a class that
matches one step is not yet the fix. torch is re-run for the longer horizon once; the case's own steps are
judged as the verdict judges them (against the float64 oracle where there is one), the extra ones by rtol/atol.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from migcheck.case import optimizer_for
from migcheck.localization.optimizer_search import differing_settings, search, steps_agree
from migcheck.mapping.transfer import WeightMapping, to_mindspore, to_torch
from migcheck.records.findings import Finding
from migcheck.runners.probes import MindSporeProbe, TorchProbe

HORIZON = 3  # steps a candidate must match at least


def _torch_steps(case: Any, ref: Any, module: TorchProbe, loss: Any, count: int) -> Optional[Dict[str, Any]]:
    """torch's step parameters for `count` steps ("stepK.param.X"), or None when torch cannot re-run them."""
    params = {n.split(".param.", 1)[1] for n in ref.results if n.startswith("step1.param.")}
    try:
        module.load(ref.weights)
        records = module.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, optimizer_for(case, "torch"), count,
                               schedule=getattr(case, "lr_schedule", None))
    except Exception:
        return None
    return {f"step{k + 1}.param.{name}": r["state"][name] for k, r in enumerate(records) for name in params
            if name in r["state"]}


TORCH_CLASS = "optimizer-torch-class"  # a fix putting torch's own class (mindspore.experimental.optim) in place


def with_port_fix(finding: Finding, case: Any, ref: Any, module: TorchProbe, cell: MindSporeProbe,
                  mapping: WeightMapping, tolerance_for: Callable[[str, str], Any], losses: Tuple[Any, Any],
                  torch_class: str, groups: Mapping[str, Mapping[str, Any]]) -> Finding:
    """The finding with the fix the search re-ran to agreement on the port, or with what it tried when none did."""
    optimizer = optimizer_for(case, "mindspore")
    try:
        port, others = cell.optimizer_constructor(optimizer)
    except Exception as exc:  # a factory that cannot be built twice: no search, said in the evidence
        return dataclasses.replace(finding, evidence=f"{finding.evidence}; no optimizer argument search"
                                                     f" ({type(exc).__name__}: {exc})")
    count = max(case.steps, HORIZON)
    torch_results = dict(ref.results)
    if count > case.steps:
        longer = _torch_steps(case, ref, module, losses[0], count)
        if longer is None:
            count = case.steps
        else:
            torch_results.update({k: v for k, v in longer.items() if k not in torch_results})

    def step(candidate: Any) -> List[Dict[str, Any]]:
        cell.load(to_mindspore(ref.weights, mapping))
        rebuilt = cell.rebuilt_optimizer(optimizer, candidate.class_name, dict(candidate.changes))
        records = cell.steps(ref.inputs, ref.input_dtypes, ref.objective, losses[1], rebuilt, count)
        return [{"state": to_torch(r["state"], mapping)} for r in records]

    settings = next(iter(groups.values()), {})
    fixed, tried, seconds = search(port, others, torch_class, settings, step,
                                   lambda records: steps_agree(records, torch_results, tolerance_for,
                                                               getattr(ref, "oracle", None)))
    searched = (f"optimizer argument search over {count} step(s): {len(tried)} candidate(s) in {seconds:.2f} s"
                f" ({'; '.join(tried)})")
    if fixed is None:
        held = differing_settings(port, torch_class, settings)
        said = f"; settings that differ (read off both optimizers, not confirmed): {'; '.join(held)}" if held else ""
        return dataclasses.replace(finding, cause=finding.cause + said,
                                   evidence=f"{finding.evidence}; {searched}, none re-ran to agreement")
    # torch's own class in MindSpore's place is a search result: it confirms no failure only the error budget doubts
    rule = TORCH_CLASS if fixed.candidate.class_name.startswith("experimental.") else finding.rule
    return dataclasses.replace(finding, cause=f"{finding.cause}; {fixed.cause}", fix=fixed.fix, confidence="high",
                               confirmed=True, fix_checked=True, evidence=f"{finding.evidence}; {searched}", rule=rule)


def with_group_fix(finding: Finding, case: Any, ref: Any, cell: MindSporeProbe, mapping: WeightMapping,
                   tolerance_for: Callable[[str, str], Any], loss: Any, weight_decay: float) -> Finding:
    """The weight-decay-filter finding with its fix when the port's optimizer, given every parameter in one group
    that carries the weight decay (a group's weight_decay skips no name), re-runs the case's steps to torch's."""
    optimizer = optimizer_for(case, "mindspore")
    try:
        cell.load(to_mindspore(ref.weights, mapping))
        factory = cell.rebuilt_optimizer(optimizer, "", {}, group={"weight_decay": weight_decay})
        records = [{"state": to_torch(r["state"], mapping)} for r in
                   cell.steps(ref.inputs, ref.input_dtypes, ref.objective, loss, factory, case.steps)]
    except Exception as exc:  # the port's optimizer cannot be rebuilt with groups: the finding stands unfixed
        return dataclasses.replace(finding, evidence=f"{finding.evidence}; grouped re-run failed ({type(exc).__name__})")
    if not steps_agree(records, ref.results, tolerance_for, getattr(ref, "oracle", None)):
        return dataclasses.replace(finding, evidence=f"{finding.evidence}; the grouped re-run did not agree")
    fix = (f"pass the weight decay in a parameter group: [{{'params': net.trainable_params(), 'weight_decay':"
           f" {weight_decay!r}}}] as the optimizer's params (a group's weight_decay applies to every parameter in it)")
    return dataclasses.replace(finding, fix=fix, fix_checked=True,
                               evidence=f"{finding.evidence}; re-run with every parameter in one group carrying"
                                        f" weight_decay={weight_decay!r}: the steps agree with torch's")
