"""Functional ops a module's own forward calls (not its children's), as torch ran them: what sits "between
A's output and B's input" when the first divergence is inside a container. Pure: the torch runner records
the calls (a TorchFunctionMode) and the module spans; this module names them and picks those in between.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

# Reads of metadata and conversions: never the cause, only noise in the list.
_QUIET = frozenset({"size", "dim", "numel", "shape", "dtype", "device", "is_floating_point", "is_contiguous",
                    "contiguous", "item", "tolist", "detach", "requires_grad_", "__get__", "__len__", "__repr__",
                    "__format__", "__bool__", "__index__", "__iter__", "__hash__", "__eq__", "__ne__", "stride",
                    "data_ptr", "element_size", "__setstate__", "__reduce_ex__", "__deepcopy__", "get_device",
                    "cpu", "numpy"})  # the capture hooks convert outputs with these
_OPERATORS = {"__add__": "+", "__radd__": "+", "__iadd__": "+=", "__sub__": "-", "__rsub__": "-", "__mul__": "*",
              "__rmul__": "*", "__imul__": "*=", "__truediv__": "/", "__rtruediv__": "/", "__itruediv__": "/=",
              "__matmul__": "@", "__rmatmul__": "@", "__pow__": "**", "__rpow__": "**", "__floordiv__": "//",
              "__mod__": "%", "__neg__": "-", "__lt__": "<", "__gt__": ">", "__le__": "<=", "__ge__": ">=",
              "__and__": "&", "__or__": "|", "__invert__": "~", "__getitem__": "[]"}


@dataclass(frozen=True)
class OpCall:
    seq: int  # position in the forward, on the same counter as the module spans
    owner: str  # the innermost module whose forward made the call ("" is the whole network)
    text: str  # e.g. "F.softmax(dim=-1)", "Tensor * 0.3536"


def describe(name: str, qualname: str, module: str, scalars: Sequence[Any], keywords: Sequence[Tuple[str, Any]]
             ) -> str:
    """A short name for one call, with its non-tensor arguments; "" for calls that only read metadata."""
    if not name or name in _QUIET:
        return ""
    shown = [_value(v) for v in scalars] + [f"{k}={_value(v)}" for k, v in keywords]
    if name in _OPERATORS:
        return f"Tensor {_OPERATORS[name]} {', '.join(shown)}".rstrip()
    owner = ("Tensor." if qualname.startswith(("Tensor.", "TensorBase.", "_TensorBase.")) else
             "F." if module.endswith("nn.functional") else "torch.")
    return f"{owner}{name}({', '.join(shown)})"


def _value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (tuple, list)):
        return "(" + ", ".join(_value(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


def ops_between(ops: Sequence[OpCall], owner: str, after: int, before: int, limit: int = 8) -> List[str]:
    """The calls owner's own forward made after sequence number `after` and before `before`, in order."""
    found = [o.text for o in ops if o.owner == owner and after < o.seq < before]
    return found if len(found) <= limit else found[:limit] + [f"... {len(found) - limit} more"]


def span_of(calls: Sequence[Any], name: str, *, before: Optional[int] = None, after: Optional[int] = None,
            last: bool = False) -> Optional[Tuple[int, int]]:
    """(start, end) sequence numbers of a call of `name` (the last one ending before `before`, or the first
    one starting after `after`); None when the calls carry no spans."""
    spans = [(c.start, c.end) for c in calls if c.name == name and c.start >= 0]
    if before is not None:
        spans = [s for s in spans if s[1] < before]
    if after is not None:
        spans = [s for s in spans if s[0] > after]
    if not spans:
        return None
    return spans[-1] if last else spans[0]
