"""What each check produces, by result name: gradients by input and parameter, the state after each step."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.case import optimizer_for  # noqa: F401  (re-exported)
from migcheck.runners.base import ParamInfo, Side
from migcheck.vocab import input_grad_name, param_grad_name, state_name, step_name


def gradient_results(input_grads: Dict[int, np.ndarray], param_grads: Dict[str, np.ndarray],
                      order: Sequence[str]) -> Dict[str, Any]:
    results: Dict[str, Any] = {input_grad_name(order[i]): g for i, g in input_grads.items()}
    results.update({param_grad_name(name): g for name, g in param_grads.items()})
    return results


def step_results(records: Sequence[Dict[str, Any]], params: Sequence[ParamInfo]) -> Dict[str, Any]:
    results: Dict[str, Any] = {}
    for k, record in enumerate(records, start=1):
        results[step_name(k, "loss")] = record["loss"]
        for p in params:
            if p.name in record["state"]:
                results[step_name(k, "state" if p.is_buffer else "param", p.name)] = record["state"][p.name]
    return results


def _same(tree: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    return tree


@dataclass(frozen=True)
class CheckRun:
    """What one side is asked for one check, and how its names read as torch's (the same for both sides)."""

    check: str
    inputs: Tuple[np.ndarray, ...]  # network inputs, then targets
    dtypes: Tuple[str, ...]
    names: Sequence[str]  # the inputs' names, in that order
    n_net: int  # how many of them the network takes
    params: Sequence[ParamInfo]  # torch's parameters and buffers: the names results are keyed by
    objective: Any = None
    loss: Optional[Callable[[], Any]] = None
    optimizer: Any = None
    steps: int = 0
    adapt: Callable[[Any], Any] = _same
    to_torch_names: Callable[[Dict[str, np.ndarray]], Dict[str, np.ndarray]] = _same  # MindSpore: the mapping
    step_options: Mapping[str, Any] = field(default_factory=dict)  # torch: its lr schedule


def check_results(side: Side, run: CheckRun) -> Tuple[Dict[str, Any], Any, Optional[List[Tuple[str, Tuple[int, ...]]]]]:
    """One check's results from a loaded side under torch's names; the objective differentiated (a lazy one
    comes back built from the gradient pass's outputs); the output shapes a gradient pass returned, if any.
    The one dispatch per check: the torch reference and the MindSpore side both go through it."""
    network = run.inputs[:run.n_net]
    if run.check == "forward":
        return {"out": run.adapt(side.forward(network, run.dtypes, train=False))}, run.objective, None
    if run.check == "train":
        out = side.forward(network, run.dtypes, train=True)
        state = run.to_torch_names(side.state())
        buffers = {state_name(p.name): state[p.name] for p in run.params if p.is_buffer and p.name in state}
        return {"out": run.adapt(out), **buffers}, run.objective, None
    if run.check == "backward":
        grads = side.gradients(run.inputs, run.dtypes, run.objective, run.loss)
        results = gradient_results(grads.inputs, run.to_torch_names(grads.params), run.names)
        return results, grads.objective, grads.output_shapes
    records = side.steps(run.inputs, run.dtypes, run.objective, run.loss, run.optimizer, run.steps, **run.step_options)
    renamed = [{"loss": r["loss"], "state": run.to_torch_names(r["state"])} for r in records]
    return step_results(renamed, run.params), run.objective, None
