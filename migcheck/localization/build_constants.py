"""Constants a port builds in its constructor (a window, a filterbank, frequency bands, a DCT matrix) that hold other
values than torch's, and which argument of which construction call makes them so (pure: running/constant_fixes.py
reads both networks' constants, records the library calls each constructor made, rebuilds with one argument
changed and re-runs the item; this module pairs the constants, proposes the arguments to try and words the defect).

Two searches, both over the calls the two constructors actually made: the port's calls given another value (an
enumeration's other members, a flag flipped, a number or string torch's own constructor used), so that the port's
constant comes out as torch's; and, where none does, torch's calls given another value, so that torch's constant
comes out as the port's: that names the setting the port's library call builds with implicitly (a symmetric window
where torch's is periodic)."""
from __future__ import annotations

import enum
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from migcheck.records.constants import BuildCall, BuildChange, ConstantDiff
from migcheck.records.findings import Defect

RULE = "construction-constant"
MAX_NUMBERS = 6  # torch's own numbers tried per numeric argument, in the order torch's constructor used them


def _leaf(path: str) -> Tuple[str, str]:
    owner, _, attr = path.rpartition(".")
    return owner, attr


def agrees(a: Optional[np.ndarray], b: Optional[np.ndarray]) -> bool:
    """Equal within float32 rounding of values built two ways (a constant is computed once, not trained)."""
    if a is None or b is None or np.shape(a) != np.shape(b):
        return False
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == bool or b.dtype == bool:
        return bool(np.array_equal(a, b))
    a, b = a.astype(np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64), b.astype(
        np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64)
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    return bool(np.allclose(a, b, rtol=1e-4, atol=1e-6 * max(scale, 1.0), equal_nan=True))


def _detail(t: np.ndarray, m: np.ndarray) -> str:
    if np.shape(t) != np.shape(m):
        return f"shape {tuple(np.shape(t))} vs {tuple(np.shape(m))}"
    err = np.abs(np.asarray(t, dtype=np.complex128) - np.asarray(m, dtype=np.complex128))
    err = np.where(np.isnan(err), np.inf, err)
    at = np.unravel_index(int(np.argmax(err)), err.shape) if err.size else ()
    return f"max abs err {float(np.max(err)):.3g} at {tuple(int(i) for i in at)}"


def differing_constants(torch_constants: Dict[str, np.ndarray], ms_constants: Dict[str, np.ndarray]
                        ) -> List[ConstantDiff]:
    """Pairs by the same layer path and attribute name, else within one layer by a shape only one constant of
    each side has; the pairs whose values differ."""
    diffs: List[ConstantDiff] = []
    unpaired_ms = {p: v for p, v in ms_constants.items() if p not in torch_constants}
    for path, t in torch_constants.items():
        m = ms_constants.get(path)
        owner, attr = _leaf(path)
        ms_attr = attr
        if m is None:
            same_shape = [p for p, v in unpaired_ms.items() if _leaf(p)[0] == owner and np.shape(v) == np.shape(t)]
            torch_same = [p for p, v in torch_constants.items() if _leaf(p)[0] == owner and np.shape(v) == np.shape(t)]
            if len(same_shape) != 1 or len(torch_same) != 1:
                continue
            m, ms_attr = unpaired_ms[same_shape[0]], _leaf(same_shape[0])[1]
        if not agrees(t, m):
            diffs.append(ConstantDiff(owner, attr, ms_attr, _detail(t, m)))
        elif np.asarray(t).dtype != np.asarray(m).dtype and np.asarray(t).dtype.kind in "fc":
            dtypes = (str(np.asarray(t).dtype), str(np.asarray(m).dtype))  # equal values, computed in another width
            diffs.append(ConstantDiff(owner, attr, ms_attr, f"dtype {dtypes[0]} vs {dtypes[1]}", dtypes))
    return diffs


def _numbers(calls: Sequence[BuildCall], want_int: bool) -> List[Any]:
    seen: List[Any] = []
    for call in calls:
        for _, v in call.arguments:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            if want_int and not float(v).is_integer():
                continue
            v = int(v) if want_int else float(v)
            if v not in seen:
                seen.append(v)
    return seen


def _strings(calls: Sequence[BuildCall]) -> List[str]:
    return list(dict.fromkeys(v for c in calls for _, v in c.arguments if isinstance(v, str) and v != "<tensor>"))


def _alternatives(value: Any, others: Sequence[BuildCall]) -> List[Any]:
    """The values one argument is tried with: an enumeration's other members, a flag's other value, the numbers
    or strings the other side's constructor used."""
    if isinstance(value, enum.Enum):
        return [m for m in type(value) if m is not value]
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, (int, float)):
        numbers = _numbers(others, want_int=isinstance(value, int) and not isinstance(value, bool))
        return [n for n in numbers if n != value][:MAX_NUMBERS]
    if isinstance(value, str) and value != "<tensor>":
        return [s for s in _strings(others) if s != value]
    return []


def candidates(calls: Sequence[BuildCall], others: Sequence[BuildCall]) -> List[BuildChange]:
    """Every (call, argument, value) to rebuild with: arguments left at their defaults first (an implicit setting
    is the likelier slip), then the ones written out."""
    first: List[BuildChange] = []
    then: List[BuildChange] = []
    for call in calls:
        for name, value in call.arguments:
            if name in ("out", "requires_grad", "device", "layout", "pin_memory", "memory_format"):
                continue
            bucket = first if name in call.defaulted else then
            bucket += [BuildChange(call.function, call.ordinal, name, v) for v in _alternatives(value, others)]
    return first + then


