"""The ops a forward or backward pass ran, as the runners record them: one vocabulary, plain values only.

Localization's op trace, replay, search, backward comparison and raising-call report all read these; both
runners write them, so the pure code that compares them shares no framework type with either side.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

TENSOR = "<tensor>"  # how a recorded call shows a tensor argument


@dataclass(frozen=True)
class OpCall:
    """A call in the torch forward's running order, for the 'torch calls there' line of a report."""
    seq: int  # position in the forward, on the same counter as the module spans
    owner: str  # the innermost module whose forward made the call ("" is the whole network)
    text: str  # e.g. "F.softmax(dim=-1)", "Tensor * 0.3536"


@dataclass(frozen=True)
class OpSite:
    """A torch call to re-run with one argument changed (the torch-side replay)."""
    seq: int
    name: str  # e.g. "softmax", "interpolate", "binary_cross_entropy_with_logits"
    positional: Tuple[Any, ...]  # arguments in order, tensors shown as TENSOR
    keywords: Tuple[Tuple[str, Any], ...]
    ndim: int  # rank of the first tensor argument (0 when none)
    text: str  # e.g. "Tensor.softmax(-1)"
    names: Tuple[str, ...] = ()  # the function's positional parameter names, from its signature (where it has one)
    defaults: Tuple[Tuple[str, Any], ...] = ()  # its parameters' plain default values, by name


DROPPED = "<dropped>"  # a Change's keyword that leaves the call out: its tensor argument at `position` is passed on


@dataclass(frozen=True)
class Change:
    """One argument of an OpSite changed in the torch-side replay (or, keyword DROPPED, the call left out)."""
    seq: int
    position: Optional[int]  # where the argument sits when given positionally
    keyword: str
    value: Any


@dataclass(frozen=True)
class OpRecord:
    """One op call a forward made itself (not inside a child layer), with its tensors as numpy. Both runners
    record it: the forward op search reads the arguments, the backward comparison the owner, text and scalars."""
    index: int  # position among the recorded calls of that forward
    name: str  # "glu", "Tensor.mean", "ReduceMean", "F.softmax", "ops.clip_by_value"
    positional: Tuple[Any, ...] = ()  # non-tensor arguments as plain values; tensors shown as TENSOR
    keywords: Tuple[Tuple[str, Any], ...] = ()
    inputs: Tuple[np.ndarray, ...] = ()  # the tensor arguments, in order
    outputs: Tuple[np.ndarray, ...] = ()  # the tensor results, flattened in order
    names: Tuple[str, ...] = ()  # the parameter name of each positional argument, where the signature says
    init: Tuple[Tuple[str, Any], ...] = ()  # a primitive operator's constructor arguments
    doc: str = ""  # the op's docstring (its arguments' enumerations)
    owner: str = ""  # the cell whose own construct made the call ("" is the root)
    text: str = ""  # the call as shown, e.g. "ops.clip_by_value(-0.5, 0.5)"
    scalars: Tuple[float, ...] = ()  # its number arguments (bounds, slopes)
    raised: bool = False  # the call raised (no outputs): a forward that stops there still shows its inputs
    unchanged_self: bool = False  # an in-place method (Tensor.mul_) returned its result but left its tensor as it was
    sliced_by: str = ""  # an in-place method on an index result ("[:, 2:]") whose base kept its values (a copy)
    result_names: Tuple[str, ...] = ()  # a named-tuple result's field names (torch.max: values, indices)

    @property
    def output(self) -> np.ndarray:
        """The first result (the op-level backward pairs single-output ops)."""
        return self.outputs[0]


