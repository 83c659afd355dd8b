"""A confirmed change to one call of the port's construct, written as the fix a user applies (pure: op_search.py
confirms the change by a re-run first)."""
from __future__ import annotations

from typing import Any, Sequence, Tuple

from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_candidates import call_words, shown_function
from migcheck.localization.op_compose import scale_fix, transpose_fix
from migcheck.localization.op_empty import empty_fix
from migcheck.localization.op_nan import nan_fix
from migcheck.localization.op_order import sort_fix
from migcheck.localization.op_sequence import reorder_fix
from migcheck.records.ops import OpChange, OpRecord, finite_bound


def _shown(args: Sequence[Tuple[Any, Any]]) -> str:
    return ", ".join(f"{k}={v!r}" if isinstance(k, str) else f"argument {k}={v!r}" for k, v in args)


def _arg_words(r: OpRecord, k: int, value: Any = None) -> str:
    """A positional argument as the call shows it: a plain value as itself (or `value`, its new one), a tensor
    as its shape and dtype (Tensor[6] int32): its parameter's name would say where it went, not what it is."""
    v = r.positional[k]
    if v != "<tensor>":
        return repr(v if value is None else value)
    j = sum(1 for x in r.positional[:k] if x == "<tensor>")
    if j < len(r.inputs):
        a = r.inputs[j]
        return f"Tensor[{', '.join(str(n) for n in a.shape)}] {a.dtype.name}"
    return "Tensor"


def change_fix(div: OpDivergence, change: OpChange, ms_ops: Sequence[OpRecord]) -> str:
    """The confirmed change to one call, as code (and where it applies)."""
    text = _one_fix(div, change, ms_ops)
    if change.like:
        return f"{text} (at every call made with these arguments)"
    return f"{text} (at each of its {len(change.also) + 1} calls)" if change.also else text


