"""The MindSpore call that raised: the port's forward re-run in PYNATIVE with the public call points wrapped
(as for the op-level backward, runners/mindspore_backward_ops.py) and the device queue drained after every
wrapped call, so an error surfaces at the op that launched it, not at a later op or layer."""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import mindspore as ms

from migcheck.records.ops import RaisingCall
from migcheck.runners.mindspore_backward_ops import RecordedOps
from migcheck.runners.op_text import float_text


_BOOKKEEPING = frozenset({"input_names", "output_names", "primitive_target", "side_effect_mem", "side_effect_io",
                          "side_effect_hidden", "_side_effect", "is_load", "recompute", "dyn_input_sizes"})


class _RaiseTape(RecordedOps):
    def __init__(self) -> None:
        super().__init__()
        self.raised: Optional[RaisingCall] = None
        self.made: Dict[str, int] = {}  # owner -> calls its own construct made so far
        self.position = -1  # the raising call's place among its owner's calls
        self.before: List[RaisingCall] = []  # every call that ran through before it, with its output
        self.last_child: Dict[str, str] = {}  # owner -> its child cell that finished last
        # which sub-cells' outputs a tensor was computed from (by id, the tensors held so ids stay unique)
        self.sources: Dict[int, FrozenSet[str]] = {}
        self._held: List[Any] = []

    def _leave(self, cell: Any, args: tuple, out: Any) -> None:
        child = self._stack[-1] if self._stack else ""
        super()._leave(cell, args, out)
        if child and self._stack:
            self.last_child[self._stack[-1]] = child
            self._mark(out, frozenset((child,)))

    def _mark(self, value: Any, sources: FrozenSet[str]) -> None:
        for t in _tensors_in(value):
            self.sources[id(t)] = sources
            self._held.append(t)

    def _fed_by(self, args: Sequence[Any]) -> FrozenSet[str]:
        return frozenset().union(*(self.sources.get(id(t), frozenset()) for t in _tensors_in(args)))

    def _wrap(self, name: str, fn: Callable) -> Callable:
        tape = self

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if tape._depth or not tape._stack:
                return fn(*args, **kwargs)
            tape._depth += 1
            owner = tape._stack[-1]
            tape.made[owner] = tape.made.get(owner, 0) + 1
            fed = tape._fed_by(list(args) + list(kwargs.values()))
            try:
                result = fn(*args, **kwargs)
                ms.runtime.synchronize()
                tape.before.append(RaisingCall(owner, name, call_text(name, args, kwargs), output=_arg(result)))
                tape._mark(result, fed)
            except Exception as exc:  # the call being looked for: kept, then raised on
                if tape.raised is None:
                    tape.position = tape.made[owner] - 1
                    tape.raised = RaisingCall(owner, name, call_text(name, args, kwargs),
                                              (str(exc).strip().splitlines() or [""])[0][:200],
                                              after=tape.last_child.get(owner, ""), fed_by=tuple(sorted(fed)))
                raise
            finally:
                tape._depth -= 1
            return result

        return wrapper


def raising_call(network: Any, call: Callable, args: Sequence[Any], train: bool
                 ) -> Optional[Tuple[RaisingCall, int, Tuple[RaisingCall, ...]]]:
    """(the first wrapped call that raised in one forward, its place among its owner's calls, the calls that
    ran before it); None when none did (or the forward ran through)."""
    tape = _RaiseTape()
    try:
        tape.run(network, call, args, train)
    except Exception:  # the failure being located
        return (tape.raised, tape.position, tuple(tape.before)) if tape.raised is not None else None
    return None


def _tensors_in(value: Any) -> List[Any]:
    if isinstance(value, ms.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_in(v)]
    return []


def call_text(name: str, args: Sequence[Any], kwargs: Any) -> str:
    body = [_arg(a) for a in (args[1:] if name.startswith("primitive ") else args)]
    body += [f"{k}={_arg(v)}" for k, v in kwargs.items()]
    settings = ""
    if name.startswith("primitive ") and args and isinstance(getattr(args[0], "attrs", None), dict):
        # a primitive's settings live on it, not in the call (LayerNorm's begin_norm_axis)
        shown = [f"{k}={_arg(v)}" for k, v in args[0].attrs.items() if k not in _BOOKKEEPING
                 and isinstance(v, (bool, int, float, str, tuple, list))]
        settings = f"[{', '.join(shown)}]" if shown else ""
    return f"{name}{settings}({', '.join(body)})"


def _arg(value: Any) -> str:
    if isinstance(value, ms.Tensor):
        return f"Tensor{list(value.shape)} {str(value.dtype).lower()}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_arg(v) for v in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
    if isinstance(value, float):
        return float_text(value)
    return repr(value) if isinstance(value, (bool, int, str, type(None))) else type(value).__name__
