"""What a runner hands localization about its modules, framework-agnostic: a forward hook that records one
Call per sub-module, and a module's public settings as plain values (what rules and re-runs read)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from migcheck.records.findings import Call
from migcheck.util.tree import lenient


PlainArgs = Tuple[int, Tuple[Tuple[int, Any], ...]]  # (how many positional arguments, (position, value) of each plain one)


def hook_recorder(calls: List[Call], name: str, is_tensor: Callable[[Any], bool],
                  convert: Callable[[Any], Any], error: type,
                  plain: Optional[Dict[str, PlainArgs]] = None) -> Callable[[Any, tuple, Any], None]:
    """A forward hook (module, args, output) that appends one Call: both runners register these.

    Output leaves that `convert` rejects with `error` (None, non-tensor objects) are kept as None. With
    `plain`, a call's plain positional arguments (a height and width, a sequence length) are kept by module
    name, so that a re-run of that module alone on recorded tensors can pass them again (with_plain).
    """
    def record(module: Any, args: tuple, output: Any) -> None:
        tensors = tuple(convert(a) for a in args if is_tensor(a))
        calls.append(Call(name, type(module).__name__, tensors, lenient(output, convert, error)))
        if plain is not None:
            kept = tuple((i, a) for i, a in enumerate(args) if not is_tensor(a))
            if kept and all(_plain(a) for _, a in kept):
                plain[name] = (len(args), kept)

    return record


def with_plain(inputs: Sequence[Any], plain: Optional[PlainArgs]) -> List[Any]:
    """The recorded tensors (in order) with the module's plain arguments back at their positions; the tensors
    left over follow (a call given more tensors than the recorded one took)."""
    if plain is None:
        return list(inputs)
    count, kept = plain
    at = dict(kept)
    tensors = iter(inputs)
    out: List[Any] = []
    for i in range(count):
        if i in at:
            out.append(at[i])
            continue
        tensor = next(tensors, _MISSING)
        if tensor is _MISSING:  # fewer tensors than the recorded call had: stop there
            break
        out.append(tensor)
    return out + list(tensors)


_MISSING = object()


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