def _one_fix(div: OpDivergence, change: OpChange, ms_ops: Sequence[OpRecord]) -> str:
    name = next(r.name for r in ms_ops if r.index == change.index)
    if change.replace:
        shown = change.shown or f"{shown_function(change.replace)}(...)"
        chain = [name] + [r.name for r in ms_ops if r.index in change.drops]
        return f"use {shown} in place of {' -> '.join(chain)}"
    if change.scale:
        return scale_fix(div.ms, change)
    if change.sort_out:
        return sort_fix(div.ms, change)
    if change.reduce_out:
        kind, axis = change.reduce_out
        return f"{name}(...).{kind}({axis}): reduce its result over axis {axis} as torch's result is"
    if change.nan_rule:
        return nan_fix(div.ms, change)
    if change.empty_fill is not None:
        return empty_fix(div.ms, change)
    if change.reorder:
        return reorder_fix(div.ms, change, ms_ops)
    if change.transpose:
        return transpose_fix(div.ms, change)
    if change.negate:
        k = change.negate[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        return f"{name}(..., {param}=ops.logical_not({param}), ...): hand {name} the negated {param}"
    if change.write_back:
        method = name[len("Tensor."):].rstrip("_")
        shown = ", ".join(repr(v) for v in div.ms.positional[1:])
        at = div.ms.sliced_by
        if not name.endswith("_") and not at:  # an out-of-place method whose result the port dropped
            return (f"x = x.{method}({shown}) in place of a bare x.{method}({shown}): MindSpore's {method} returns a"
                    f" new tensor and leaves x as it was (torch's {method}_ works in place)")
        if at:
            return (f"x{at} = x{at}.{method}({shown}) in place of x{at}.{method}_({shown}): MindSpore's indexing"
                    f" returns a copy, so the in-place call does not reach x; assign the"
                    f" result back through the index")
        return (f"x = x.{method}({shown}) in place of x.{method}_({shown}): assign the out-of-place form (the"
                f" in-place call returned its result and left x unchanged)")
    if change.scale_input:
        k, factor = change.scale_input[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        return (f"{name}(..., {param}={param} * {factor!r}, ...): hand {name} its {param} scaled as torch's keyword"
                f" scales it ({name} takes no such argument)")
    if change.finite:
        bound = finite_bound(max((x.size for x in div.ms.inputs if x.dtype.kind == "f"), default=1))
        return (f"{name}(ops.clamp(x, {-bound:g}, {bound:g}), ...): hand {name} its -inf inputs as a large finite"
                f" value (MindSpore's {name} returns NaN where an input is -inf; torch's stays finite)")
    if change.dtype_keyword:
        return (f"{name}(..., dtype=mindspore.{change.dtype_keyword}): give the call torch's result dtype (it returns"
                f" {div.ms.outputs[0].dtype.name if div.ms.outputs else 'another dtype'} without it)")
    if change.result_dtype:
        return f"{name}(...).astype(mindspore.{change.result_dtype}): cast its result to torch's result dtype"
    if change.precise:
        narrow = div.ms.inputs[0].dtype.name if div.ms.inputs else "float32"
        return (f"{name}(x.astype(mindspore.float64)).astype(mindspore.{narrow}): MindSpore's {narrow} {name} loses"
                f" precision on these values where torch's {narrow} one does not"
                + (" (torch accumulates float16 in float32)" if narrow == "float16" else ""))
    if change.transpose_out:
        k = change.transpose_out[0]
        return (f"take {name}'s result {k} transposed (.swapaxes(-2, -1)): it is the transpose of what torch's"
                f" counterpart returns there")
    if change.swap_outputs:
        return f"take '{name}''s results in the other order (unpack them as torch's counterpart returns them reversed)"
    if change.drop:
        return f"remove the '{call_words(div.ms)}' call in construct"
    if change.flatten:
        return f"{name}(x.reshape(-1), ...) in place of {name}(x, ...): reduce over all elements as torch's call does"
    if change.cast:
        k, dtype = change.cast[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        given = div.ms.inputs[0].dtype.name if div.ms.inputs else "its"
        why = (f"it returns {div.ms.outputs[0].dtype.name} for a {given} input" if div.ms.outputs
               else f"it refuses a {given} input")
        return f"{name}(..., {param}={param}.astype(mindspore.{dtype}), ...): hand {name} its {param} as {dtype} ({why})"
    if change.as_tensor:
        where = change.as_tensor[0]
        if isinstance(where, str):
            value = dict(div.ms.keywords).get(where)
            return (f"{name}(..., {where}=mindspore.Tensor({value!r})) in place of {name}(..., {where}={value!r}):"
                    f" hand {name} its {where} as a Tensor")
        before = ", ".join(_arg_words(div.ms, k) for k in range(len(div.ms.positional)))
        after = ", ".join(f"mindspore.Tensor({div.ms.positional[k]!r})" if k == where else _arg_words(div.ms, k)
                          for k in range(len(div.ms.positional)))
        return f"{name}({after}) in place of {name}({before})"
    if change.swap_axes:
        i, j = change.swap_axes
        return f"{name}(x.swapaxes({i}, {j}), ...) in place of {name}(x, ...): transpose the two axes first"
    if change.minus:
        k, j = change.minus[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        other = div.ms.names[j] if j < len(div.ms.names) else f"argument {j}"
        return (f"{name}(..., {param}=<your {param}> - {other}) in place of {name}(..., {param}={div.ms.positional[k]!r}):"
                f" the value given is an end; {name} takes a {param} (end - {other}; here"
                f" {tuple(a - b for a, b in zip(div.ms.positional[k], div.ms.positional[j]))})")
    if change.order:
        shown = [_arg_words(div.ms, i) for i in range(len(div.ms.positional))]
        given = [shown[i] for i in change.order] + [f"{k}={v!r}" for k, v in change.arguments]  # a value moved to a keyword
        return f"{name}({', '.join(given)}) in place of {name}({', '.join(shown)})"
    if change.init:
        old = [(k, dict(div.ms.init).get(k)) for k, _ in change.init]
        return f"ops.{name}({_shown(old)}) -> ops.{name}({_shown(change.init)})"
    moved = dict(change.positions)
    if moved and not change.arguments and any(type(v) is not type(div.ms.positional[k]) for k, v in moved.items()):
        # another form of the same value (1 -> (1,)): the whole call, before and after
        before = ", ".join(_arg_words(div.ms, k) for k in range(len(div.ms.positional)))
        after = ", ".join(_arg_words(div.ms, k, moved.get(k)) for k in range(len(div.ms.positional)))
        return f"{name}({after}) in place of {name}({before})"
    new = list(change.arguments) + list(change.positions)
    old_values = dict(div.ms.keywords)
    old_values.update({n: v for n, v in zip(div.ms.names, div.ms.positional)})
    if change.arguments and not change.positions and not any(k in old_values for k, _ in change.arguments):
        return f"{name}(..., {_shown(change.arguments)}): pass these arguments explicitly"
    old = [(k, old_values.get(k) if isinstance(k, str) else div.ms.positional[k]) for k, _ in new]
    names = dict(enumerate(div.ms.names))  # a position said by its parameter's name, where known
    return (f"{name}(..., {_shown([(names.get(k, k), v) for k, v in old])}) -> "
            f"{name}(..., {_shown([(names.get(k, k), v) for k, v in new])})")