@dataclass(frozen=True)
class OpChange:
    """One recorded call changed in a re-run of the same forward (the op-level counterfactual)."""
    index: int
    arguments: Tuple[Tuple[str, Any], ...] = ()  # by parameter name (positional ones by their signature name)
    positions: Tuple[Tuple[int, Any], ...] = ()  # positional arguments by position, where no name is known
    init: Tuple[Tuple[str, Any], ...] = ()  # a primitive's constructor arguments
    swap_outputs: bool = False  # the op's results handed on in reversed order
    drop: bool = False  # the op's first tensor argument handed on in place of its result
    replace: str = ""  # another mindspore.ops function called in its place, with `arguments` as keywords
    tensors: Tuple[Tuple[str, int], ...] = ()  # that function's tensor parameters: which of the op's tensor inputs
    transpose: Tuple[int, ...] = ()  # positional tensor arguments handed over with their last two axes swapped
    stop: Tuple[int, ...] = ()  # positional tensor arguments handed over through ops.stop_gradient (detached)
    negate: Tuple[int, ...] = ()  # positional boolean tensor arguments handed over negated (logical_not)
    cast: Tuple[Tuple[int, str], ...] = ()  # positional tensor arguments handed over cast to a dtype (numpy's name)
    write_back: bool = False  # the op's result written into its first tensor argument (what an in-place call means)
    flatten: bool = False  # the op's first tensor argument flattened to 1-D (torch's call reduces over all elements)
    order: Tuple[int, ...] = ()  # the op's positional arguments handed over in this order (indices into the call's)
    swap_axes: Tuple[int, ...] = ()  # (i, j): the op's first tensor argument with these two axes swapped first
    shown: str = ""  # that call as code, its arguments in the function's order ("ops.gather_elements(x, dim=1, index=index)")
    scale: float = 0.0  # the op's result multiplied by this (a refused argument run at 1.0 and applied outside)
    scale_negative: bool = False  # ... only where the op's first tensor input is negative (one branch's scale)
    as_tensor: Tuple[Any, ...] = ()  # plain arguments handed over as a mindspore.Tensor (int: position, str: keyword)
    transpose_out: Tuple[int, ...] = ()  # these results of a multi-result op handed on with their last two axes
    #                                       swapped (ops.svd returns v where torch's returns Vh)
    precise: bool = False  # the op computed in float64 on its float32 tensors, its result handed back in float32
    like: Tuple[Any, ...] = ()  # (name, plain positional arguments): every call made so, those after a raise too
    also: Tuple[int, ...] = ()  # the same change at these calls too (a helper the port calls twice: repeat_kv)
    minus: Tuple[Tuple[int, int], ...] = ()  # (k, j): positional tuple k handed over minus tuple j, at run time
    #                                          (an end the port gave where the op takes a size: end - begin)
    reorder: Tuple[Tuple[int, Tuple[int, ...]], ...] = ()  # (k, order): positional sequence k's items in this order
    scale_input: Tuple[Tuple[int, float], ...] = ()  # (position, factor): a tensor argument handed over times it
    offset_input: Tuple[Tuple[int, float], ...] = ()  # (position, epsilon): a tensor argument handed over plus it
    finite: bool = False  # its float tensor arguments' +-inf clamped to float32's finite range (-inf made NaN)
    dtype_keyword: str = ""  # the call given dtype=mindspore.<this numpy name> (torch's result dtype)
    result_dtype: str = ""  # the op's result cast to this dtype (numpy name) before it is handed on
    drops: Tuple[int, ...] = ()  # later calls handed on as their first tensor input: the function put in this
    #                              call computes them too (torch's one logsumexp for the port's exp, sum, log)
    lift: bool = False  # that function is the op's next-dimension sibling: its first tensor gets a unit axis at -2
    #                     (a length L read as 1 x L) and its result loses it again (adaptive_avg_pool2d for pool1d)
    nudge: float = 0.0  # its float tensor arguments moved by this step (nudged(): the same values on both sides)
    nan_rule: str = ""  # "propagate" | "largest" | "smallest": NaN treated as torch treats it (localization/op_nan.py)
    empty_fill: Optional[float] = None  # its result's rows no integer index input names set to this (op_empty.py)
    reduce_out: Tuple[Any, ...] = ()  # ("sum" | "mean", axis): its result reduced over that axis before it is handed on
    sort_out: str = ""  # "ascending"/"descending": its first result sorted so at run time, other results that are
    #                     per-value permuted alike and index results into it mapped through the order (ops.unique)


