"""The torch side of an item: seeded inputs and weights, torch's results, and the float64 oracle.

Computed once per process per case, check and device, and reused by every mode and backend; or read
from golden fixtures (options.golden), in which case torch is never imported.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from migcheck.case import PairedCase
from migcheck.golden.store import RecordedSkip
from migcheck.options import RunOptions
from migcheck.runners.probes import TorchProbe
from migcheck.running.outcome import mode_and_reason
from migcheck.precision import apply_precision
from migcheck.runners.base import LazyObjective, Objective, ParamInfo, Side
from migcheck.running.checks import CheckRun, check_results, optimizer_for
from migcheck.running.fixtures import make_inputs, make_weights
from migcheck.running.objective import make_cotangents, output_layout_problem
from migcheck.util.tree import index_paths


class SkipCheck(Exception):
    """This check cannot apply to this case; the message says why (shown as the skip reason)."""


@dataclass(frozen=True)
class Reference:
    """Everything the torch side produced for one case and check; plain numpy, so it can be stored.

    ``results`` maps tensor names ('out', 'grad.param.fc.weight', 'step1.loss') to numpy trees;
    the MindSpore side produces the same names through the weight mapping.
    """

    inputs: Tuple[np.ndarray, ...]  # network inputs first, then loss targets
    input_names: Tuple[str, ...]
    input_dtypes: Tuple[str, ...]
    params: Tuple[ParamInfo, ...]
    weights: Dict[str, np.ndarray]
    results: Dict[str, Any]
    objective: Optional[Objective] = None
    # The same results computed in float64 from the same inputs, weights and cotangents: the
    # oracle of error-budget mode. None unless that mode asked for it.
    oracle: Optional[Dict[str, Any]] = None
    oracle_note: str = ""  # why there is no oracle where the default judge wanted one


# Keyed by the case object itself, not its name: two cases may share a name (scripts passing PairedCase
# objects, unnamed cases numbered per run). The value keeps the case alive, so its id is never reused.
_REFERENCES: Dict[Tuple[int, str, str], Tuple[Any, Reference]] = {}
_ORACLES: Dict[Tuple[int, str, str], Tuple[Any, Dict[str, Any]]] = {}


def reference(case: PairedCase, check: str, options: RunOptions = RunOptions()) -> Tuple[Reference, str]:
    """The seam between the two reference sources: golden fixtures (options.golden) or torch run here.

    Returns the reference and a line saying where it came from. Golden mode never imports torch.
    """
    mode, why = mode_and_reason(case, options)
    budget = mode == "budget"
    if options.golden:
        from migcheck.golden.fingerprint import case_fingerprint
        from migcheck.golden.store import load_check
        from migcheck.golden.hints import record_hint

        fingerprint, parts = case_fingerprint(case)
        try:
            loaded = load_check(options.golden, case.name, check, fingerprint, parts,
                                need_oracle=budget and why != "default",
                                record_hint=record_hint(case, options.golden))
        except RecordedSkip as skip:
            raise SkipCheck(f"{skip} (recorded with the golden)") from None
        return Reference(**loaded.fields), loaded.description
    from migcheck.running.torch_cache import torch_version

    if options.torch_device == "cpu":  # known without importing torch: a cached reference never imports it
        device = "cpu"
    else:
        from migcheck.runners.torch_side import resolve_device

        device = resolve_device(options.torch_device)
    ref = torch_reference(case, check, device=device, cache=options.torch_cache)
    if budget:
        try:
            ref = dataclasses.replace(ref, oracle=torch_oracle(case, check, device=device, cache=options.torch_cache))
        except SkipCheck:
            raise
        except Exception as exc:
            if why != "default":  # asked for by name: it cannot be had, so say so as the error
                raise RuntimeError(f"the float64 oracle of error-budget mode could not run: {type(exc).__name__}:"
                                   f" {exc}") from exc
            first = (str(exc).strip().splitlines() or [""])[0][:200]
            ref = dataclasses.replace(ref, oracle_note=f"the float64 re-run of torch failed ({type(exc).__name__}:"
                                                       f" {first})")
    return ref, f"torch {torch_version()} on {device}"


def oracle_for(case: PairedCase, check: str, options: RunOptions) -> Optional[Dict[str, Any]]:
    """The float64 oracle of an item's torch side, or None in golden mode without a recorded one."""
    if options.golden:
        return None
    if options.torch_device == "cpu":
        device = "cpu"
    else:
        from migcheck.runners.torch_side import resolve_device

        device = resolve_device(options.torch_device)
    return torch_oracle(case, check, device=device, cache=options.torch_cache)


def torch_reference(case: PairedCase, check: str, device: str = "cpu", cache: Optional[str] = None) -> Reference:
    """The torch side's results, computed once per process and reused by every mode and backend;
    with cache (a folder), kept on disk across runs under the case's torch fingerprint."""
    key = (id(case), check, device)
    if key not in _REFERENCES:
        _REFERENCES[key] = (case, _cached(cache, case, check, device, "reference",
                                          lambda: _compute_reference(case, check, device), Reference))
    return _REFERENCES[key][1]


