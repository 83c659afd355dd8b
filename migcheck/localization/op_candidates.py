"""Candidate changes to one op call of a port's construct, generated from the call itself and torch's counterpart
(pure: op_search.py re-runs each and only a re-run decides).

Torch's value for each argument of matching meaning (dim ~ axis, keepdim ~ keep_dims; numbers no name aligns,
by kind), torch's keywords said explicitly, the other members of a string argument's enumeration (the op's
docstring), flipped booleans, reordered tuples; what the two results show (a reduction over all elements, a
float result where the port's is an integer); layout moves of an op that only moves elements; a raising call's
own arguments in another form or order; a multi-result op's results in the other order, a mask negated, the op
dropped (its input handed on); another mindspore.ops function named like torch's op.
"""
from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Any, List, Mapping, Sequence, Tuple

import numpy as np

from migcheck.localization.arg_candidates import setting_candidates
from migcheck.localization.confirm import nan_from_inf
from migcheck.localization.op_align import OpDivergence
from migcheck.localization.op_axes import one_step_further, other_axes
from migcheck.localization.op_refused import refused_forms
from migcheck.localization.op_sequence import reordered_sequences
from migcheck.localization.raising_op import same_operation
from migcheck.localization.op_compose import scale_candidates, size_candidates, transpose_candidates
from migcheck.localization.op_numbers import region_numbers
from migcheck.localization.op_unused import unused_results
from migcheck.records.ops import OpChange, OpRecord, placed
from migcheck.runners.base import Argument, Constructor


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


def candidates(div: OpDivergence, ms_ops: Sequence[OpRecord], named: Any = None,
               torch_ops: Sequence[OpRecord] = ()) -> List[Tuple[OpChange, str]]:
    """(change, what it is in words) for one diverging op, most likely first; `torch_ops` say what torch's
    counterpart of an op the drop candidate reads from returned."""
    ms_c, where = as_constructor(div.ms)
    torch_c = Constructor("", True, ())
    if div.torch is not None:
        same_op = base_name(div.torch.name).lower() == base_name(div.ms.name).lower()
        # the same op with no names on MindSpore's side: both sides' positionals aligned by position, even where
        # torch's docstring names them (Tensor.mul's `value`)
        torch_op = dataclasses.replace(div.torch, names=()) if same_op and not div.ms.names else div.torch
        torch_c = as_constructor(torch_op, div.ms.names if same_op else ())[0]
    out = []
    if div.ms.sliced_by:  # an index result is a copy: the base is what later ops read
        out.append((OpChange(div.ms.index, write_back=True), f"'{div.ms.name}' writing its result back through"
                                                             f" the index {div.ms.sliced_by} it was applied to"))
    elif div.ms.unchanged_self:
        out.append((OpChange(div.ms.index, write_back=True), f"'{div.ms.name}' updating its tensor in place"))
    for cand in setting_candidates(torch_c, ms_c):
        out.append((placed(div.ms.index, where, cand.changes), f"{cand.label()}"))
    out += explicit_torch_keywords(div) + _keyword_as_input_scale(div) + rebound_positionals(div) + shape_arguments(div) + other_repetition(div)
    out += reshaped_inputs(div) + refused_forms(div) + layout_changes(div) + reordered_sequences(div.ms)
    out += other_axes(div.ms, {a.name: a.value for a in ms_c.arguments}, where)
    out += region_numbers(div.ms.index, ms_c, where, torch_ops) if div.torch is None or not same_op else []
    out += unused_results(div, ms_ops)
    if div.torch is None or [o.shape for o in div.torch.outputs] != [o.shape for o in div.ms.outputs]:
        out += one_step_further(div.ms, {a.name: a.value for a in ms_c.arguments}, where, div.torch,
                                [x for r in torch_ops for x in r.inputs + r.outputs])  # a length that differs
    by_index = {r.index: r for r in ms_ops}
    drop = []
    if div.ms.inputs:  # an op the port added (an index [0] kept from torch's (values, indices) result)
        fed = [by_index[i] for i in div.producers if i in by_index]
        source = f" on the result of {call_words(fed[-1])}" if fed else ""
        returned = fewer_results(fed[-1], torch_ops) if fed else ""
        drop = [(OpChange(div.ms.index, drop=True),
                 f"'{call_words(div.ms)}'{source} dropped (its input handed on){returned}")]
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
    if div.torch is not None and nan_from_inf(div.ms.inputs, div.ms.outputs, div.torch.outputs):  # a masked -inf
        out.append((OpChange(div.ms.index, finite=True),
                    f"its -inf/inf inputs clamped to large finite values ('{div.ms.name}' returns NaN where an"
                    f" input holds -inf and torch's '{div.torch.name}' is finite)"))
    narrow = div.ms.inputs[0].dtype if div.ms.inputs else None
    if narrow in (np.float16, np.float32) and all(x.dtype == narrow for x in div.ms.inputs) and div.ms.outputs \
            and div.ms.outputs[0].dtype == narrow:  # a kernel less accurate than torch's (float16: torch accumulates wider)
        out.append((OpChange(div.ms.index, precise=True), f"'{div.ms.name}' computed in float64 (its {narrow.name}"
                                                          f" inputs widened, its result handed back in {narrow.name})"))
    out += scale_candidates(div.ms)  # a refused number as a scale applied outside the op (op_compose.py)
    out += size_candidates(div.ms, div.torch)  # an output size in place of a refused scale (interpolate)
    out += transpose_candidates(div.ms, named)  # a matrix handed over the other way round (x @ W for x @ W.T)
    for index in (div.ms.index,) + div.producers:
        if len(by_index[index].outputs) >= 2:
            out.append((OpChange(index, swap_outputs=True), f"'{by_index[index].name}' results in the other order"))
            for k, o in enumerate(by_index[index].outputs):  # a square matrix result the other way round (svd's v)
                if o.ndim >= 2 and o.shape[-1] == o.shape[-2] > 1:
                    out.append((OpChange(index, transpose_out=(k,)),
                                f"'{by_index[index].name}' result {k} transposed (swapaxes(-2, -1))"))
    # whatever the shapes: only the construct's re-run agreeing with torch confirms a drop
    return out + ([] if same_shape else drop)


