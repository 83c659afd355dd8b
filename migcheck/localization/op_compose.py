"""A refused number as a composition: an op that raised on one of its number arguments (MindSpore's Elu takes only
alpha=1.0) run with that argument at 1.0 and the port's value applied outside it, as a scale of the whole result
or of its negative branch. Candidates come from the raised call's own arguments; only a re-run of the construct
that then agrees with torch confirms one (op_search.py), and its code is the workaround printed.
"""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from migcheck.records.ops import OpChange, OpRecord
from migcheck.runners.probes import MindSporeProbe


def _numbers(r: OpRecord) -> List[Tuple[str, float]]:
    named = list(zip(r.names, r.positional)) + [(k, v) for k, v in r.keywords]
    return [(k, float(v)) for k, v in named if isinstance(v, float) and not isinstance(v, bool) and v not in (0.0, 1.0)]


def scale_candidates(ms_op: OpRecord) -> List[Tuple[OpChange, str]]:
    """For an op that raised: each float argument set to 1.0 with its value as a scale of the result where the
    input is negative, then of the whole result."""
    if not ms_op.raised:
        return []
    out = []
    for name, value in _numbers(ms_op):
        for negative in (True, False):
            where = "where its input is negative" if negative else "everywhere"
            out.append((OpChange(ms_op.index, ((name, 1.0),), scale=value, scale_negative=negative),
                        f"'{ms_op.name}' run with {name}=1.0 (a value it accepts) and its result {where} times the"
                        f" port's {name}={value!r}: {name} as a scale"))
    return out


def scale_fix(ms_op: OpRecord, change: OpChange, others: Sequence[Any] = ()) -> str:
    """The workaround as code: the op at 1.0, then the scale applied outside it."""
    name = dict(change.arguments)
    (arg, _), = change.arguments
    call = f"{ms_op.name}(x, ..., {arg}={name[arg]!r})"
    if change.scale_negative:
        return (f"y = {call}; y = ops.where(x < 0, {change.scale!r} * y, y) in place of {ms_op.name}(x, ..., "
                f"{arg}={change.scale!r}) ({arg} applied as the negative branch's scale, which MindSpore refuses)")
    return f"y = {change.scale!r} * {call} in place of {ms_op.name}(x, ..., {arg}={change.scale!r})"


def layer_scale_workaround(cell: MindSporeProbe, ms_name: str, inputs: Sequence[Any], torch_out: Any, refused: str,
                           tol: Any) -> Tuple[str, str]:
    """The same for a layer whose constructor argument MindSpore's op refuses (nn.ELU(alpha=0.5)): the layer
    rebuilt with that argument at 1.0, its output scaled outside it (where the input is negative, then
    everywhere), re-run on torch's recorded input. (cause, fix) when one agrees with torch, else ("", "")."""
    import numpy as np

    from migcheck.localization.confirm import agree

    try:
        args = cell.constructor(ms_name).arguments
    except Exception:  # no constructor to read: nothing to rebuild
        return "", ""
    x = np.asarray(inputs[0]) if inputs else None
    for a in args:
        if not (isinstance(a.value, float) and a.value not in (0.0, 1.0) and f"{a.name}=" in refused):
            continue
        try:
            base = cell.rerun_rebuilt(ms_name, list(inputs), {a.name: 1.0})
        except Exception:  # 1.0 is refused too
            continue
        if not isinstance(base, np.ndarray) or x is None or x.shape != base.shape:
            continue
        kind = cell.subcell_kind(ms_name)
        for negative in (True, False):
            got = np.where(x < 0, a.value * base, base) if negative else a.value * base
            if agree(torch_out, got.astype(base.dtype), tol):
                where = "where its input is negative" if negative else "everywhere"
                cause = (f"MindSpore's {kind} refuses {a.name}={a.value!r}; rebuilt with {a.name}=1.0 (a value it"
                         f" accepts) and its output {where} multiplied by {a.value!r}, re-run on torch's recorded"
                         f" input, it agrees with torch: {a.name} acts as a scale there")
                scaled = f"ops.where(x < 0, {a.value!r} * y, y)" if negative else f"{a.value!r} * y"
                return cause, (f"y = nn.{kind}({a.name}=1.0)(x); y = {scaled} in place of "
                               f"nn.{kind}({a.name}={a.value!r}) (a workaround: MindSpore refuses the value)")
    return "", ""


def transpose_candidates(ms_op: OpRecord, named: Any = None) -> List[Tuple[OpChange, str]]:
    """For an op of two or more tensors (matmul, bmm): each float matrix argument with its last two axes swapped
    (torch's F.linear computes x @ W.T where a port writes matmul(x, W)). named(array): what the port called that
    tensor (a parameter's name), or ""."""
    tensor_at = [k for k, v in enumerate(ms_op.positional) if v == "<tensor>"][:len(ms_op.inputs)]
    if len(tensor_at) < 2:
        return []
    out = []
    for j, k in enumerate(tensor_at):
        x = ms_op.inputs[j]
        if x.ndim < 2 or x.dtype.kind != "f":
            continue
        param = ms_op.names[k] if k < len(ms_op.names) else f"argument {k}"
        called = named(x) if named is not None else ""
        what = f"its {param} argument" + (f" (the parameter '{called}')" if called else "")
        out.append((OpChange(ms_op.index, transpose=(k,)), f"{what} transposed (swapaxes(-2, -1))"))
    return out


