"""Verdict <-> JSON, derived from the dataclasses' own fields and type hints: one schema, versioned.

Reports, the journal, isolation workers, xdist and the pytest plugin all go through these two
functions, so a field added to a dataclass is written and read back everywhere at once.
JSON has no NaN/Infinity: non-finite floats are written as the strings "nan", "inf", "-inf" and
become floats again where the type hint says float (a case literally named "nan" stays a string).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import typing
from typing import Any, Dict, Tuple, Union

from migcheck.judging.verdict import Verdict

# 2 added a tensor's `error_sample` (for the HTML report's plots). A version-1 reader would reject
# that field, hence the bump; this reader takes both (a version-1 tensor just has no sample).
# 3 added a verdict's `framework_log` (native stderr captured during the item).
# 4 moved summary.json's bulk (tensors, mapping, localization rows) to the cell files, which may leave
# out fields at their defaults and hold a case's shared mapping once (migcheck.report.jsonfile).
# Later additions within 4 (a verdict's `judged_by`, a tensor's `budget_floor` and `standard_ok`, issue 24) need
# no bump: every reader of 4 skips fields it does not know.
SCHEMA_VERSION = 4
READABLE_SCHEMA_VERSIONS = (1, 2, 3, 4)

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def verdict_to_json(verdict: Verdict, lean: bool = False, error_samples: bool = True) -> Dict[str, Any]:
    """A JSON-ready dict: the dataclass fields, the item id, non-finite floats as strings.
    lean: fields (of the verdict and everything in it) at their default are left out; reading fills them in.
    error_samples False: each tensor's error_sample (the report's plot data, the bulk of a failing verdict) left
    out, as where the verdict only travels to be read (JUnit properties)."""
    if not error_samples:
        verdict = dataclasses.replace(verdict, tensors=tuple(dataclasses.replace(t, error_sample=None)
                                                             for t in verdict.tensors))
    data = _lean(verdict) if lean else dataclasses.asdict(verdict)
    data["item"] = verdict.item
    return json_safe(data)


def _lean(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            default = (f.default if f.default is not dataclasses.MISSING else f.default_factory()
                       if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
            if default is dataclasses.MISSING or type(v) is not type(default) or v != default:
                out[f.name] = _lean(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_lean(v) for v in value]
    if isinstance(value, dict):
        return {k: _lean(v) for k, v in value.items()}
    return value


def verdict_from_json(data: Dict[str, Any]) -> Verdict:
    """Inverse of verdict_to_json. Fields a later schema adds are ignored; missing ones take their defaults."""
    return _decode(Verdict, data)


def json_safe(value: Any) -> Any:
    """Plain JSON values: tuples become lists, non-finite floats strings, enums their value."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return str.__str__(value)  # a vocab enum member becomes its plain value
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> Dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    if origin is Union:
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decode(options[0], value) if len(options) == 1 else value
    if dataclasses.is_dataclass(hint) and isinstance(value, dict):
        fields = {f.name for f in dataclasses.fields(hint)}
        hints = _hints(hint)
        return hint(**{k: _decode(hints[k], v) for k, v in value.items() if k in fields})
    if origin in (tuple, Tuple) and isinstance(value, (list, tuple)):
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        if args and len(args) == len(value):
            return tuple(_decode(a, v) for a, v in zip(args, value))
        return tuple(value)
    if hint is float:
        if isinstance(value, str) and value in _NONFINITE:
            return _NONFINITE[value]
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    return value