def _casts(div: OpDivergence, tensor_at: Sequence[int]) -> List[Tuple[OpChange, str]]:
    """Where the port's call returns another dtype than torch's op (ops.ReduceSum on a bool mask returns bool,
    torch's sum int64; ops.mean of an int mask truncates where torch's computes in float32): each tensor argument
    of another dtype handed over as torch's result dtype, the port's own call kept (tried before another function
    in its place). A call that raised on its input's dtype gets the same, its input cast to torch's result dtype."""
    t = div.torch
    if t is None or not t.outputs or not (div.ms.outputs or div.ms.raised):
        return []
    want = t.outputs[0].dtype
    got = div.ms.outputs[0].dtype if div.ms.outputs else None
    # a logical op fed floats (Tensor.any): both return bool, the port's kernel reads the floats otherwise
    logical = got == want and want.kind == "b" and same_operation(div.ms.name, t.name)
    if (got == want and not logical) or (got is None and want.kind == "b"):
        return []
    out = []
    for j, k in enumerate(tensor_at[:len(div.ms.inputs)]):
        given = div.ms.inputs[j].dtype
        if given == want or (got is None and given.kind not in "iub") or (logical and given.kind != "f"):
            continue
        name = f"{div.ms.names[k]} argument" if k < len(div.ms.names) else f"argument {k}"
        why = (f"torch's '{t.name}' returns bool from the same {given.name} values (nonzero is True)" if logical
               else f"torch's '{t.name}' returns {want.name} where the port's call returns {got.name}" if got is not None
               else f"the port's {given.name} input is refused; torch's result is {want.name}")
        out.append((OpChange(div.ms.index, cast=((k, want.name),)), f"its {name} cast to {want.name} ({why})"))
    if got is not None and got != want and same_operation(div.ms.name, t.name):  # given torch's result dtype, or cast
        short = base_name(div.ms.name)
        out += [(change, f"{shown} (torch's '{t.name}' returns {want.name} where the port's call returns {got.name})")
                for change, shown in dtype_changes(div.ms, want.name, short)]
    return out