def transpose_fix(ms_op: OpRecord, change: OpChange) -> str:
    k = change.transpose[0]
    param = ms_op.names[k] if k < len(ms_op.names) else f"argument {k}"
    return f"{ms_op.name}(..., {param}={param}.swapaxes(-2, -1), ...): hand {ms_op.name} the transposed {param}"


def parameter_namer(cell: MindSporeProbe, ms_name: str) -> Any:
    """array -> the name of the sub-cell's parameter holding exactly that value ("" when none does)."""
    import numpy as np

    try:
        prefix = f"{ms_name}." if ms_name else ""
        state = {k[len(prefix):]: v for k, v in cell.state().items() if k.startswith(prefix)}
    except Exception:  # no state to read: tensors stay unnamed
        state = {}

    def named(x: Any) -> str:
        return next((k for k, v in state.items() if np.shape(v) == np.shape(x) and np.array_equal(v, x)), "")

    return named


def size_candidates(ms_op: OpRecord, torch_op: Any) -> List[Tuple[OpChange, str]]:
    """For an op that raised and takes an output `size` (interpolate refusing a scale_factor for a mode): the size
    torch's counterpart produced (its output's trailing axes), with the op's scale arguments cleared."""
    if not ms_op.raised or torch_op is None or not torch_op.outputs or not ms_op.inputs:
        return []
    names = set(ms_op.names) | {k for k, _ in ms_op.keywords}
    out_shape, in_shape = torch_op.outputs[0].shape, ms_op.inputs[0].shape
    if "size" not in names or len(out_shape) != len(in_shape) or len(out_shape) < 3:
        return []
    size = tuple(int(n) for n in out_shape[2:])
    given = dict(zip(ms_op.names, ms_op.positional))
    given.update(dict(ms_op.keywords))
    cleared = tuple((k, None) for k in sorted(names) if "scale" in k.lower() and given.get(k) is not None)
    ratio = {round(o / i, 6) for o, i in zip(out_shape[2:], in_shape[2:]) if i}
    why = (f"the input's {tuple(in_shape[2:])} times {ratio.pop():g}" if len(ratio) == 1 else "torch's output size")
    return [(OpChange(ms_op.index, (("size", size),) + cleared),
             f"size={size} ({why}, the size torch's {torch_op.name} returned) in place of "
             + ", ".join(k for k, _ in cleared))] if cleared else []


_SIZE_NAMES = ("s", "size", "output_size", "shape", "n")


def output_size_candidates(ms_op: OpRecord, torch_out: Any) -> List[Tuple[OpChange, str]]:
    """An op whose output has the rank of torch's result but not its trailing sizes, with a size argument it left
    None (irfft2's s, which then rounds an odd length down): that argument set to torch's trailing sizes."""
    if not ms_op.outputs or torch_out is None or ms_op.raised:
        return []
    mine, want = ms_op.outputs[0].shape, np.shape(torch_out)
    if len(mine) != len(want) or mine == want or len(want) < 2:
        return []
    given = dict(zip(ms_op.names, ms_op.positional))
    given.update(dict(ms_op.keywords))
    out = []
    for name in _SIZE_NAMES:
        if name in given and given[name] is None:
            for k in range(1, min(3, len(want) - 1) + 1):
                size = tuple(int(n) for n in want[-k:])
                value = size[0] if name == "n" and k == 1 else size
                out.append((OpChange(ms_op.index, ((name, value),)),
                            f"{name}={value!r} (torch's result's last {k} size{'s' if k > 1 else ''})"))
    return out


def reduction_candidates(ms_op: OpRecord, target: Any) -> List[Tuple[OpChange, str]]:
    """An op whose result has one axis more than torch's result, the rest equal (a log-probability left per
    element where torch's sums over the event axis): that axis summed, then averaged, after the op."""
    if not ms_op.outputs or target is None or ms_op.raised:
        return []
    mine, want = tuple(ms_op.outputs[0].shape), tuple(np.shape(target))
    if len(mine) != len(want) + 1:
        return []
    axes = [a for a in range(len(mine)) if mine[:a] + mine[a + 1:] == want]
    return [(OpChange(ms_op.index, reduce_out=(kind, a - len(mine))),
             f"its result {'summed' if kind == 'sum' else 'averaged'} over axis {a - len(mine)} (torch's result has"
             f" every axis of the port's but that one)") for a in axes[-1:] for kind in ("sum", "mean")]
