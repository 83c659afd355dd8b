"""The argument search at op level: inside a container whose own construct diverges, the first op whose inputs
agree with torch's values and whose output does not (op_align.py), then a change to that call, from the
call's own arguments and torch's counterpart call, re-run through the whole construct on torch's recorded
inputs. A change that makes the container's output agree with torch's is the confirmed cause and its fix.

Candidates: torch's value for each argument of matching meaning (dim ~ axis, keepdim ~ keep_dims), the other
members of a string argument's enumeration (the op's docstring), flipped booleans, reordered tuples, a
multi-result op's results in the other order (the op itself or the one feeding it), and the op dropped
(its input handed on). No framework import: `module` and `cell` are the runners' objects.
"""
from __future__ import annotations

import dataclasses

import time
from dataclasses import replace
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_candidates import setting_candidates
from migcheck.localization.arg_search import MAX_CANDIDATES, MAX_SECONDS, SearchOutcome
from migcheck.localization.beyond import Beyond, SecondInputs, edge_check
from migcheck.localization.confirm import agree
from migcheck.localization.op_align import (OpDivergence, counterpart, differing_outputs, diverging_ops,
                                            outputs_differ, said_outputs, same_value)
from migcheck.records.ops import UNCHANGED, OpChange, OpRecord
from migcheck.runners.base import Argument, Constructor
from migcheck.runners.probes import MindSporeProbe, TorchProbe

TolFor = Callable[[str], Tuple[float, float]]
RULE = "op-argument-search"
MAX_OPS = 3  # diverging ops searched, in order


