"""What each check produces, by result name: gradients by input and parameter, the state after each step."""
from __future__ import annotations

from typing import Any, Dict, Sequence

import numpy as np

from migcheck.case import optimizer_for  # noqa: F401  (re-exported)
from migcheck.runners.base import ParamInfo
from migcheck.vocab import input_grad_name, param_grad_name, step_name


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
