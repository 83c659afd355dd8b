"""One recorded MindSpore call's arguments as an OpChange asks for them in a re-run: values set by name or
position, tensors cast, moved, clamped, negated, detached or reordered (the op-level counterfactual)."""
from __future__ import annotations

from typing import Any, Tuple

import mindspore as ms
import numpy as np

from migcheck.records.ops import OpChange, finite_bound, nudged
from migcheck.runners.mindspore_module import ms_dtype


def _nudged(a: Any, step: float) -> Any:
    if isinstance(a, ms.Tensor) and ms.ops.is_floating_point(a):
        return ms.Tensor(nudged(a.asnumpy(), step))
    return a


def changed_arguments(change: OpChange, names: Tuple[str, ...], args: tuple, kwargs: dict) -> Tuple[tuple, dict]:
    """The arguments one recorded call is made with in a re-run that changes it (records.ops.OpChange)."""
    args, kwargs = list(args), dict(kwargs)
    if change.order:
        args = [args[i] for i in change.order]
    for name, value in change.arguments:
        if name in names and names.index(name) < len(args):
            args[names.index(name)] = value
        else:
            kwargs[name] = value
    for position, value in change.positions:
        args[position] = value
    if change.dtype_keyword:
        kwargs["dtype"] = ms_dtype(change.dtype_keyword)
    for position, factor in change.scale_input:  # a torch keyword the function lacks (index_add's alpha)
        args[position] = args[position] * factor
    for position, epsilon in change.offset_input:  # an epsilon that keeps 0 / 0 finite
        args[position] = args[position] + epsilon
    if change.nan_rule in ("largest", "smallest"):  # NaN ranked as torch ranks it
        args, kwargs = ranked_nan(args, kwargs, change.nan_rule)
    if change.finite:  # finite stand-ins no sum over the tensor can overflow
        args = [ms.ops.clamp(a, -finite_bound(a.size), finite_bound(a.size))
                if isinstance(a, ms.Tensor) and ms.ops.is_floating_point(a) else a for a in args]
    if change.nudge:  # every float tensor moved off exact ties, as torch's re-run moves its own
        args, kwargs = [_nudged(a, change.nudge) for a in args], {k: _nudged(v, change.nudge) for k, v in kwargs.items()}
    for position, order in change.reorder:  # a tuple of tensors joined in another order
        args[position] = type(args[position])(args[position][i] for i in order)
    for k, j in change.minus:  # computed on this run's own values: it holds for any input shape
        args[k] = tuple(a - b for a, b in zip(args[k], args[j]))
    for where in change.as_tensor:  # a number or tuple of numbers the function wants as a Tensor
        if isinstance(where, int):
            args[where] = ms.Tensor(args[where])
        elif where in kwargs:
            kwargs[where] = ms.Tensor(kwargs[where])
    for position in change.negate:
        args[position] = ms.ops.logical_not(args[position])
    for position in change.stop:
        args[position] = ms.ops.stop_gradient(args[position])
    for position in change.transpose:
        args[position] = ms.ops.swapaxes(args[position], -2, -1)
    tensor_at = [i for i, a in enumerate(args) if isinstance(a, ms.Tensor)]
    if change.flatten and tensor_at:
        args[tensor_at[0]] = args[tensor_at[0]].reshape(-1)
    if change.swap_axes and tensor_at:
        args[tensor_at[0]] = ms.ops.swapaxes(args[tensor_at[0]], *change.swap_axes)
    for position, dtype in change.cast:
        args[position] = args[position].astype(ms_dtype(dtype))
    return tuple(args), kwargs