def torch_oracle(case: PairedCase, check: str, device: str = "cpu", cache: Optional[str] = None) -> Dict[str, Any]:
    """torch_reference's results recomputed in float64: same inputs, weights and cotangents, widened."""
    key = (id(case), check, device)
    if key not in _ORACLES:
        _ORACLES[key] = (case, _cached(cache, case, check, device, "oracle",
                                       lambda: _compute_oracle(case, check, device, cache), None))
    return _ORACLES[key][1]


def _cached(cache: Optional[str], case: PairedCase, check: str, device: str, part: str, compute: Callable[[], Any],
            kind: Optional[type]) -> Any:
    """compute(), or what an earlier run stored for the same torch fingerprint (migcheck.running.torch_cache).
    An oracle is stored as a reference whose results are the oracle's."""
    if cache is None:
        return compute()
    from migcheck.running import torch_cache

    entry = torch_cache.entry_key(case, check, device, part)
    fields = torch_cache.load(cache, entry)
    if fields is not None:
        return Reference(**fields) if kind is Reference else fields["results"]
    value = compute()
    if kind is Reference:
        stored = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    else:
        stored = {"inputs": (), "input_names": (), "input_dtypes": (), "params": (), "weights": {}, "results": value}
    torch_cache.store(cache, entry, stored)
    return value


def _compute_oracle(case: PairedCase, check: str, device: str, cache: Optional[str] = None) -> Dict[str, Any]:
    from migcheck.runners.torch_side import TorchModule

    ref = torch_reference(case, check, device=device, cache=cache)
    module = TorchModule(case.torch, device, case.network_inputs)
    module.load(ref.weights)
    module.to_float64()
    n_net = len(ref.input_names) - len(case.targets)
    results, _ = _torch_results(case, check, module, ref.inputs, ref.input_dtypes, ref.input_names, n_net, ref.params,
                                ref.objective)
    return results


def _torch_results(case: PairedCase, check: str, module: Side, inputs: Tuple[np.ndarray, ...],
                   dtypes: Tuple[str, ...], order: Sequence[str], n_net: int, params: Tuple[ParamInfo, ...],
                   objective: Any) -> Tuple[Dict[str, Any], Optional[Objective]]:
    """One check's results from a loaded torch module (the reference and its float64 oracle share it),
    and the objective differentiated (a LazyObjective comes back built from the gradient pass's outputs)."""
    results, differentiated, _ = check_results(module, CheckRun(
        check, inputs, dtypes, order, n_net, params, objective, case.loss.torch if case.loss else None,
        optimizer_for(case, "torch") if check == "step" else None, case.steps, case.adapt_torch or _same,
        step_options={"schedule": getattr(case, "lr_schedule", None)}))
    return results, differentiated


def _same(out: Any) -> Any:
    return out


def _compute_reference(case: PairedCase, check: str, device: str = "cpu") -> Reference:
    from migcheck.runners.torch_side import TorchModule

    if check == "init":
        raise SkipCheck("the init check builds both sides fresh under several seeds; it has no torch reference to record")

    specs = dict(case.input_specs)
    order = [n for n in specs if n not in case.targets] + list(case.targets)
    drawn = make_inputs(case.name, list(specs.items()))
    inputs = tuple(drawn[n] for n in order)
    dtypes = tuple(specs[n].dtype for n in order)
    n_net = len(order) - len(case.targets)
    module = TorchModule(case.torch, device, case.network_inputs)
    params = tuple(module.params())
    weights = make_weights(params, case_name=case.name, fill=case.weights, built=module.state())
    module.load(weights)
    apply_precision(case.precision, module)
    objective = None if check in ("forward", "train") else _objective(case, module, inputs, dtypes, n_net,
                                                                       lazy=check == "backward")
    results, objective = _torch_results(case, check, module, inputs, dtypes, order, n_net, params, objective)
    return Reference(inputs, tuple(order), dtypes, params, weights, results, objective)


def _objective(case: PairedCase, module: TorchProbe, inputs: Tuple[np.ndarray, ...], dtypes: Tuple[str, ...], n_net: int,
               lazy: bool = False) -> Union[Objective, LazyObjective]:
    """lazy: the cotangents are shaped by the gradient pass's own outputs (no extra forward pass)."""
    if case.loss is not None:
        return Objective(n_net, ())
    if case.adapt_torch is not None or case.adapt_mindspore is not None:
        raise SkipCheck("output adapters are numpy functions, so gradients through them cannot be paired;"
                        " give the case a loss=FrameworkPair(...) to differentiate instead")
    if lazy:
        return LazyObjective(n_net, functools.partial(_objective_from_outputs, case, n_net))
    return _objective_from_outputs(case, n_net, module.forward(inputs[:n_net], dtypes, train=False))


def _objective_from_outputs(case: PairedCase, n_net: int, raw: Any) -> Objective:
    """Seeded cotangents for the network's outputs (only their structure, shapes and dtypes count)."""
    problem = output_layout_problem(raw)
    if problem:
        raise SkipCheck(problem + "; give the case a loss=FrameworkPair(...) that reduces it to a scalar")
    cotangents, notes = make_cotangents(case.name, raw)
    if cotangents and all(c is None for c in cotangents):  # a constant objective: torch.autograd would raise
        raise SkipCheck("every output is an integer or boolean tensor, so there is nothing to differentiate and"
                        " backward is skipped; give the case a loss=FrameworkPair(...) or checks=('forward',)")
    return Objective(n_net, cotangents, notes, tuple(index_paths(raw)))
