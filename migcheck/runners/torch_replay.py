"""Counterfactual re-runs on the torch side: a forward's own calls replayed with one argument changed, a
layer's state after one train-mode forward, and gradients with a layer's setting changed.

The op recorder of the localization re-run keeps, for containers and the port's own layer classes (their
own calls, not their children's), each call's function, arguments and result. Replaying them in order, with every
argument that was an earlier call's result replaced by that call's replayed result and the children's
outputs held fixed, recomputes a region of a forward; changing one keyword of one call is the
counterfactual `migcheck.localization.op_replay` judges.
"""
from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from migcheck.records.ops import DROPPED, TENSOR, Change, OpSite
from migcheck.runners.torch_numpy import as_numpy


@dataclass(frozen=True)
class RawOp:
    seq: int
    owner: str
    func: Any
    args: tuple
    kwargs: Dict[str, Any]
    result: Any
    shown: bool  # False for metadata reads and conversions (kept: a later call may use their result)


def replayable(module: torch.nn.Module) -> set:
    """Modules whose own calls are kept: containers, the root and the port's own layer classes (torch.nn's
    childless layers are explained by the correspondence table instead)."""
    named = list(module.named_modules())
    return {n for n, m in named if n == "" or not type(m).__module__.startswith("torch.")
            or any(o.startswith(n + ".") for o, _ in named)}


_CONVERSIONS = ("detach", "cpu", "resolve_conj", "resolve_neg")  # the capture hooks' own, on the way to numpy


def keep_call(raw: List[RawOp], seq: int, owner: str, func: Any, args: tuple, kwargs: Dict[str, Any],
              shown: bool) -> Any:
    """Run one recorded call and keep it; a quiet call only where it makes a tensor (x.T), not the capture
    hooks' own detach/cpu conversions."""
    result = func(*args, **kwargs)
    if shown or isinstance(result, torch.Tensor) and getattr(func, "__name__", "") not in _CONVERSIONS:
        raw.append(RawOp(seq, owner, func, args, kwargs, result, shown))
    return result