def _keyword_as_input_scale(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """A number torch's call passes by a keyword the port's function does not take (index_add's alpha): each
    float tensor argument of the port's call handed over times it."""
    t = div.torch
    if t is None:
        return []
    taken = set(div.ms.names) | {k for k, _ in div.ms.keywords}
    tensor_at = [k for k, v in enumerate(div.ms.positional) if v == "<tensor>"][:len(div.ms.inputs)]
    out = []
    for key, value in t.keywords:
        if key in taken or not isinstance(value, float) or value in (0.0, 1.0):  # an int is a count or an axis
            continue
        for j, k in enumerate(tensor_at):
            if div.ms.inputs[j].dtype.kind == "f":
                name = div.ms.names[k] if k < len(div.ms.names) else f"argument {k}"
                out.append((OpChange(div.ms.index, scale_input=((k, float(value)),)),
                            f"torch's {key}={value!r} applied to its {name} argument (the port's call takes no {key})"))
    return out


def dtype_changes(r: OpRecord, want: str, short: str) -> List[Tuple[OpChange, str]]:
    """The call given dtype=mindspore.<want> (where its function takes a dtype), then its result cast to it."""
    out = []
    if "dtype" in r.names or "dtype" in dict(r.keywords) or (r.doc and re.search(r"\bdtype\b", r.doc)):
        out.append((OpChange(r.index, dtype_keyword=want), f"{short}(..., dtype=mindspore.{want})"))
    out.append((OpChange(r.index, result_dtype=want), f"{short}(...).astype(mindspore.{want})"))
    return out


def explicit_torch_keywords(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """The same op on both sides: torch's keyword arguments, its defaults included, passed by torch's own names
    where the port's call names none of them (MindSpore's Tensor.std takes torch's correction=1 when it is said,
    and keeps ddof=0 when it is not)."""
    t = div.torch
    if t is None or base_name(t.name).lower() != base_name(div.ms.name).lower():
        return []
    port = set(div.ms.names) | {k for k, _ in div.ms.keywords}
    given = tuple((k, v) for k, v in t.keywords if k not in port and k != "out" and v is not None and _value_ok(v)
                  and v != "<tensor>")
    if not given:
        return []
    return [(OpChange(div.ms.index, given), f"torch's {', '.join(f'{k}={v!r}' for k, v in given)} said explicitly"
             f" (by torch's names)")]


def reshaped_inputs(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """The op fed what torch's call was, by what the two results show: torch's result has no axes where the
    port's has some (torch's call reduced over all elements; the port's reduces one axis by default)."""
    t = div.torch
    if t is None or not t.outputs or not div.ms.inputs or not (div.ms.outputs or div.ms.raised):
        return []
    theirs, given = t.outputs[0], div.ms.inputs[0]
    mine = div.ms.outputs[0] if div.ms.outputs else None
    out = []
    if mine is not None and theirs.ndim == 0 and mine.ndim > 0 and given.ndim > 1:
        out.append((OpChange(div.ms.index, flatten=True), "its input flattened to 1-D (torch's call has no axis:"
                    " it reduces over all elements)"))
    return out


def layout_changes(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """An op that only moves elements (its result holds as many as its input, as torch's counterpart's does: a
    reshape, a permute): its input transposed first, two axes swapped (tokens reshaped to a feature map without
    their transpose), a shape argument given torch's result shape, and a permutation argument in the other orders
    that give torch's result shape. What decides is the re-run."""
    t = div.torch
    if t is None or not t.outputs or not div.ms.outputs or not div.ms.inputs:
        return []
    given, mine, theirs = div.ms.inputs[0], div.ms.outputs[0], t.outputs[0]
    if not (given.size == mine.size == theirs.size) or given.ndim < 2 or given.ndim > 5:
        return []
    out = []
    named = list(zip(div.ms.names, div.ms.positional)) + list(div.ms.keywords)
    for name, value in named:
        if not (isinstance(value, tuple) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            continue
        if sorted(value) == list(range(given.ndim)) and len(value) == given.ndim:  # a permutation
            for perm in itertools.permutations(range(given.ndim)):
                if perm != value and tuple(given.shape[i] for i in perm) == theirs.shape:
                    out.append((OpChange(div.ms.index, ((name, perm),)), f"{name}={perm} (another order giving"
                                f" torch's result shape {theirs.shape})"))
        elif -1 in value or int(np.prod(value)) == given.size:  # a shape
            if tuple(value) != theirs.shape and theirs.shape != mine.shape:
                out.append((OpChange(div.ms.index, ((name, tuple(theirs.shape)),)),
                            f"{name}={tuple(theirs.shape)} (torch's result shape)"))
    for i, j in itertools.combinations(range(given.ndim), 2):
        out.append((OpChange(div.ms.index, swap_axes=(i, j)), f"its input transposed first (axes {i} and {j} swapped)"))
    return out[:12]


def shape_arguments(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """Where the port's op returns another shape than torch's counterpart: a tuple of ints as long as that output
    has axes, read as an end (minus another tuple of the call: a begin) where the op takes a size
    (ops.slice(x, begin, size) given torch's end). Giving it torch's result shape outright is
    reshaped_inputs' candidate."""
    if div.torch is None or not div.torch.outputs or not div.ms.outputs \
            or div.torch.outputs[0].shape == div.ms.outputs[0].shape:
        return []
    want = tuple(div.torch.outputs[0].shape)
    args = [(k, v) for k, v in enumerate(div.ms.positional)] + list(div.ms.keywords)
    tuples = [(k, v) for k, v in args if isinstance(v, tuple) and v and all(
        isinstance(x, int) and not isinstance(x, bool) for x in v)]
    out = []
    for k, v in tuples:
        name = (div.ms.names[k] if k < len(div.ms.names) else f"argument {k}") if isinstance(k, int) else k
        if len(v) != len(want):
            continue
        for j, other in tuples:
            if j != k and len(other) == len(v) and isinstance(k, int) and isinstance(j, int):
                less = tuple(a - b for a, b in zip(v, other))
                other_name = div.ms.names[j] if j < len(div.ms.names) else f"argument {j}"
                out.append((OpChange(div.ms.index, minus=((k, j),)),
                            f"its {name} {v} read as an end: {name} - {other_name} = {less} (the op takes a {name})"))
    return out[:4]


def other_repetition(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """An op that grows one axis of its one tensor k times by copying (output size k x input size, that axis k
    times longer): the other way of copying, measured on its own output. Whole copies (ops.tile) where the port
    repeats each element in place, each element in place (ops.repeat_interleave) where it tiles: LLaMA's
    repeat_kv repeats each key head, a port that tiles them pairs heads with the wrong keys."""
    if len(div.ms.inputs) != 1 or not div.ms.outputs:
        return []
    x, y = div.ms.inputs[0], div.ms.outputs[0]
    if x.ndim != y.ndim or y.size % max(x.size, 1) or x.size == 0:
        return []
    grown = [a for a in range(x.ndim) if y.shape[a] != x.shape[a]]
    if len(grown) != 1 or y.shape[grown[0]] % x.shape[grown[0]]:
        return []
    axis, k = grown[0], y.shape[grown[0]] // x.shape[grown[0]]
    dims = tuple(k if a == axis else 1 for a in range(x.ndim))
    out = []
    if np.array_equal(y, np.tile(x, dims)):
        out.append((OpChange(div.ms.index, replace="repeat_interleave", tensors=(("input", 0),),
                             arguments=(("repeats", k), ("axis", axis)),
                             shown=f"ops.repeat_interleave(x, {k}, {axis})"),
                    f"ops.repeat_interleave(x, {k}, {axis}) in its place (each element repeated in place; the port"
                    f" copies the whole axis {k} times)"))
    elif np.array_equal(y, np.repeat(x, k, axis=axis)):
        out.append((OpChange(div.ms.index, replace="tile", tensors=(("input", 0),), arguments=(("dims", dims),),
                             shown=f"ops.tile(x, {dims})"),
                    f"ops.tile(x, {dims}) in its place (the whole axis copied {k} times; the port repeats each"
                    f" element in place)"))
    return out


def rebound_positionals(div: OpDivergence) -> List[Tuple[OpChange, str]]:
    """The port's last positional value, where torch's call gives the same value at that place under another
    parameter's name that MindSpore's function also has (ops.flatten(x, 2): MindSpore's second parameter is
    order, torch's is start_dim): moved to that keyword."""
    t, m = div.torch, div.ms
    k = len(m.positional) - 1
    if t is None or k < 1 or m.positional[k] == "<tensor>" or k >= len(m.names) or k >= len(t.names) \
            or k >= len(t.positional) or t.positional[k] != m.positional[k]:
        return []
    wanted, held = t.names[k], m.names[k]
    if wanted == held or not (wanted in m.names or wanted in dict(m.keywords)):
        return []
    v = m.positional[k]
    return [(OpChange(m.index, arguments=((wanted, v),), order=tuple(range(k))),
             f"its {v!r} passed as {wanted}={v!r} (torch's argument {k} is {wanted}, MindSpore's is {held})")]


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
                        small = t.inputs[hit[1]] if hit[1] < len(t.inputs) else None
                        if small is None or small.ndim != 1 or small.size > 64:
                            ok = False
                            break
                        kwargs[param] = [float(v) if small.dtype.kind == "f" else int(v) for v in small.tolist()]
                        continue  # a small constant torch holds as a tensor (bucketize's boundaries): its values
                    tensors.append((param, ms_of[hit[1]]))
                elif hit is not None and _value_ok(hit):
                    kwargs[param] = hit
                elif not has_default:
                    ok = False
                    break
            key = (name, tuple(tensors), tuple(sorted(kwargs.items(), key=lambda kv: kv[0])))
            if ok and tensors and repr(key) not in seen:
                seen.add(repr(key))
                shown = f"{shown_function(name)}({_in_order(params, dict(tensors), kwargs)})"
                out.append((OpChange(div.ms.index, tuple(kwargs.items()), replace=name, tensors=tuple(tensors),
                                     shown=shown), f"{shown} in its place, called as torch calls {t.name}"))
                if one_up(base_name(t.name), name):
                    out.append(_lifted(div, name, params, dict(tensors), kwargs))
    return out


def shown_function(name: str) -> str:
    """A candidate function as code in a fix: "ops.roll"; "mindspore.numpy.roll" for functions_like's "numpy.roll"."""
    return f"mindspore.{name}" if name.startswith("numpy.") else f"ops.{name}"


def one_up(base: str, name: str) -> bool:
    """`name` is `base` one dimension up (adaptive_avg_pool2d for adaptive_avg_pool1d): the same op over one more
    spatial axis, which computes the lower one over a unit axis."""
    m = re.search(r"(\d)d", base)
    return m is not None and name == base[:m.start(1)] + str(int(m[1]) + 1) + base[m.end(1):]


def _lifted(div: OpDivergence, name: str, params: Sequence[Tuple[str, bool]], tensors: Mapping[str, int],
            kwargs: Mapping[str, Any]) -> Tuple[OpChange, str]:
    """The op computed by its next-dimension sibling: a unit axis before the last, each size n given as (1, n)."""
    lifted = {k: (1, v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in kwargs.items()}
    first = next(iter(tensors))
    args = _in_order(params, tensors, lifted).replace(first, f"{first}.expand_dims(-2)", 1)
    shown = f"{shown_function(name)}({args}).squeeze(-2)"
    return (OpChange(div.ms.index, tuple(lifted.items()), replace=name, tensors=tuple(tensors.items()), shown=shown,
                     lift=True), f"{shown} in its place: torch's {div.torch.name} computed by the op one dimension up,"
            f" over a unit axis")


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


def base_name(name: str) -> str:
    return name.split(".")[-1].strip("_")


def call_words(r: OpRecord) -> str:
    """'Tensor.__getitem__(0)': the call with its plain arguments (tensors left out)."""
    plain = [repr(v) for v in r.positional if v != "<tensor>" and not isinstance(v, tuple)]
    plain += [f"{k}={v!r}" for k, v in r.keywords if v != "<tensor>"]
    return f"{r.name}({', '.join(plain)})" if plain else r.name


def fewer_results(producer: OpRecord, torch_ops: Sequence[OpRecord]) -> str:
    """Words for a MindSpore call that returned one tensor where torch's call of that name on inputs of the same
    shapes returned a named tuple: which of torch's results it equals, measured on the recorded values."""
    if len(producer.outputs) != 1:
        return ""
    got = producer.outputs[0]
    for t in torch_ops:
        if base_name(t.name).lower() != base_name(producer.name).lower() or len(t.outputs) < 2 \
                or [x.shape for x in t.inputs[:1]] != [x.shape for x in producer.inputs[:1]] or not t.result_names:
            continue
        for k, out in enumerate(t.outputs):
            if out.shape == got.shape and np.allclose(out, got, rtol=1e-5, atol=1e-6, equal_nan=True):
                others = [n for j, n in enumerate(t.result_names) if j != k]
                return (f"; MindSpore's {producer.name} returned the {t.result_names[k]} only, not the"
                        f" {' and '.join(others)} (torch's {t.name} returns {', '.join(t.result_names)}), so an index"
                        f" kept from torch's call picks from that tensor itself")
    return ""
