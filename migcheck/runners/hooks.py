"""What a runner hands localization about its modules, framework-agnostic: a forward hook that records one
Call per sub-module, and a module's public settings as plain values (what rules and re-runs read)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List

from migcheck.records.findings import Call
from migcheck.util.tree import lenient


def hook_recorder(calls: List[Call], name: str, is_tensor: Callable[[Any], bool],
                  convert: Callable[[Any], Any], error: type) -> Callable[[Any, tuple, Any], None]:
    """A forward hook (module, args, output) that appends one Call: both runners register these.

    Output leaves that `convert` rejects with `error` (None, non-tensor objects) are kept as None.
    """
    def record(module: Any, args: tuple, output: Any) -> None:
        tensors = tuple(convert(a) for a in args if is_tensor(a))
        calls.append(Call(name, type(module).__name__, tensors, lenient(output, convert, error)))

    return record


def _plain(value: Any) -> bool:
    return isinstance(value, (bool, int, float, str, type(None))) or (
        isinstance(value, tuple) and all(isinstance(v, (bool, int, float, str)) for v in value))


def plain_config(obj: Any) -> Dict[str, Any]:
    """Public attributes with plain values: what rules may look at.

    MindSpore cells keep some settings only on the operator they hold (e.g. AvgPool2d's
    ceil_mode and count_include_pad live on its AvgPool primitive's public ``attrs``): those are
    merged in, the cell's own attributes winning.
    """
    out: Dict[str, Any] = {}
    for key, value in vars(obj).items():
        if key.startswith("_"):
            continue
        if _plain(value):
            out[key] = value
        elif isinstance(getattr(value, "attrs", None), dict):
            for attr, inner in value.attrs.items():
                if _plain(inner):
                    out.setdefault(attr, inner)
    return out