def _shown(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return TENSOR
    if isinstance(v, (tuple, list)):
        return type(v)(_shown(x) for x in v)
    return v


def _first_rank(args: Sequence[Any]) -> int:
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.dim()
        if isinstance(a, (tuple, list)) and a and isinstance(a[0], torch.Tensor):
            return a[0].dim()
    return 0


def sites(raw: Sequence[RawOp], texts: Dict[int, str], owner: str, after: int, before: int) -> List[OpSite]:
    return [OpSite(r.seq, getattr(r.func, "__name__", ""), tuple(_shown(a) for a in r.args),
                   tuple((k, _shown(v)) for k, v in r.kwargs.items()), _first_rank(r.args), texts.get(r.seq, ""),
                   *signature_of(r.func))
            for r in raw if r.shown and r.owner == owner and after < r.seq < before]


def signature_of(func: Any) -> tuple:
    """(positional parameter names, plain defaults by name) of a Python-level torch function; () for a builtin."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # a builtin without a Python signature
        return (), ()
    names = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    plain = (bool, int, float, str, type(None))
    defaults = tuple((p.name, p.default) for p in params
                     if p.default is not inspect.Parameter.empty and isinstance(p.default, plain))
    return names, defaults


def replay(raw: Sequence[RawOp], owner: str, after: int, before: int, change: Optional[Change],
           to_numpy: Callable[[Any], Any]) -> Dict[int, Any]:
    """seq -> the replayed result (numpy) of each tensor-valued call in the region."""
    new: Dict[int, Any] = {}  # id(original result) -> replayed result

    def swap(v: Any) -> Any:
        if isinstance(v, torch.Tensor):  # a child's output is held fixed, copied: an in-place call must not change it
            return new[id(v)] if id(v) in new else v.clone()
        if isinstance(v, (tuple, list)):
            return type(v)(swap(x) for x in v)
        return v

    out = {}
    for r in raw:
        if r.owner != owner or not after < r.seq < before:
            continue
        args, kwargs = [swap(a) for a in r.args], {k: swap(v) for k, v in r.kwargs.items()}
        dropped = change is not None and change.seq == r.seq and r.shown and change.keyword == DROPPED
        if change is not None and change.seq == r.seq and r.shown and not dropped:
            if change.position is not None and len(args) > change.position and change.keyword not in kwargs:
                args[change.position] = change.value
            else:
                kwargs[change.keyword] = change.value
        passed = _passed_on(args, change.position, r.result) if dropped else None
        with torch.no_grad():
            value = passed if passed is not None else r.func(*args, **kwargs)
        originals = r.result if isinstance(r.result, (tuple, list)) else (r.result,)
        values = value if isinstance(value, (tuple, list)) else (value,)
        for o, v in zip(originals, values):
            if isinstance(o, torch.Tensor) and isinstance(v, torch.Tensor):
                new[id(o)] = v
        if isinstance(value, torch.Tensor) and r.shown:
            out[r.seq] = to_numpy(value)
    return out


def _passed_on(args: list, position: Optional[int], result: Any) -> Any:
    """The argument a left-out call passes on in its place: a tensor of its result's shape and dtype."""
    a = args[position] if position is not None and position < len(args) else None
    if isinstance(a, torch.Tensor) and isinstance(result, torch.Tensor) and a.shape == result.shape \
            and a.dtype == result.dtype:
        return a
    return None


class Replayer:
    """The op_sites / replay_ops interface op_replay.find_setting asks for, over a TorchModule's recorded trace."""

    def __init__(self, torch_module: Any) -> None:
        self.raw = getattr(torch_module, "trace", [])
        self.texts = getattr(torch_module, "trace_texts", {})
        nn_module = getattr(torch_module, "module", None)
        self.params = {id(p): n for n, p in nn_module.named_parameters()} if nn_module is not None else {}
        self.inputs = getattr(torch_module, "trace_inputs", {})

    def origins(self, seq: int) -> Tuple[str, ...]:
        """What each positional argument of one recorded call is: a parameter's name, the text of the call that
        computed it (through conversions such as .float()), "its input" for a value from outside, or the plain
        value itself."""
        r = next((x for x in self.raw if x.seq == seq), None)
        if r is None:
            return ()
        made = {id(x.result): x for x in self.raw if x.seq < seq and isinstance(x.result, torch.Tensor)}

        def name(v: Any, depth: int = 0) -> str:
            if not isinstance(v, torch.Tensor):
                return repr(v)
            if id(v) in self.params:
                return self.params[id(v)]
            producer = made.get(id(v))
            if producer is None:
                return self.inputs.get(id(v), "its input")
            source = next((a for a in producer.args if isinstance(a, torch.Tensor)), None)
            if not producer.shown and source is not None and depth < 4:  # a conversion passes its input on
                return name(source, depth + 1)
            return self.texts.get(producer.seq, getattr(producer.func, "__name__", "a call"))
        return tuple(name(a) for a in r.args)

    def op_sites(self, owner: str, after: int, before: int) -> List[OpSite]:
        return sites(self.raw, self.texts, owner, after, before)

    def replay_ops(self, owner: str, after: int, before: int, change: Optional[Change]) -> Dict[int, Any]:
        return replay(self.raw, owner, after, before, change, _numpy)

    def site_tensor(self, seq: int, keyword: str, position: Optional[int]) -> Any:
        """The tensor one recorded call passed for that argument (a loss's class weight), as numpy; None if none."""
        r = next((r for r in self.raw if r.seq == seq), None)
        if r is None:
            return None
        value = r.kwargs.get(keyword, r.args[position] if position is not None and position < len(r.args) else None)
        return _numpy(value) if isinstance(value, torch.Tensor) else None


def _numpy(t: torch.Tensor) -> Any:
    return as_numpy(t)


def _patch(module: Any, patch: Dict[str, Any]) -> Dict[str, Any]:
    saved = {k: getattr(module, k) for k in patch}
    for k, v in patch.items():
        setattr(module, k, v)
    return saved


def state_after(torch_module: Any, name: str, inputs: Sequence[Any], patch: Dict[str, Any],
                initial: Dict[str, Any]) -> Dict[str, Any]:
    """A copy of one layer, from the given initial state, with some attributes changed, after one train-mode
    forward on the inputs: its state (BatchNorm's running statistics), by the layer's own names."""
    layer = copy.deepcopy(torch_module.module.get_submodule(name) if name else torch_module.module)
    state = layer.state_dict()
    layer.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(initial[k])).to(v.dtype) if k in initial else v
                           for k, v in state.items()})
    _patch(layer, patch)
    layer.train(True)
    with torch.no_grad():
        layer(*[torch.from_numpy(np.ascontiguousarray(x)) for x in inputs])
    return {k: _numpy(v) for k, v in layer.state_dict().items()}


def gradients_patched(torch_module: Any, name: str, patch: Dict[str, Any], *args: Any) -> Any:
    """TorchModule.gradients(*args) with one layer's attributes changed for the pass, then put back."""
    layer = torch_module.module.get_submodule(name) if name else torch_module.module
    saved = _patch(layer, patch)
    try:
        return torch_module.gradients(*args)
    finally:
        _patch(layer, saved)
