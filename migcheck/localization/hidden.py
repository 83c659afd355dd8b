"""Causes that show in state or gradients, not in outputs, confirmed by a counterfactual re-run.

A BatchNorm momentum copied verbatim leaves every output equal and only the running statistics wrong;
an Embedding without padding_idx gives the same lookup and a different gradient. The setting that differs
is read off the correspondence table as for any layer; it becomes a confirmed cause only when torch's
layer, re-run with MindSpore's value, reproduces MindSpore's tensor where the failure showed:
- state: torch's layer from the initial weights, one train-mode forward on its recorded inputs, gives
  MindSpore's running statistics (MindSpore's after its own train-mode forward from the same weights);
- gradients: the network's gradients with torch's layer changed give MindSpore's gradients of that layer.
No framework import: `module` and `cell` are the runners' objects.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.correspondence import Difference
from migcheck.localization.dataflow import close
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]


def _layer_values(values: Mapping[str, np.ndarray], layer: str) -> Dict[str, np.ndarray]:
    prefix = f"{layer}." if layer else ""
    return {k[len(prefix):]: v for k, v in values.items() if k.startswith(prefix) and "." not in k[len(prefix):]}


def _all_close(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray], tol_for: TolFor) -> Optional[bool]:
    """Every tensor both hold agrees; None when they share no float tensor (nothing to judge)."""
    keys = [k for k in got if k in want and np.asarray(got[k]).dtype.kind == "f" and np.shape(got[k]) == np.shape(want[k])]
    if not keys:
        return None
    return all(close(np.asarray(got[k]), np.asarray(want[k]), *tol_for(str(np.asarray(got[k]).dtype))) for k in keys)


def confirm_state(module: TorchProbe, torch_name: str, diff: Difference, inputs: Sequence[np.ndarray],
                  initial: Mapping[str, np.ndarray], ms_state: Mapping[str, np.ndarray], tol_for: TolFor) -> bool:
    """torch's layer with MindSpore's value, one train-mode forward from the initial weights, gives MindSpore's
    state; with its own value it does not (so the setting, not something else, explains the state)."""
    from migcheck.runners.torch_replay import state_after

    start, want = _layer_values(initial, torch_name), _layer_values(ms_state, torch_name)
    try:
        patched = state_after(module, torch_name, inputs, {diff.torch_attr: diff.ms_as_torch}, start)
        plain = state_after(module, torch_name, inputs, {}, start)
    except Exception:  # a layer that cannot run alone, or a value it refuses: not confirmable
        return False
    return bool(_all_close(patched, want, tol_for)) and _all_close(plain, want, tol_for) is False


def state_fix_agrees(module: TorchProbe, cell: MindSporeProbe, torch_name: str, ms_name: str, diff: Difference,
                     inputs: Sequence[np.ndarray], initial: Mapping[str, np.ndarray], leaf_names: Mapping[str, str],
                     tol_for: TolFor) -> bool:
    """The fix checked on the port: MindSpore's layer rebuilt with `diff.ms_fix`, from the initial weights (the
    caller loads them), one train-mode forward on torch's recorded inputs, gives torch's own state after the
    same forward. leaf_names: MindSpore leaf -> torch leaf (moving_mean -> running_mean)."""
    from migcheck.runners.torch_replay import state_after

    try:
        want = state_after(module, torch_name, inputs, {}, _layer_values(initial, torch_name))
        got = cell.rerun_rebuilt(ms_name, list(inputs), {diff.ms_attr: diff.ms_fix}, train=True, state=True)
    except Exception:  # the layer cannot be rebuilt or run alone: the fix stays unchecked
        return False
    renamed = {leaf_names[k]: v for k, v in got.items() if k in leaf_names}
    return bool(_all_close(renamed, want, tol_for))


def confirm_gradient(module: TorchProbe, torch_name: str, diff: Difference, ms_grads: Mapping[str, np.ndarray],
                     gradient_args: Sequence[Any], tol_for: TolFor) -> bool:
    """The network's gradients with torch's layer given MindSpore's value equal MindSpore's gradients of
    that layer's parameters (already in torch's names)."""
    from migcheck.runners.torch_replay import gradients_patched

    try:
        grads = gradients_patched(module, torch_name, {diff.torch_attr: diff.ms_as_torch}, *gradient_args)
    except Exception:  # a value torch's layer cannot take: not confirmable
        return False
    return bool(_all_close(_layer_values(grads.params, torch_name), _layer_values(ms_grads, torch_name), tol_for))