def value_text(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


def _short(function: str) -> str:
    return function.rpartition(".")[2]


def _call_of(calls: Sequence[BuildCall], change: BuildChange) -> Optional[BuildCall]:
    return next((c for c in calls if (c.function, c.ordinal) == (change.function, change.ordinal)), None)


def port_call_defect(diffs: Sequence[ConstantDiff], calls: Sequence[BuildCall], change: BuildChange, kinds: Tuple[str, str],
                     confirmed: bool, search: Tuple[float, Tuple[str, ...]]) -> Defect:
    """The port's construction call whose argument, changed, builds torch's values."""
    call = _call_of(calls, change)
    current = dict(call.arguments).get(change.argument) if call else None
    implicit = call is not None and change.argument in call.defaulted
    names = ", ".join(f"'{d.ms_attr}'" for d in diffs)
    owner = diffs[0].owner
    cause = (f"the port's constant {names} of '{owner or '<root>'}' is built in its constructor with other values"
             f" than torch's ({diffs[0].detail}): its call to {_short(change.function)} leaves"
             f" {change.argument}={value_text(current)}{' (its default)' if implicit else ''}, and with"
             f" {change.argument}={value_text(change.value)} it builds torch's values")
    fix = (f"{change.function}(..., {change.argument}={value_text(change.value)}) at {call.site if call else '?'};"
           f" re-run with it: the check agrees" if confirmed else "")
    evidence = (f"the port rebuilt with {change.argument}={value_text(change.value)} in that call holds torch's values"
                + ("; the item re-run with that port agrees" if confirmed else "; the item re-run with it still fails"))
    return Defect(0, owner, kinds[0], owner, kinds[1], evidence, cause, fix, "high" if confirmed else "medium",
                  confirmed, RULE, search[0], search[1])


def torch_call_defect(diffs: Sequence[ConstantDiff], calls: Sequence[BuildCall], change: BuildChange,
                      kinds: Tuple[str, str], confirmed: bool, search: Tuple[float, Tuple[str, ...]]) -> Defect:
    """torch's construction call that, with another argument, builds the port's values: the setting the port's
    own way of building the constant implies."""
    call = _call_of(calls, change)
    current = dict(call.arguments).get(change.argument) if call else None
    implicit = call is not None and change.argument in call.defaulted
    d = diffs[0]
    cause = (f"the port's '{d.ms_attr}' of '{d.owner or '<root>'}' holds the values {_short(change.function)} gives"
             f" with {change.argument}={value_text(change.value)}: torch's call builds it with"
             f" {change.argument}={value_text(current)}{' (its default)' if implicit else ''} ({d.detail})")
    fix = (f"build the port's '{d.ms_attr}' as {change.function}(..., {change.argument}={value_text(current)}) does"
           f" (torch's call at {call.site if call else '?'}); re-run with those values: the check agrees"
           if confirmed else "")
    evidence = (f"torch's module rebuilt with {change.argument}={value_text(change.value)} in that call holds the"
                f" port's values" + ("; the item re-run with torch's values in the port agrees" if confirmed else ""))
    return Defect(0, d.owner, kinds[0], d.owner, kinds[1], evidence, cause, fix, "high" if confirmed else "medium",
                  confirmed, RULE, search[0], search[1])


def constant_defect(diffs: Sequence[ConstantDiff], kinds: Tuple[str, str], replaced_agrees: bool,
                    search: Tuple[float, Tuple[str, ...]]) -> Defect:
    """No construction argument explains it: the constant itself is said, with whether torch's values fix it."""
    d = diffs[0]
    names = ", ".join(f"'{x.ms_attr}'" for x in diffs)
    cause = (f"the port's constant {names} of '{d.owner or '<root>'}', built in its constructor, holds other values"
             f" than torch's '{d.torch_attr}' ({d.detail}); no single argument of the constructor's library calls"
             f" ({len(search[1])} tried) builds torch's values")
    evidence = ("the item re-run with torch's values in the port's constant agrees" if replaced_agrees else
                "the item re-run with torch's values in the port's constant still fails")
    return Defect(0, d.owner, kinds[0], d.owner, kinds[1], evidence, cause, "", "medium", False, RULE, search[0],
                  search[1])


def dtype_defect(diffs: Sequence[ConstantDiff], kinds: Tuple[str, str], replaced_agrees: bool) -> Defect:
    """A constant whose values are torch's in another dtype (a table NumPy built in float64): what computes with
    it runs in that dtype, or refuses to mix it with float32."""
    d = diffs[0]
    torch_dtype, ms_dtype = d.dtypes
    cause = (f"the port's constant '{d.ms_attr}' of '{d.owner or '<root>'}', built in its constructor, is {ms_dtype}"
             f" where torch's '{d.torch_attr}' is {torch_dtype} (equal values): what computes with it runs in"
             f" {ms_dtype} or refuses to mix it with {torch_dtype}")
    fix = (f"build '{d.ms_attr}' as {torch_dtype}: mindspore.Tensor(<its values>, mindspore.{torch_dtype}) (a NumPy"
           f" table: .astype(numpy.{torch_dtype})); re-run with it in {torch_dtype}: the check agrees"
           if replaced_agrees else "")
    evidence = ("read off both constants; the item re-run with the port's constant in torch's dtype agrees"
                if replaced_agrees else "read off both constants; the item re-run with it in torch's dtype still fails")
    return Defect(0, d.owner, kinds[0], d.owner, kinds[1], evidence, cause, fix,
                  "high" if replaced_agrees else "medium", replaced_agrees, RULE)