def _value_ok(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(_value_ok(x) for x in v)
    return not (isinstance(v, str) and v.startswith("<"))


def as_constructor(r: OpRecord, names: Sequence[str] = ()) -> Tuple[Constructor, dict]:
    """The call's plain arguments as a Constructor, and where each goes back: ("init"|"arg", name or position).
    names: what to call positional arguments whose signature is unknown (a builtin op of the same name)."""
    args, where = [], {}
    known = r.names or tuple(names)
    for i, v in enumerate(r.positional):
        name = known[i] if i < len(known) else f"arg{i}"
        if name == "self" or not _value_ok(v):
            continue
        args.append(Argument(name, v, True, True, None))
        where[name] = ("arg", name) if i < len(known) else ("pos", i)
    for k, v in r.keywords:
        if _value_ok(v):
            args.append(Argument(k, v, True, True, None))
            where[k] = ("arg", k)
    for k, v in r.init:
        if _value_ok(v) and k not in where:
            args.append(Argument(k, v, True, True, None))
            where[k] = ("init", k)
    return Constructor(r.name, True, tuple(args), r.doc), where


def candidates(div: OpDivergence, ms_ops: Sequence[OpRecord]) -> List[Tuple[OpChange, str]]:
    """(change, what it is in words) for one diverging op, most likely first."""
    ms_c, where = as_constructor(div.ms)
    torch_c = Constructor("", True, ())
    if div.torch is not None:
        same_op = _base_name(div.torch.name).lower() == _base_name(div.ms.name).lower()
        # the same op with no names on MindSpore's side: both sides' positionals aligned by position, even where
        # torch's docstring names them (Tensor.mul's `value`)
        torch_op = dataclasses.replace(div.torch, names=()) if same_op and not div.ms.names else div.torch
        torch_c = as_constructor(torch_op, div.ms.names if same_op else ())[0]
    out = []
    if div.ms.unchanged_self:
        out.append((OpChange(div.ms.index, write_back=True), f"'{div.ms.name}' updating its tensor in place"))
    for cand in setting_candidates(torch_c, ms_c):
        change = {"arg": [], "pos": [], "init": []}
        for name, value in cand.changes:
            kind, key = where[name]
            change[kind].append((key, value))
        out.append((OpChange(div.ms.index, tuple(change["arg"]), tuple(change["pos"]), tuple(change["init"])),
                    f"{cand.label()}"))
    by_index = {r.index: r for r in ms_ops}
    drop = []
    if div.ms.inputs:  # an op the port added (an index [0] kept from torch's (values, indices) result)
        fed = [by_index[i] for i in div.producers if i in by_index]
        source = f" on the result of {_call_words(fed[-1])}" if fed else ""
        drop = [(OpChange(div.ms.index, drop=True), f"'{_call_words(div.ms)}'{source} dropped (its input handed on)")]
    # an op whose output has its input's shape is dropped before its inputs are negated or its results swapped
    # (a logical_not the port added: dropping it is the simpler fix); otherwise dropping is tried last
    same_shape = any(x.shape == y.shape for x in div.ms.inputs[:1] for y in div.ms.outputs[:1])
    out += drop if same_shape else []
    tensor_at = [k for k, v in enumerate(div.ms.positional) if v == "<tensor>"]
    out += _casts(div, tensor_at)
    for j, k in enumerate(tensor_at[:len(div.ms.inputs)]):
        if div.ms.inputs[j].dtype == np.bool_:  # a mask: the other convention (True = keep vs True = fill)
            name = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
            out.append((OpChange(div.ms.index, negate=(k,)), f"its {name} argument negated (logical_not)"))
    for index in (div.ms.index,) + div.producers:
        if len(by_index[index].outputs) >= 2:
            out.append((OpChange(index, swap_outputs=True), f"'{by_index[index].name}' results in the other order"))
    # whatever the shapes: only the construct's re-run agreeing with torch confirms a drop
    return out + ([] if same_shape else drop)


def _casts(div: OpDivergence, tensor_at: Sequence[int]) -> List[Tuple[OpChange, str]]:
    """Where the port's call returns another dtype than torch's op (ops.ReduceSum on a bool mask returns bool,
    torch's sum int64): each tensor argument of another dtype handed over as torch's result dtype, the port's own
    call kept (tried before another function in its place)."""
    t = div.torch
    if t is None or not t.outputs or not div.ms.outputs or t.outputs[0].dtype == div.ms.outputs[0].dtype:
        return []
    want, got = t.outputs[0].dtype, div.ms.outputs[0].dtype
    out = []
    for j, k in enumerate(tensor_at[:len(div.ms.inputs)]):
        if div.ms.inputs[j].dtype != want:
            name = f"{div.ms.names[k]} argument" if k < len(div.ms.names) else f"argument {k}"
            out.append((OpChange(div.ms.index, cast=((k, want.name),)),
                        f"its {name} cast to {want.name} (torch's '{t.name}' returns {want.name} where the"
                        f" port's call returns {got.name})"))
    return out


def api_candidates(div: OpDivergence, functions: Sequence[Tuple[str, Tuple[Tuple[str, bool], ...]]], same: Any
                   ) -> List[Tuple[OpChange, str]]:
    """Another mindspore.ops function named like torch's op, called as torch called its op: torch's plain
    arguments by name (or position), its tensor arguments as the port's tensors of equal value."""
    from migcheck.localization.arg_candidates import similarity

    t = div.torch
    if t is None:
        return []
    ms_of = {}  # torch tensor argument j -> the port's tensor input of the same value
    for j, arr in enumerate(t.inputs):
        ms_of[j] = next((i for i, x in enumerate(div.ms.inputs) if same(x, arr)), None)
    torch_args: List[Tuple[str, Any]] = []  # (name or "#k", value or ("tensor", j))
    j = 0
    for k, v in enumerate(t.positional):
        tensor = v == "<tensor>"
        torch_args.append((t.names[k] if k < len(t.names) else f"#{k}", ("tensor", j) if tensor else v))
        j += tensor
    in_order = [v for _, v in torch_args]  # torch's positional arguments, by position
    torch_args += [(k, v) for k, v in t.keywords if v != "<tensor>"]
    port_own = dict(zip(div.ms.names, div.ms.positional))
    port_own.update(dict(div.ms.keywords))
    out: List[Tuple[OpChange, str]] = []
    seen = set()
    # first torch's arguments alone; then, for what torch's call does not say, its argument at the same place
    # or the port's own argument of the same name (ops.norm(h, ord=1) -> ops.vector_norm(x, ord=1))
    for fallback in (lambda k, param: None, lambda k, param: in_order[k] if k < len(in_order) else port_own.get(param)):
        for name, params in functions:
            kwargs, tensors, ok = {}, [], True
            for k, (param, has_default) in enumerate(params):
                hit = next((v for n, v in torch_args
                            if n == f"#{k}" or (not n.startswith("#") and similarity(n, param) >= 0.8)), fallback(k, param))
                if isinstance(hit, tuple) and len(hit) == 2 and hit[0] == "tensor":
                    if ms_of.get(hit[1]) is None:
                        ok = False
                        break
                    tensors.append((param, ms_of[hit[1]]))
                elif hit is not None and _value_ok(hit):
                    kwargs[param] = hit
                elif not has_default:
                    ok = False
                    break
            key = (name, tuple(tensors), tuple(sorted(kwargs.items(), key=lambda kv: kv[0])))
            if ok and tensors and repr(key) not in seen:
                seen.add(repr(key))
                shown = f"ops.{name}({_in_order(params, dict(tensors), kwargs)})"
                out.append((OpChange(div.ms.index, tuple(kwargs.items()), replace=name, tensors=tuple(tensors),
                                     shown=shown), f"{shown} in its place, called as torch calls {t.name}"))
    return out


def _in_order(params: Sequence[Tuple[str, bool]], tensors: Mapping[str, int], kwargs: Mapping[str, Any]) -> str:
    """The arguments in the function's order: tensors by their parameter's name, positionally until the first
    keyword (ops.gather_elements(input, dim=1, index=index))."""
    out, keyword = [], False
    for name, _ in params:
        if name in tensors:
            out.append(f"{name}={name}" if keyword else name)
        elif name in kwargs:
            out.append(f"{name}={kwargs[name]!r}")
            keyword = True
    return ", ".join(out)


def search_ops(module: TorchProbe, cell: MindSporeProbe, torch_owner: str, ms_name: str, inputs: Sequence[np.ndarray],
               torch_out: Any, torch_values: Sequence[np.ndarray], tol_for: TolFor,
               max_count: int = MAX_CANDIDATES, max_seconds: float = MAX_SECONDS,
               torch_names: Mapping[str, str] = {}) -> Optional[SearchOutcome]:
    """The first change to one op call of the port's construct that makes the container agree with torch;
    None when the container, run alone on torch's inputs, already agrees (nothing to search)."""
    started = time.monotonic()
    tried: List[str] = []
    try:
        torch_ops = module.op_records(torch_owner)
        traced, base = _traced(cell, ms_name, inputs)
    except Exception:  # nothing recorded
        return None
    ms_ops = [r for r in traced if r.index >= 0]
    if base is not None and agree(torch_out, base, tol_for):
        return None
    rtol, atol = tol_for("float32")
    same = same_value(rtol, atol)
    known = list(torch_values) + list(inputs)
    computed = list(inputs) + [a for r in traced for a in r.outputs]
    divergences = diverging_ops(ms_ops, torch_ops, known, same, computed)
    # first the ops that raised, returned another shape or kind than torch's op, or did nothing in place
    first = [d for d in differing_outputs(ms_ops, torch_ops, known, same, computed)
             if base is None or d.ms.unchanged_self]
    divergences = first + [d for d in divergences if d.ms.index not in {f.ms.index for f in first}]
    # then every other call of the construct in turn: where torch computes the region in fewer calls (one fused
    # scaled_dot_product_attention), no value places the difference, and only a re-run can
    placed = {d.ms.index for d in divergences[:MAX_OPS]}
    sites = [(d, False) for d in divergences[:MAX_OPS]] + [
        (OpDivergence(r, counterpart(r, torch_ops, same), ()), True) for r in ms_ops
        if r.index not in placed and not r.raised and r.outputs]
    second = SecondInputs(module, torch_owner, inputs, torch_out, tol_for)
    rejected: List[Tuple[int, str]] = []  # candidates that agreed on the case's input only
    for div, swept in sites:
        alternatives = []
        if div.torch is not None and not swept:
            try:
                wanted = tuple(div.ms.names) + tuple(k for k, _ in div.ms.keywords + div.torch.keywords)
                alternatives = api_candidates(div, cell.functions_like(_base_name(div.torch.name), wanted), same)
            except Exception:  # no function list on this side
                alternatives = []
        for change, words in candidates(div, ms_ops) + alternatives:
            if len(tried) >= max_count or time.monotonic() - started > max_seconds:
                return _located(_none(divergences[0] if divergences else None, tried, started, base is None,
                                      rejected), traced, divergences, ms_name, torch_names)
            tried.append(f"op {div.ms.index} '{div.ms.name}': {words}")
            try:
                changed, got = cell.trace_ops(ms_name, inputs, change)
            except Exception:  # a change the op refuses
                continue
            whole = agree(torch_out, got, tol_for)
            if whole or (not swept and _op_agrees(div, changed, same)):
                held = _beyond(second, module, cell, torch_owner, ms_name, div, change, whole, same)
                if not held.ok:  # agrees on the case's input only: not the cause; the search goes on
                    tried[-1] += f" (rejected: {held.words})"
                    rejected.append((held.failed, f"{words} ({held.words})"))
                    continue
                return SearchOutcome(_cause(div, ms_name, words + _scale_words(div, change), len(tried), whole,
                                             base is None, swept)
                                     + _between_children(traced, div, ms_name, torch_names)
                                     + (f"; {held.words}" if held.words else ""), _fix(div, change, ms_ops), True,
                                     tuple(tried), round(time.monotonic() - started, 3), RULE)
    return _located(_none(divergences[0] if divergences else None, tried, started, base is None, rejected), traced,
                    divergences, ms_name, torch_names)


def _beyond(second: SecondInputs, module: TorchProbe, cell: MindSporeProbe, torch_owner: str, ms_name: str,
            div: OpDivergence, change: OpChange, whole: bool, same: Any) -> Beyond:
    """A candidate that agreed on the case's input, measured beyond it (beyond.py): the construct on second
    inputs (where the whole construct agreed), and a function put in the call's place at edge values."""
    held = second.check(cell, ms_name, change) if whole else Beyond(
        True, "confirmed at the op on the case's input only (a later difference keeps the construct apart)")
    if held.ok and change.replace and div.torch is not None:
        edges = edge_check(module, cell, torch_owner, div.torch.index, div.torch.inputs, div.ms.inputs, change, same)
        if not edges.ok:
            return edges
        held = Beyond(True, "; ".join(w for w in (held.words, edges.words) if w))
    return held


def _located(none: SearchOutcome, traced: Sequence[OpRecord], divergences: Sequence[OpDivergence], ms_name: str,
             torch_names: Mapping[str, str]) -> SearchOutcome:
    """The unconfirmed outcome, with where the first diverging op sits among the construct's children."""
    if divergences and none.cause:
        return replace(none, cause=none.cause + _between_children(traced, divergences[0], ms_name, torch_names))
    return none


def _traced(cell: MindSporeProbe, ms_name: str, inputs: Sequence[np.ndarray]) -> Tuple[List[OpRecord], Any]:
    """(the construct's op records, its output); a construct that raises: the records up to the call that
    raised (that one included, records/ops.OpRecord.raised) and None."""
    try:
        return cell.trace_ops(ms_name, inputs)
    except Exception:  # the port raises on torch's inputs too
        return cell.trace_ops(ms_name, inputs, UNCHANGED)


def _between_children(traced: Sequence[OpRecord], div: OpDivergence, ms_name: str,
                      torch_names: Mapping[str, str]) -> str:
    """Where the op sits among the children the construct called, in torch's names where they are paired."""
    position = next((i for i, r in enumerate(traced) if r.index == div.ms.index), None)
    if position is None:
        return ""

    def named(r: OpRecord) -> str:
        full = f"{ms_name}.{r.name[len('cell:'):]}" if ms_name else r.name[len("cell:"):]
        return torch_names.get(full, full)

    before = [named(r) for r in traced[:position] if r.index < 0]
    after = [named(r) for r in traced[position:] if r.index < 0]
    if not before and not after:
        return ""
    return (f"; the op sits between '{before[-1] if before else '<input>'}' output and "
            f"'{after[0] if after else '<output>'}' input")


_SCALING = ("mul", "rmul", "truediv", "rtruediv", "div", "multiply", "divide")


def number_words(v: Any) -> str:
    """A constant in words where it is a familiar one: 0.3536 -> '1/sqrt(8)'."""
    if not isinstance(v, float) or v <= 0:
        return ""
    for n in range(2, 4097):
        for shown, value in ((f"1/sqrt({n})", n ** -0.5), (f"sqrt({n})", n ** 0.5), (f"1/{n}", 1.0 / n)):
            if abs(v - value) <= 1e-6 * value:
                return shown
    return ""


def _scale_words(div: OpDivergence, change: OpChange) -> str:
    if _base_name(div.ms.name) not in _SCALING or len(change.arguments) + len(change.positions) != 1:
        return ""
    key, new = (list(change.arguments) + list(change.positions))[0]
    old = dict(zip(div.ms.names, div.ms.positional)).get(key) if isinstance(key, str) else div.ms.positional[key]
    if not isinstance(old, (int, float)) or not isinstance(new, (int, float)):
        old = next((v for v in div.ms.positional if isinstance(v, float)), None)
    if not isinstance(old, (int, float)):
        return ""
    said = [f"{x:.6g}" + (f" = {number_words(float(x))}" if number_words(float(x)) else "") for x in (old, new)]
    return f" (a scale: the port scales by {said[0]} where torch's values need {said[1]})"


def _base_name(name: str) -> str:
    return name.split(".")[-1].strip("_")


def _op_agrees(div: OpDivergence, changed: Sequence[OpRecord], same: Any) -> bool:
    """The changed op, fed the same inputs as torch's counterpart (all of them), now gives its outputs: the
    op-level counterfactual, which holds even where a later defect keeps the container's output apart."""
    t = div.torch
    if t is None or not div.ms.inputs or not all(any(same(x, y) for y in t.inputs) for x in div.ms.inputs):
        return False
    now = next((r for r in changed if r.index == div.ms.index), None)
    if now is None or len(now.outputs) != len(t.outputs) or not now.outputs:
        return False
    return all(same(a, b) for a, b in zip(now.outputs, t.outputs))


def _none(div: Optional[OpDivergence], tried: List[str], started: float, raised: bool = False,
          rejected: Sequence[Tuple[int, str]] = ()) -> SearchOutcome:
    said = ""
    if div is not None and raised and outputs_differ(div.ms, div.torch):
        said = f"op '{div.ms.name}' is the first whose inputs agree with torch's values and that {_differs(div)}"
    elif div is not None:
        said = (f"op '{div.ms.name}' is the first whose inputs agree with torch's values and whose output does not"
                + (f" (torch's counterpart: '{div.torch.name}')" if div.torch is not None else ""))
    if said and rejected:  # the closest first: fewest edge values where it differs from torch's op
        said += "; not confirmed (each agreed on the case's input only): " + "; ".join(
            w for _, w in sorted(rejected, key=lambda r: r[0]))
    return SearchOutcome(said, "", False, tuple(tried), round(time.monotonic() - started, 3), RULE)


def _differs(div: OpDivergence) -> str:
    """How the op's results differ from its counterpart's where their shapes or kinds differ, or it raised."""
    torch_side = (f"torch's '{div.torch.name}' returned {said_outputs(div.torch.outputs)} from the same inputs"
                  if div.torch is not None else "torch made no counterpart call")
    if div.ms.raised:
        return f"raised where {torch_side}"
    return f"returned {said_outputs(div.ms.outputs)} where {torch_side}"


def _cause(div: OpDivergence, ms_name: str, words: str, count: int, whole: bool, raised: bool = False,
           swept: bool = False) -> str:
    torch_side = f" (torch's counterpart: '{div.torch.name}')" if div.torch is not None else ""
    how = ("no value torch computed places the difference (torch's calls there do not compute the port's"
           f" intermediate values{', ' + repr(div.torch.name) + ' computes them in one call' if div.torch else ''}),"
           " so each call was changed in turn" if swept
           else _differs(div) if raised and outputs_differ(div.ms, div.torch)
           else f"an in-place call that returned its result but left its tensor as it was, so later ops see the old"
                f" value{torch_side}" if div.ms.unchanged_self
           else f"inputs agree with torch's, output does not{torch_side}")
    what = (f"'{ms_name or '<root>'}' agrees with torch" if whole
            else f"the op's output equals torch's '{div.torch.name}' output on the same inputs")
    return (f"op '{div.ms.name}' inside '{ms_name or '<root>'}': {how}; with {words}, re-run through the construct"
            f" on torch's recorded inputs, {what} ({count} candidates tried)")


def _shown(args: Sequence[Tuple[Any, Any]]) -> str:
    return ", ".join(f"{k}={v!r}" if isinstance(k, str) else f"argument {k}={v!r}" for k, v in args)


def _call_words(r: OpRecord) -> str:
    """'Tensor.__getitem__(0)': the call with its plain arguments (tensors left out)."""
    plain = [repr(v) for v in r.positional if v != "<tensor>" and not isinstance(v, tuple)]
    plain += [f"{k}={v!r}" for k, v in r.keywords if v != "<tensor>"]
    return f"{r.name}({', '.join(plain)})" if plain else r.name


def _fix(div: OpDivergence, change: OpChange, ms_ops: Sequence[OpRecord]) -> str:
    name = next(r.name for r in ms_ops if r.index == change.index)
    if change.replace:
        shown = change.shown or f"ops.{change.replace}(...)"
        return f"use {shown} in place of {name}"
    if change.negate:
        k = change.negate[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        return f"{name}(..., {param}=ops.logical_not({param}), ...): hand {name} the negated {param}"
    if change.cast:
        k, dtype = change.cast[0]
        param = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
        return (f"{name}(..., {param}={param}.astype(mindspore.{dtype}), ...): hand {name} its {param} as {dtype}"
                f" (it returns {div.ms.outputs[0].dtype.name} for a {div.ms.inputs[0].dtype.name} input)")
    if change.write_back:
        method = name[len("Tensor."):-1]
        shown = ", ".join(repr(v) for v in div.ms.positional[1:])
        return (f"x = x.{method}({shown}) in place of x.{method}_({shown}): assign the out-of-place form (the"
                f" in-place call returned its result and left x unchanged)")
    if change.swap_outputs:
        return f"take '{name}''s results in the other order (unpack them as torch's counterpart returns them reversed)"
    if change.drop:
        return f"remove the '{_call_words(div.ms)}' call in construct"
    if change.init:
        old = [(k, dict(div.ms.init).get(k)) for k, _ in change.init]
        return f"ops.{name}({_shown(old)}) -> ops.{name}({_shown(change.init)})"
    new = list(change.arguments) + list(change.positions)
    old_values = dict(div.ms.keywords)
    old_values.update({n: v for n, v in zip(div.ms.names, div.ms.positional)})
    old = [(k, old_values.get(k) if isinstance(k, str) else div.ms.positional[k]) for k, _ in new]
    return f"{name}(..., {_shown(old)}) -> {name}(..., {_shown(new)})"