def placed(index: int, where: Any, changes: Any) -> OpChange:
    """The OpChange setting each (name, value) of `changes` where the call holds that name: `where` maps it to
    ("arg" | "pos" | "init", parameter name or position), as localization/op_candidates.as_constructor reads it."""
    held: dict = {"arg": [], "pos": [], "init": []}
    for name, value in changes:
        kind, key = where[name]
        held[kind].append((key, value))
    return OpChange(index, tuple(held["arg"]), tuple(held["pos"]), tuple(held["init"]))


# A re-run that changes no call (no op has index -1) but, as every changed re-run, keeps the calls recorded up
# to an error instead of raising it: the op trace of a forward that raises.
UNCHANGED = OpChange(-1)


@dataclass(frozen=True)
class OpGradient:
    """One torch op as it ran in the gradient pass: an op record plus the gradients through it."""
    index: int
    owner: str  # the module whose own forward called it ("" is the root)
    name: str  # function name, e.g. "clamp"
    text: str  # e.g. "torch.clamp(-0.5, 0.5)"
    inputs: Tuple[np.ndarray, ...]  # its float tensor arguments, in order
    output: np.ndarray
    grad_output: np.ndarray
    grad_inputs: Tuple[Optional[np.ndarray], ...]  # one per float input (None: no gradient flows)
    scalars: Tuple[float, ...] = ()  # its number arguments (bounds, slopes)
    after: str = ""  # the sub-module that finished last before it ran (its output is what came before)
    input_names: Tuple[str, ...] = ()  # each float input's parameter name ("" where the signature is unknown)
    scalar_names: Tuple[str, ...] = ()  # each number argument's parameter name, as `scalars` ("" where unknown)


@dataclass(frozen=True)
class RaisingCall:
    """The MindSpore call that raised, or a torch call it is set beside."""
    owner: str  # the cell (module) whose own construct (forward) made it
    name: str  # "ops.concat", "Tensor.view", "primitive MatMul"; torch: "cat", "view"
    text: str  # the call with its arguments: tensors as their shape and dtype
    message: str = ""  # the first line of what MindSpore said
    output: str = ""  # what it returned, as text (a call that ran through)
    after: str = ""  # the owner's child that ran last before this call (its output is what came before)
    fed_by: Tuple[str, ...] = ()  # the sub-cells whose outputs its tensor arguments were computed from


def nudged(x: np.ndarray, step: float) -> np.ndarray:
    """x with each element moved by `step` times (its magnitude + the tensor's mean magnitude), scaled per element
    by a fixed pattern in [0.5, 1.5): off any exact tie (a half-way value, two equal elements, a boundary point)
    and the same on both sides for equal inputs (OpChange.nudge; localization/op_ties.py)."""
    a = np.asarray(x)
    if a.dtype.kind != "f" or a.size == 0:
        return a
    wide = a.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(wide)
        scale = float(np.mean(np.abs(wide[finite]))) if finite.any() else 1.0
        pattern = 0.5 + (np.arange(a.size, dtype=np.float64) * 0.6180339887498949) % 1.0
        moved = wide + step * pattern.reshape(a.shape) * (np.abs(wide) + max(scale, 1e-3))
    return np.where(finite, moved, wide).astype(a.dtype)


def finite_bound(size: int) -> float:
    """The largest magnitude a tensor of `size` elements may hold so that no sum over it overflows float32: the
    finite stand-in for +-inf (OpChange.finite), as printed in its fix."""
    return float(f"{3.4028235e38 / max(int(size), 1):.3g}")