def sorted_results(out: Any, descending: bool) -> Any:
    """A result tuple whose first tensor is sorted (OpChange.sort_out): results of its length permuted alike
    (counts), integer results indexing into it (inverse indices) mapped through the order."""
    results = list(out) if isinstance(out, (tuple, list)) else [out]
    values = results[0]
    _, order = ms.ops.sort(values.astype(ms.float32), descending=descending)
    rank = ms.ops.sort(order.astype(ms.float32))[1]  # the new position of each old one
    new = [ms.ops.gather(values, order, 0)]
    for r in results[1:]:
        if isinstance(r, ms.Tensor) and r.shape == values.shape:
            new.append(ms.ops.gather(r, order, 0))
        elif isinstance(r, ms.Tensor) and not ms.ops.is_floating_point(r):
            new.append(ms.ops.gather(rank, r.astype(ms.int32), 0).astype(r.dtype))
        else:
            new.append(r)
    return type(out)(new) if isinstance(out, (tuple, list)) else new[0]


def ranked_nan(args: list, kwargs: dict, rule: str) -> Tuple[list, dict]:
    """NaN in the float tensor arguments handed over as +inf ("largest") or -inf ("smallest")."""
    fill = float("inf") if rule == "largest" else float("-inf")

    def swap(a: Any) -> Any:
        if isinstance(a, ms.Tensor) and ms.ops.is_floating_point(a):
            return ms.ops.where(ms.ops.isnan(a), ms.ops.full_like(a, fill), a)
        return a
    return [swap(a) for a in args], {k: swap(v) for k, v in kwargs.items()}


def nan_results(out: Any, call_args: tuple, kwargs: dict, rule: str) -> Any:
    """The results of a call under a NaN rule: where an input the result is computed from is NaN, NaN
    ("propagate"; elementwise by broadcasting, a reduction by any NaN in the slice reduced); the +-inf a ranked NaN
    came back as, NaN again ("largest", "smallest": only where the inputs held no such infinity)."""
    floats = [a for a in list(call_args) + list(kwargs.values())
              if isinstance(a, ms.Tensor) and ms.ops.is_floating_point(a)]
    results = list(out) if isinstance(out, (tuple, list)) else [out]
    nan = float("nan")
    kept = []
    for r in results:
        if not isinstance(r, ms.Tensor) or not ms.ops.is_floating_point(r):
            kept.append(r)
            continue
        if rule == "propagate":
            mask = _nan_mask(floats, tuple(r.shape))
            kept.append(r if mask is None else ms.ops.where(mask, ms.ops.full_like(r, nan), r))
            continue
        fill = float("inf") if rule == "largest" else float("-inf")
        if any(bool((a == fill).any()) for a in floats):
            kept.append(r)
        else:
            kept.append(ms.ops.where(r == fill, ms.ops.full_like(r, nan), r))
    return type(out)(kept) if isinstance(out, (tuple, list)) else kept[0]


def _nan_mask(floats: list, shape: tuple) -> Any:
    """Where the result of this shape is computed from a NaN: inputs broadcast to it, or reduced over one axis."""
    mask = None
    for a in floats:
        isnan = ms.ops.isnan(a)
        got = None
        try:
            got = ms.ops.broadcast_to(isnan, shape) if tuple(a.shape) != shape else isnan
        except (ValueError, TypeError, RuntimeError):
            for axis in range(a.ndim):
                for keep in (False, True):
                    if tuple(isnan.any(axis=axis, keep_dims=keep).shape) == shape:
                        got = isnan.any(axis=axis, keep_dims=keep)
                        break
                if got is not None:
                    break
            if got is None and shape == ():
                got = isnan.any()
        if got is not None:
            mask = got if mask is None else ms.ops.logical_or(mask, got)
    return mask


def unselected_filled(out: Any, call_args: tuple, kwargs: dict, value: float) -> Any:
    """The result with its rows that no integer index argument names (an empty segment) set to `value`."""
    if not isinstance(out, ms.Tensor) or not out.ndim:
        return out
    named = set()
    for a in list(call_args) + list(kwargs.values()):
        if isinstance(a, ms.Tensor) and not ms.ops.is_floating_point(a) and a.dtype != ms.bool_:
            named |= {int(v) for v in a.asnumpy().reshape(-1)}
    rows = np.array([r not in named for r in range(out.shape[0])]).reshape((-1,) + (1,) * (out.ndim - 1))
    return ms.ops.where(ms.Tensor(rows), ms.ops.full_like(out, value), out)
