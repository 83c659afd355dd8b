"""torch's own op calls of one module's forward as OpRecords (numpy), from the trace the localization re-run
kept (runners/torch_capture.py records it with a TorchFunctionMode; runners/torch_replay.RawOp)."""
from __future__ import annotations

import ast
import inspect
import re
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.records.ops import OpRecord
from migcheck.runners.torch_numpy import as_numpy

TENSOR = "<tensor>"


def _plain(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return TENSOR
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return f"<{value}>"


def _tensors(value: Any) -> List[np.ndarray]:
    if isinstance(value, torch.Tensor):
        return [as_numpy(value)] if value.numel() <= 1 << 20 else []
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _tensors(v)]
    return []


def _signature(func: Any) -> Optional[inspect.Signature]:
    """The function's signature; for a builtin without one (torch.linalg.cross), the one its docstring's first
    line writes out: 'linalg.cross(input, other, *, dim=-1, out=None) -> Tensor'."""
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        pass
    first = ((getattr(func, "__doc__", None) or "").strip().splitlines() or [""])[0]
    # a Tensor method's docstring leaves `self` out
    return doc_signature(first, method=getattr(func, "__objclass__", None) is not None)


def doc_signature(first_line: str, method: bool = False) -> Optional[inspect.Signature]:
    """'linalg.cross(input, other, *, dim=-1, out=None) -> Tensor' as a Signature; None when the line is not a
    call. Parsed as a def's parameters: only literal defaults are read, nothing is evaluated."""
    match = re.match(r"^[\w.]+\((.*)\)\s*(->.*)?$", first_line)
    if match is None:
        return None
    try:
        args = ast.parse(f"def f({match.group(1)}): pass").body[0].args
    except SyntaxError:
        return None
    if method:
        args.args.insert(0, ast.arg(arg="self"))
    kinds = [(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in args.args]
    kinds += [(a, inspect.Parameter.KEYWORD_ONLY) for a in args.kwonlyargs]
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults) + list(args.kw_defaults)
    params = []
    for (arg, kind), node in zip(kinds, defaults):
        try:
            default = inspect.Parameter.empty if node is None else ast.literal_eval(node)
        except ValueError:  # a default written as a name (torch.float32): its value is not read
            default = inspect.Parameter.empty
        params.append(inspect.Parameter(arg.arg, kind, default=default))
    try:
        return inspect.Signature(params)
    except ValueError:  # a required parameter after a defaulted one, as written
        return None


def _names(func: Any) -> Tuple[str, ...]:
    sig = _signature(func)
    if sig is None:
        return ()
    return tuple(p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _inside(owner: str, names: Sequence[str]) -> bool:
    return any(owner == n or owner.startswith(n + ".") for n in names)


def records(torch_module: Any, owner: str, inline: Sequence[str] = ()) -> List[OpRecord]:
    """The calls `owner`'s own forward made (the shown ones, with a tensor in or out), in order; the calls of
    the sub-modules named in `inline` count as `owner`'s (a torch module the port computes with ops inline)."""
    out = []
    for r in getattr(torch_module, "trace", []):
        if not (r.owner == owner or _inside(r.owner, inline)) or not r.shown:
            continue
        inputs = tuple(a for v in list(r.args) + list(r.kwargs.values()) for a in _tensors(v))
        outputs = tuple(_tensors(r.result))
        if inputs or outputs:
            names = _names(r.func)
            given = set(names[:len(r.args)]) | set(r.kwargs)
            unpassed = tuple((k, v) for k, v in _defaults(r.func) if k not in given)  # used without being said
            fields = getattr(type(r.result), "__match_args__", ()) or getattr(r.result, "_fields", ())  # torch.return_types
            out.append(OpRecord(r.seq, getattr(r.func, "__name__", "") or str(r.func), tuple(_plain(a) for a in r.args),
                                tuple((k, _plain(v)) for k, v in r.kwargs.items()) + unpassed, inputs, outputs, names,
                                result_names=tuple(fields) if len(fields) == len(outputs) else ()))
    return out


def _defaults(func: Any) -> Tuple[Tuple[str, Any], ...]:
    sig = _signature(func)
    if sig is None:
        return ()
    params = sig.parameters.values()
    return tuple((p.name, p.default) for p in params if p.default is not p.empty
                 and (p.default is None or isinstance(p.default, (bool, int, float, str))))


def rerun(torch_module: Any, owner: str, index: int, inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    """The call `records` gave `index` run again with its tensor arguments, in their recorded order, replaced by
    `inputs`; its tensor results as numpy. KeyError when no such call was recorded."""
    raw = next((r for r in getattr(torch_module, "trace", []) if r.seq == index
                and (r.owner == owner or owner == "" or r.owner.startswith(owner + "."))), None)
    if raw is None:
        raise KeyError(f"no recorded call {index} in {owner or '<root>'!r}")
    given = iter([torch.from_numpy(np.ascontiguousarray(x)) for x in inputs])

    def put(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return next(given)
        if isinstance(v, (tuple, list)):
            return type(v)(put(x) for x in v)
        return v

    args = tuple(put(a) for a in raw.args)
    kwargs = {k: put(v) for k, v in raw.kwargs.items()}
    with torch.no_grad():
        return _tensors(raw.func(*args, **kwargs))
